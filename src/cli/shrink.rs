//! `meshsim shrink`: takes a failing run and finds, by delta debugging, the smallest fault
//! plan, then the fewest jobs, then (for a drawn or file personality) the personality
//! closest to the defaults, knob by knob, that still violate the same invariant; prints the
//! shrunk plan, the shrunk personality file and the replay command that reproduces it
//! (with `--json`, one JSON object instead).
//! Like `replay`, it exits with the verdict of the run it prints: 1 for a shrunk violation,
//! 0 when the run holds the invariant and there is nothing to shrink.

use crate::cli::cautions::{self, Cautions};
use crate::cli::output;
use crate::cli::replay::personality_file;
use crate::cli::selection::RunArgs;
use clap::Args;
use meshsim_runtimes::Personality;
use meshsim_scenarios::knob_values;
use meshsim_scenarios::shrink_personality;
use meshsim_scenarios::{Faults, Invariant, RunOptions, RunSpec, RuntimeChoice};
use meshsim_sim::shrink_plan;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ShrinkArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The invariant to preserve (default: the first one the run violates).
    #[arg(long)]
    invariant: Option<Invariant>,
    /// Write only one JSON object (the invariant, faults and jobs before and after, the
    /// runs it took, the shrunk plan, the replay command) instead of the text.
    #[arg(long)]
    json: bool,
    /// Write the shrunk personality file here (the replay command then names it); without
    /// it the file is printed and the replay command names `shrunk-personality.json`.
    #[arg(long, value_name = "FILE")]
    personality_out: Option<PathBuf>,
}

pub fn run(args: ShrinkArgs) -> ExitCode {
    let spec = match args.run.spec() {
        Ok(spec) => spec,
        Err(problem) => {
            eprintln!("meshsim shrink: {problem}");
            return ExitCode::from(2);
        }
    };
    let cautions = cautions::say("shrink", [&spec.runtime]);
    let original = match meshsim_scenarios::run(&spec, &RunOptions::default()) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("meshsim shrink: the run could not be carried out: {error}");
            return ExitCode::from(2);
        }
    };
    let target = match args.invariant {
        Some(invariant) => invariant,
        None => match original.violations.first() {
            Some(violation) => violation.invariant,
            None => return nothing_to_shrink(args.json, None, &cautions),
        },
    };
    if !original.violations.iter().any(|v| v.invariant == target) {
        return nothing_to_shrink(args.json, Some(target), &cautions);
    }
    let violates = |candidate: &RunSpec| {
        meshsim_scenarios::run(candidate, &RunOptions::default())
            .is_ok_and(|result| result.violations.iter().any(|v| v.invariant == target))
    };
    let with_plan = |plan| RunSpec {
        faults: Faults::Plan(plan),
        ..spec.clone()
    };
    let (plan, plan_runs) = shrink_plan(&original.plan, |plan| violates(&with_plan(plan.clone())));
    let mut shrunk = with_plan(plan);
    let jobs = original.reports.len().max(1);
    let mut job_runs = 0;
    for limit in 1..jobs {
        job_runs += 1;
        let candidate = RunSpec {
            job_limit: Some(limit),
            ..shrunk.clone()
        };
        if violates(&candidate) {
            shrunk = candidate;
            break;
        }
    }
    let personality_runs = shrink_runtime(&mut shrunk, &args, &violates);
    let shrunk_personality = shrunk.runtime.label != spec.runtime.label;
    let file = personality_file(&shrunk.runtime.personality);
    if let Some(path) = &args.personality_out {
        // A built-in is not shrunk (it is its own reference): asked for, it is written as
        // it is, as `replay --personality-out` writes it.
        if !shrunk_personality {
            eprintln!(
                "meshsim shrink: {} is built in and kept as it is; {} holds it unchanged",
                spec.runtime.label,
                path.display()
            );
        }
        if let Err(error) = std::fs::write(path, format!("{file}\n")) {
            eprintln!(
                "meshsim shrink: cannot write the personality to {}: {error}",
                path.display()
            );
            return ExitCode::from(2);
        }
    }
    let knobs = [
        knobs_off_default(&spec.runtime.personality),
        knobs_off_default(&shrunk.runtime.personality),
    ];
    let Faults::Plan(plan) = &shrunk.faults else {
        unreachable!("the shrunk run has an explicit plan")
    };
    let compact = serde_json::to_string(plan).unwrap_or_default();
    let replay = shrunk.replay_command();
    let (faults, jobs_after) = (plan.faults.len(), shrunk.job_limit.unwrap_or(jobs));
    let runs = 1 + plan_runs + job_runs + personality_runs;
    if args.json {
        let mut report = json!({
            "verdict": "violated",
            "invariant": target.name(),
            "faults": [original.plan.faults.len(), faults],
            "jobs": [jobs, jobs_after],
            "knobs_off_default": knobs,
            "runs": runs,
            "personality": shrunk.runtime.personality,
            "plan": plan,
            "replay": replay,
        });
        cautions::add_to(&mut report, &cautions);
        output::print_line(&report.to_string());
    } else {
        let personality = if shrunk_personality {
            format!("personality ({}):\n{file}\n", shrunk.runtime.label)
        } else {
            String::new()
        };
        output::print(&format!(
            "shrunk {target}: {} fault(s) -> {faults}, {jobs} job(s) -> {jobs_after}, {} knob(s) off default -> {} ({runs} runs)\n\
             plan: {compact}\n{personality}replay: {replay}\n",
            original.plan.faults.len(),
            knobs[0],
            knobs[1],
        ));
    }
    ExitCode::FAILURE
}

/// The run holds `invariant` (or every invariant): said on stderr (and as JSON with
/// `--json`), status 0 like a replay that holds.
fn nothing_to_shrink(json: bool, invariant: Option<Invariant>, cautions: &Cautions) -> ExitCode {
    let what = invariant.map_or("every invariant".to_string(), |invariant| {
        invariant.to_string()
    });
    eprintln!("meshsim shrink: the run holds {what}; there is nothing to shrink");
    if json {
        let mut report = json!({"verdict": "holds", "invariant": invariant.map(Invariant::name)});
        cautions::add_to(&mut report, cautions);
        output::print_line(&report.to_string());
    }
    ExitCode::SUCCESS
}

/// Shrinks the run's personality toward the defaults, knob by knob, unless it is a
/// built-in (whose name already reproduces it); the shrunk run then names the file the
/// personality is written to. Returns the runs it took.
fn shrink_runtime(
    shrunk: &mut RunSpec,
    args: &ShrinkArgs,
    violates: &impl Fn(&RunSpec) -> bool,
) -> usize {
    if meshsim_runtimes::builtin(&shrunk.runtime.label).is_some() {
        return 0;
    }
    let label = args.personality_out.as_ref().map_or_else(
        || "shrunk-personality.json".to_string(),
        |path| path.display().to_string(),
    );
    let with = |personality: &Personality| RunSpec {
        runtime: RuntimeChoice::named(&label, personality.clone()),
        ..shrunk.clone()
    };
    let (personality, runs) = shrink_personality(&shrunk.runtime.personality, |candidate| {
        violates(&with(candidate))
    });
    *shrunk = with(&personality);
    runs
}

/// How many knobs of `personality` differ from the defaults.
fn knobs_off_default(personality: &Personality) -> usize {
    let defaults = knob_values(&Personality::default());
    knob_values(personality)
        .into_iter()
        .filter(|pair| !defaults.contains(pair))
        .count()
}
