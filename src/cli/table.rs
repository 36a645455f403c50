//! The verdict table of a sweep: a row per scenario (and fault mode) and runtime, a column
//! per consumer and dialect, each cell saying how many seeds held or diverged and whether
//! that is what was declared.

use meshsim_scenarios::{CellKey, CellTally, Expect, Tally};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Renders `tally` as a table a person reads at a glance.
pub fn render(tally: &Tally) -> String {
    let mut columns: Vec<(String, String)> = Vec::new();
    let mut rows: BTreeMap<(String, String), BTreeMap<(String, String), CellTally>> =
        BTreeMap::new();
    for (key, cell) in &tally.cells {
        let column = (key.consumer.clone(), key.dialect.to_string());
        if !columns.contains(&column) {
            columns.push(column.clone());
        }
        rows.entry(row_key(key)).or_default().insert(column, *cell);
    }
    columns.sort();
    let row_width = rows
        .keys()
        .map(|(_, runtime)| runtime.len() + 3)
        .max()
        .unwrap_or(10)
        .max("scenario / runtime".len());
    let cell_width = 22;
    let mut out = String::new();
    let _ = write!(out, "{:row_width$}", "scenario / runtime");
    for (consumer, dialect) in &columns {
        let _ = write!(out, " {:>cell_width$}", format!("{consumer} {dialect}"));
    }
    out.push('\n');
    let mut last_scenario = String::new();
    for ((scenario, runtime), cells) in &rows {
        if *scenario != last_scenario {
            let _ = writeln!(out, "{scenario}");
            last_scenario = scenario.clone();
        }
        let _ = write!(out, "{:row_width$}", format!("   {runtime}"));
        for column in &columns {
            let text = cells.get(column).map(cell_text).unwrap_or_default();
            let _ = write!(out, " {text:>cell_width$}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\nruns {}: {} held, {} diverged; {} did not meet their declared expectation{}",
        tally.runs,
        tally.holds,
        tally.violated,
        tally.mismatched,
        if tally.errors.is_empty() {
            String::new()
        } else {
            format!("; {} could not run", tally.errors.len())
        }
    );
    out.push_str(
        "cells: `held N` every seed held; `DIVERGED N` every seed violated an invariant;\n\
         `(expected)` the declared expectation says so; `!! MISMATCH` contradicts it.\n",
    );
    out
}

fn row_key(key: &CellKey) -> (String, String) {
    let scenario = if key.faults == "swarm" {
        format!("{} (swarm faults)", key.scenario)
    } else {
        format!("{} (no faults)", key.scenario)
    };
    (scenario, key.runtime.clone())
}

fn cell_text(cell: &CellTally) -> String {
    let counts = match (cell.holds, cell.violated) {
        (held, 0) => format!("held {held}"),
        (0, diverged) => format!("DIVERGED {diverged}"),
        (held, diverged) => format!("{held} held {diverged} div"),
    };
    if cell.mismatched > 0 {
        return format!("!! MISMATCH {}", cell.mismatched);
    }
    match cell.expect {
        Some(Expect::Violates(_)) => format!("{counts} (expected)"),
        _ => counts,
    }
}
