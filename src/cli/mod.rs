//! The command line: one [`Command`] variant per subcommand, each implemented in
//! `src/cli/<name>.rs`. Exit statuses: 0 success, 1 a failing verdict, 2 bad usage or
//! input ([`output::EXIT_STATUS`], shown in every `--help`).

mod bench;
mod cautions;
mod check;
mod check_table;
mod consume;
mod decode;
mod identity;
mod list;
mod merge;
mod output;
mod probe;
mod progress;
mod replay;
mod run_json;
mod scheduler;
mod selection;
mod serve;
mod shard;
mod shrink;
mod stop_signal;
mod swarm_coverage;
mod sweep;
mod sweep_output;
mod table;
mod usage;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::process::ExitCode;

/// `meshsim --version`: the package version and the commit of the build (`-dirty` when its
/// sources differed from the commit).
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (", env!("MESHSIM_COMMIT"), ")");

/// meshsim: reproduce A2A lifecycle divergences from a seed.
///
/// With no subcommand, sweeps the embedded matrix and prints the verdict table.
#[derive(Debug, Parser)]
#[command(name = "meshsim", version = VERSION, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// Parses the command line; a bad argument is reported in one line, status 2.
    /// Every `--help` ends with the exit statuses.
    pub fn parse_args() -> Result<Self, ExitCode> {
        <Cli as CommandFactory>::command()
            .after_help(output::EXIT_STATUS)
            .mut_subcommands(|subcommand| subcommand.after_help(output::EXIT_STATUS))
            .try_get_matches()
            .and_then(|matches| <Cli as FromArgMatches>::from_arg_matches(&matches))
            .map_err(usage::report)
    }

    /// Runs the subcommand, or the default sweep when there is none; its exit status.
    pub fn run(self) -> ExitCode {
        let status = match self.command {
            Some(command) => command.run(),
            None => sweep::run_default(),
        };
        match output::failure() {
            Some(error) => {
                eprintln!("meshsim: cannot write to standard output: {error}");
                ExitCode::FAILURE
            }
            None => status,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode one A2A document (Card, request, response, error or SSE `data:` payload) and
    /// print it normalised, with its dialect, kind, task state and error code.
    Decode(decode::DecodeArgs),
    /// Measure a real agent's task lifecycle (resubscribe, follow-up, reaping) over the
    /// binding its Card prefers (JSON-RPC or HTTP+JSON) and print it beside its Agent Card's
    /// claims, naming each contradiction.
    Probe(probe::ProbeArgs),
    /// Run one runtime personality on real TCP (loopback by default) and print its URL.
    Serve(serve::ServeArgs),
    /// Name every built-in runtime personality and every wire dialect.
    List(list::ListArgs),
    /// Sweep the matrix of scenario x runtime x consumer x dialect over many seeds and
    /// print the verdict table (or JSON lines); exit 0 when every run met its expectation.
    Sweep(sweep::SweepArgs),
    /// Join the `--json` outputs of a sweep's shards (`sweep --shard I/N`) into the verdict
    /// of the whole sweep: the table, or with --json the lines one sweep would print;
    /// refuses shards of different sweeps and missing or doubled shards (exit 2).
    Merge(merge::MergeArgs),
    /// Replay one run from its seed: the timeline, the fault plan, the verdict and the
    /// trace hash.
    Replay(replay::ReplayArgs),
    /// Shrink a failing run to the smallest fault plan and workload that still violates the
    /// same invariant, printed as a replay command.
    Shrink(shrink::ShrinkArgs),
    /// Judge a consumer program written in any language: run it against the scenarios'
    /// runtimes on real loopback TCP, strike the scenarios' faults at points of the
    /// exchange, and check each run with the simulation's oracle (docs/check.md).
    Check(check::CheckArgs),
    /// Run a built-in consumer as a program that follows `meshsim check`'s contract.
    Consume(consume::ConsumeArgs),
    /// Measure what a sweep costs: simulated seeds per second, the speedup over the same
    /// scenario on real TCP, the cost over the protocol floor, and --jobs scaling.
    Bench(bench::BenchArgs),
}

impl Command {
    /// Runs the subcommand; its exit status.
    pub fn run(self) -> ExitCode {
        match self {
            Command::Decode(args) => decode::run(args),
            Command::Probe(args) => probe::run(args),
            Command::Serve(args) => serve::run(args),
            Command::List(args) => list::run(args),
            Command::Sweep(args) => sweep::run(args),
            Command::Merge(args) => merge::run(args),
            Command::Replay(args) => replay::run(args),
            Command::Shrink(args) => shrink::run(args),
            Command::Bench(args) => bench::run(args),
            Command::Check(args) => check::run(args),
            Command::Consume(args) => consume::run(args),
        }
    }
}
