//! The verdict table `meshsim check` prints without `--json`: a row per scenario and runtime,
//! a column per dialect. A cell is `held N`, or `FAILED K/N:` and each invariant or contract
//! breach with how many runs showed it, so cells run from a few characters to a line's worth;
//! they are left-aligned, so that each column starts where its header does and a short cell
//! stays next to its runtime's name.

use meshsim_protocol::Dialect;
use meshsim_scenarios::check::{CheckCell, CheckTally};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// What heads the rows' column.
const ROWS_HEADER: &str = "scenario / runtime";

/// The table of `tally`, a column for each of `dialects`, then the run counts, the runs whose
/// repetitions differed and those that could not run.
pub fn render(tally: &CheckTally, dialects: &[Dialect]) -> String {
    let dialects: Vec<String> = dialects.iter().map(ToString::to_string).collect();
    let row_width = tally
        .cells
        .keys()
        .map(|(_, runtime, _)| format!("   {runtime}").len())
        .chain([ROWS_HEADER.len()])
        .max()
        .unwrap_or_default();
    let cell_width = tally
        .cells
        .values()
        .map(|cell| cell_text(cell).len())
        .chain(dialects.iter().map(String::len))
        .max()
        .unwrap_or_default();
    let mut out = String::from("\n");
    let mut line = format!("{ROWS_HEADER:row_width$}");
    for dialect in &dialects {
        let _ = write!(line, "  {dialect:cell_width$}");
    }
    push_line(&mut out, &line);
    let rows: BTreeSet<(&String, &String)> = tally
        .cells
        .keys()
        .map(|(scenario, runtime, _)| (scenario, runtime))
        .collect();
    let mut last_scenario = None;
    for (scenario, runtime) in rows {
        if last_scenario != Some(scenario) {
            push_line(&mut out, scenario);
            last_scenario = Some(scenario);
        }
        let mut line = format!("{:row_width$}", format!("   {runtime}"));
        for dialect in &dialects {
            let key = (scenario.clone(), runtime.clone(), dialect.clone());
            let text = tally.cells.get(&key).map(cell_text).unwrap_or_default();
            let _ = write!(line, "  {text:cell_width$}");
        }
        push_line(&mut out, &line);
    }
    let _ = writeln!(
        out,
        "\nruns {}: {} held, {} violated, {} invalid reports, {} programs failed; {:.2} runs/s",
        tally.runs,
        tally.holds,
        tally.violated,
        tally.report_invalid,
        tally.program_failed,
        tally.runs_per_sec
    );
    for rerun in &tally.unstable {
        let _ = writeln!(out, "unstable (repetitions differ): {rerun}");
    }
    for error in &tally.errors {
        let _ = writeln!(out, "could not run: {error}");
    }
    out
}

/// Appends `line` without the padding its last cell left.
fn push_line(out: &mut String, line: &str) {
    out.push_str(line.trim_end());
    out.push('\n');
}

fn cell_text(cell: &CheckCell) -> String {
    if cell.held == cell.runs {
        return format!("held {}", cell.runs);
    }
    let problems: Vec<String> = cell
        .problems
        .iter()
        .map(|(name, count)| format!("{name} {count}"))
        .collect();
    format!(
        "FAILED {}/{}: {}",
        cell.runs - cell.held,
        cell.runs,
        problems.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(runs: usize, held: usize, problems: &[(&str, usize)]) -> CheckCell {
        CheckCell {
            runs,
            held,
            problems: problems
                .iter()
                .map(|(name, count)| (name.to_string(), *count))
                .collect(),
        }
    }

    #[test]
    fn cells_start_under_their_dialect_and_no_line_ends_in_padding() {
        let mut tally = CheckTally::default();
        let key = |scenario: &str, runtime: &str, dialect: &str| {
            (
                scenario.to_string(),
                runtime.to_string(),
                dialect.to_string(),
            )
        };
        tally.cells.insert(
            key("origin-incident", "jvm-reaping", "v1.0"),
            cell(2, 0, &[("legal-path", 2), ("liveness", 1)]),
        );
        tally.cells.insert(
            key("origin-incident", "jvm-reaping", "v0.3"),
            cell(2, 2, &[]),
        );
        tally.cells.insert(
            key("origin-incident", "python-correct", "v1.0"),
            cell(2, 2, &[]),
        );
        let table = render(&tally, &[Dialect::V1_0, Dialect::V0_3]);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(
            &lines[1..5],
            [
                "scenario / runtime  v1.0                                  v0.3",
                "origin-incident",
                "   jvm-reaping      FAILED 2/2: legal-path 2, liveness 1  held 2",
                "   python-correct   held 2",
            ],
            "{table}"
        );
    }
}
