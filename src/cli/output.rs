//! Standard output for pipes and scripts. A reader that stops early (`meshsim replay ... |
//! head -1`) closes the pipe: what is left to print is dropped quietly, never a panic, and
//! the command still exits with its own status (see [`EXIT_STATUS`]). Any other failure to
//! write (a full disk) is remembered, and the command then ends with an error instead of a
//! status that claims the output was written ([`failure`]). (A descriptor closed before the
//! start is not one: the standard library opens it on `/dev/null`.)

use std::io::{self, ErrorKind, StdoutLock, Write};
use std::sync::OnceLock;

/// The first failure to write standard output other than a reader that left.
static FAILURE: OnceLock<String> = OnceLock::new();

/// The exit statuses every subcommand follows, shown at the end of each `--help`.
pub const EXIT_STATUS: &str = "\
Exit status (every subcommand):
  0  success: the run holds, every run met its expectation, the document decoded
  1  a failing verdict: the replayed or shrunk run violates an invariant, a sweep or
     check run missed its expectation; also work that could not be done (an agent
     that does not answer, an address already in use, standard output that cannot be
     written)
  2  bad usage or input: an unknown argument, an unreadable or malformed file, seed
     range, plan or personality, an output file that cannot be written";

/// Standard output, locked; every write that fails is remembered (see [`failure`]).
pub fn stdout() -> Stdout {
    Stdout(io::stdout().lock())
}

/// Standard output as [`stdout`] gives it.
pub struct Stdout(StdoutLock<'static>);

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf).inspect_err(remember)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush().inspect_err(remember)
    }
}

fn remember(error: &io::Error) {
    // Nobody is reading any more: the rest is dropped and the exit status stays the command's.
    if error.kind() != ErrorKind::BrokenPipe {
        let _ = FAILURE.set(error.to_string());
    }
}

/// Why standard output could not be written, if it could not (a reader that left aside).
pub fn failure() -> Option<&'static str> {
    FAILURE.get().map(String::as_str)
}

/// Writes `text` to standard output as it is.
pub fn print(text: &str) {
    let mut out = stdout();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}

/// Writes `line` and a newline to standard output.
pub fn print_line(line: &str) {
    print(&format!("{line}\n"));
}
