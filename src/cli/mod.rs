//! The command line: one [`Command`] variant per subcommand, each implemented in
//! `src/cli/<name>.rs`. Bad arguments exit with status 2 (clap's convention).

mod decode;
mod list;
mod probe;
mod serve;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// meshsim: reproduce A2A lifecycle divergences from a seed.
#[derive(Debug, Parser)]
#[command(name = "meshsim", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Decode one A2A document (Card, request, response, error or SSE `data:` payload) and
    /// print it normalised, with its dialect, kind, task state and error code.
    Decode(decode::DecodeArgs),
    /// Measure a real agent's task lifecycle (resubscribe, follow-up, reaping) and print it
    /// beside its Agent Card's claims, naming each contradiction.
    Probe(probe::ProbeArgs),
    /// Run one runtime personality on real TCP (loopback by default) and print its URL.
    Serve(serve::ServeArgs),
    /// Name every built-in runtime personality and every wire dialect.
    List,
}

impl Command {
    /// Runs the subcommand; its exit status.
    pub fn run(self) -> ExitCode {
        match self {
            Command::Decode(args) => decode::run(args),
            Command::Probe(args) => probe::run(args),
            Command::Serve(args) => serve::run(args),
            Command::List => list::run(),
        }
    }
}
