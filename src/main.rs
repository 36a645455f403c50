//! `meshsim`: a deterministic mesh simulator and test harness for A2A consumers. Each
//! subcommand lives in its own file under `src/cli/`.

mod cli;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    cli::Cli::parse().run()
}
