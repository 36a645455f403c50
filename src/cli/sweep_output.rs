//! What a sweep prints, whether `meshsim sweep` ran it or `meshsim merge` joined it from
//! shard outputs: with `--json` a line per run and a summary line, each carrying the
//! sweep's identity; otherwise the verdict table. Exit status 0 exactly when every run met
//! its declared expectation and every run could be carried out.

use crate::cli::cautions::Cautions;
use crate::cli::identity::SweepIdentity;
use crate::cli::run_json::run_json;
use crate::cli::swarm_coverage::coverage_line;
use crate::cli::table;
use meshsim_scenarios::{CoverageSummary, Expect, RunResult, Tally};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::io::Write;
use std::process::ExitCode;

/// The last line of `sweep --json`, under the key `summary`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Summary {
    pub runs: usize,
    pub holds: usize,
    pub violated: usize,
    pub mismatched: usize,
    /// The runs that could not be carried out, as `replay command: why`, in sweep order.
    pub errors: Vec<String>,
    /// The seeds this output ran `[A, B)`: its shard's slice of the sweep's range.
    pub seeds: [u64; 2],
    pub sweep: SweepIdentity,
    /// With `--runtime swarm`, the knob values the drawn personalities covered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// (Boxed: a summary is a variant of a merge's line type, whose other variant is small.)
    pub coverage: Option<Box<CoverageSummary>>,
    /// The runtimes set outside the space where verdicts are about the consumer, with why
    /// (`cautions`, as said on standard error).
    #[serde(default, skip_serializing_if = "Cautions::is_empty")]
    pub cautions: Cautions,
}

/// One run as its `sweep --json` line.
pub fn run_line(
    result: &RunResult,
    expect: Expect,
    matched: bool,
    identity: &SweepIdentity,
) -> String {
    let mut line = run_json(result, expect, matched);
    set_identity(&mut line, identity);
    line.to_string()
}

/// Gives a run line (a JSON object) the identity `identity`.
pub fn set_identity(line: &mut Value, identity: &SweepIdentity) {
    if let Some(object) = line.as_object_mut() {
        object.insert("sweep".to_string(), json!(identity));
    }
}

/// Prints what follows the runs (the summary line, or the verdict table and the runs that
/// could not be carried out) and returns the sweep's exit status.
pub fn finish(
    out: &mut impl Write,
    tally: &Tally,
    json: bool,
    identity: &SweepIdentity,
    coverage: Option<CoverageSummary>,
    cautions: Cautions,
) -> ExitCode {
    if json {
        let slice = identity.slice();
        let summary = Summary {
            runs: tally.runs,
            holds: tally.holds,
            violated: tally.violated,
            mismatched: tally.mismatched,
            errors: tally.errors.clone(),
            seeds: [slice.start, slice.end],
            sweep: identity.clone(),
            coverage: coverage.clone().map(Box::new),
            cautions,
        };
        let _ = writeln!(out, "{}", json!({ "summary": summary }));
    } else {
        let _ = write!(out, "{}", table::render(tally));
        if let Some(summary) = &coverage {
            let _ = writeln!(out, "{}", coverage_line(summary));
        }
        for error in &tally.errors {
            let _ = writeln!(out, "could not run: {error}");
        }
    }
    if tally.all_expected() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
