//! `meshsim merge FILE...`: joins the `--json` outputs of a sweep's shards (`sweep --shard
//! I/N`, run anywhere) into the verdict one `meshsim sweep` of the whole range gives: the
//! same table, summary and exit status, and with `--json` the same lines, byte for byte.
//! It refuses, in one line and with exit status 2, outputs of different sweeps (another
//! build, tick, matrix, seed range or shard count, naming the file), a missing or doubled
//! shard, and a shard whose runs do not cover its seeds exactly once.

mod shard_set;
mod source;

use crate::cli::output;
use crate::cli::sweep_output::{finish, set_identity};
use clap::Args;
use shard_set::ShardSet;
use source::Source;
use std::io::Write;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Outputs of `meshsim sweep --json --shard I/N`, in any order; `-` reads standard
    /// input, which may hold several shards one after another.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
    /// Print the runs in sweep order and the summary, as one `meshsim sweep --json` of the
    /// whole range prints them, instead of the verdict table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: MergeArgs) -> ExitCode {
    match merge(&args) {
        Ok(status) => status,
        Err(problem) => {
            eprintln!("meshsim merge: {problem}");
            ExitCode::from(2)
        }
    }
}

/// Reads and checks every shard, then prints the whole sweep's verdict.
fn merge(args: &MergeArgs) -> Result<ExitCode, String> {
    let sources = Source::open_all(&args.files)?;
    let shards = ShardSet::read(&sources)?;
    let whole = shards.identity.whole();
    let mut out = output::stdout();
    if args.json {
        for (index, source) in shards.in_order() {
            for line in sources[source].run_lines_of_shard(index)? {
                let mut line = line?;
                set_identity(&mut line, &whole);
                let _ = writeln!(out, "{line}");
            }
        }
    }
    Ok(finish(
        &mut out,
        &shards.tally,
        args.json,
        &whole,
        shards.coverage.summary(),
        shards.cautions,
    ))
}
