//! The JSON object that describes one run, shared by `sweep --json` (one line per run) and
//! `replay --json` (the last line).

use meshsim_scenarios::{Expect, RunResult};
use serde_json::{Value, json};

/// A run as one JSON object: what identifies it, its verdict, violations and trace hash.
pub fn run_json(result: &RunResult, expect: Expect, matched: bool) -> Value {
    let spec = &result.spec;
    json!({
        "seed": spec.seed.value(),
        "scenario": spec.scenario,
        "runtime": spec.runtime.label,
        "consumer": spec.consumer.name(),
        "dialect": spec.dialect,
        "faults": spec.faults.name(),
        "tick_ms": u64::try_from(spec.tick.as_millis()).unwrap_or(u64::MAX),
        "verdict": result.verdict,
        "violations": result.violations.iter().map(|violation| json!({
            "invariant": violation.invariant,
            "job": violation.job,
            "task": violation.task,
            "at_ms": violation.at_ms,
            "detail": violation.detail,
        })).collect::<Vec<_>>(),
        "peer_faults": result.peer_faults,
        "trace_hash": result.trace_hash,
        "expect": expect,
        "matches_expectation": matched,
        "elapsed_ms": result.elapsed_ms,
        "steps": result.steps,
        "replay": spec.replay_command(),
    })
}
