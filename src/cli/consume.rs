//! `meshsim consume --consumer naive|reconciling`: a built-in consumer as a program that
//! follows `meshsim check`'s contract (docs/check.md): it reads its job from the
//! environment, runs it over real TCP and writes its report. Exit 0 when the report is
//! written, 2 when the environment is not a check's.

use clap::Args;
use meshsim_scenarios::BuiltinConsumer;
use meshsim_scenarios::check::consume;
use meshsim_scenarios::check::contract::Order;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ConsumeArgs {
    /// `naive` or `reconciling`.
    #[arg(long, value_parser = builtin)]
    consumer: BuiltinConsumer,
}

pub fn run(args: ConsumeArgs) -> ExitCode {
    let order = match Order::from_env(|name| std::env::var(name).ok()) {
        Ok(order) => order,
        Err(problem) => {
            eprintln!("meshsim consume: {problem}");
            return ExitCode::from(2);
        }
    };
    match consume(args.consumer, &order) {
        Ok(()) => ExitCode::SUCCESS,
        Err(problem) => {
            eprintln!("meshsim consume: {problem}");
            ExitCode::FAILURE
        }
    }
}

fn builtin(name: &str) -> Result<BuiltinConsumer, String> {
    match name {
        "naive" => Ok(BuiltinConsumer::Naive),
        "reconciling" => Ok(BuiltinConsumer::Reconciling),
        other => Err(format!(
            "unknown consumer `{other}` (expected naive or reconciling)"
        )),
    }
}
