//! Standard output for pipes and scripts. A reader that stops early (`meshsim replay ... |
//! head -1`) closes the pipe: what is left to print is dropped quietly, never a panic, and
//! the command still exits with its own status (see [`EXIT_STATUS`]).

use std::io::Write;

/// The exit statuses every subcommand follows, shown at the end of each `--help`.
pub const EXIT_STATUS: &str = "\
Exit status (every subcommand):
  0  success: the run holds, every run met its expectation, the document decoded
  1  a failing verdict: the replayed or shrunk run violates an invariant, a sweep or
     check run missed its expectation; also work that could not be done (an agent
     that does not answer, an address already in use)
  2  bad usage or input: an unknown argument, an unreadable or malformed file, seed
     range, plan or personality";

/// Writes `text` to standard output as it is; a closed or failing stdout is ignored.
pub fn print(text: &str) {
    let mut out = std::io::stdout().lock();
    // Nobody is reading any more: the rest is dropped and the exit status stays the command's.
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Writes `line` and a newline to standard output; a closed or failing stdout is ignored.
pub fn print_line(line: &str) {
    print(&format!("{line}\n"));
}
