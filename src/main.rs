//! `meshsim`: a deterministic mesh simulator and test harness for A2A consumers. Each
//! subcommand lives in its own file under `src/cli/`.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::Cli::parse_args() {
        Ok(cli) => cli.run(),
        Err(status) => status,
    }
}
