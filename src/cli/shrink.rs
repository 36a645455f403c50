//! `meshsim shrink`: takes a failing run and finds, by delta debugging, the smallest fault
//! plan and then the fewest jobs that still violate the same invariant; prints the shrunk
//! plan and the replay command that reproduces it.

use crate::cli::selection::RunArgs;
use clap::Args;
use meshsim_scenarios::{Faults, Invariant, RunOptions, RunSpec};
use meshsim_sim::fault::shrink as shrink_plan;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ShrinkArgs {
    #[command(flatten)]
    run: RunArgs,
    /// The invariant to preserve (default: the first one the run violates).
    #[arg(long)]
    invariant: Option<Invariant>,
}

pub fn run(args: ShrinkArgs) -> ExitCode {
    let spec = match args.run.spec() {
        Ok(spec) => spec,
        Err(problem) => {
            eprintln!("meshsim shrink: {problem}");
            return ExitCode::from(2);
        }
    };
    let original = match meshsim_scenarios::run(&spec, &RunOptions::default()) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("meshsim shrink: the run could not be carried out: {error}");
            return ExitCode::FAILURE;
        }
    };
    let target = match args.invariant {
        Some(invariant) => invariant,
        None => match original.violations.first() {
            Some(violation) => violation.invariant,
            None => {
                eprintln!(
                    "meshsim shrink: the run holds every invariant; there is nothing to shrink"
                );
                return ExitCode::FAILURE;
            }
        },
    };
    if !original.violations.iter().any(|v| v.invariant == target) {
        eprintln!("meshsim shrink: the run does not violate {target}");
        return ExitCode::FAILURE;
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
    let Faults::Plan(plan) = &shrunk.faults else {
        unreachable!("the shrunk run has an explicit plan")
    };
    println!(
        "shrunk {target}: {} fault(s) -> {}, {} job(s) -> {} ({} runs)",
        original.plan.faults.len(),
        plan.faults.len(),
        jobs,
        shrunk.job_limit.unwrap_or(jobs),
        1 + plan_runs + job_runs
    );
    let compact = serde_json::to_string(plan).unwrap_or_default();
    println!("plan: {compact}");
    println!(
        "replay: {} --plan-json '{compact}'",
        shrunk.replay_command(Some("-")).replace(" --plan -", "")
    );
    ExitCode::SUCCESS
}
