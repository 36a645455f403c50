//! `meshsim`: a deterministic mesh simulator and test harness for A2A consumers. Each
//! subcommand lives in its own file under `src/cli/`.

mod cli;

use std::process::ExitCode;

/// mimalloc instead of the system allocator: a sweep spends much of its time allocating small
/// buffers, and nothing in a run depends on where they land.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    match cli::Cli::parse_args() {
        Ok(cli) => cli.run(),
        Err(status) => status,
    }
}
