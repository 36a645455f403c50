//! Running the consumer program under test: started in a process group of its own with the
//! contract's environment, its output kept in a log, and killed with its whole group when
//! it outlives the run's bound.

use super::contract::Order;
use crate::shell_word;
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// How often a running program is looked at (it has no async wait without tokio's
/// `process` feature, and a run lasts seconds, so 20 ms is a small price).
const POLL: Duration = Duration::from_millis(20);

/// The command line of the program under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub command: String,
    pub args: Vec<String>,
}

impl Program {
    /// The name the program's reports go under: its script's file stem when it runs one
    /// (`naive` for `python3 examples/consumers/python/naive.py`), else the command's (code
    /// given inline, as `python3 -c CODE` or `node -e CODE` take it, is no script).
    pub fn name(&self) -> String {
        let stem = |text: &str| {
            Path::new(text)
                .file_stem()
                .map(|stem| stem.to_string_lossy().into_owned())
                .unwrap_or_else(|| text.to_string())
        };
        let inline_code = self
            .args
            .iter()
            .any(|arg| ["-c", "-e", "--eval"].contains(&arg.as_str()));
        match self.args.iter().find(|arg| !arg.starts_with('-')) {
            Some(script) if !inline_code && Path::new(script).extension().is_some() => stem(script),
            _ => stem(&self.command),
        }
    }

    /// The command line, quoted for a POSIX shell.
    pub fn shell_words(&self) -> String {
        std::iter::once(&self.command)
            .chain(&self.args)
            .map(|word| shell_word::quote(word))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How a program's run ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "ended")]
pub enum Ending {
    /// It exited with status 0.
    Success,
    /// It exited with another status, or was killed by a signal (`code` is then `None`).
    Failed { code: Option<i32> },
    /// It was still running at the bound and was killed with its process group.
    TimedOut { bound_ms: u64 },
    /// It could not be started.
    NotStarted { error: String },
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Success => f.write_str("exited 0"),
            Ending::Failed { code: Some(code) } => write!(f, "exited with status {code}"),
            Ending::Failed { code: None } => f.write_str("was killed by a signal"),
            Ending::TimedOut { bound_ms } => write!(
                f,
                "was still running after {bound_ms} ms and was killed with its process group"
            ),
            Ending::NotStarted { error } => write!(f, "could not be started: {error}"),
        }
    }
}

/// Runs `program` for `order` with its output in `log`, killing it (and its process group)
/// at `bound`.
pub async fn run(program: &Program, order: &Order, log: &Path, bound: Duration) -> Ending {
    let output = match std::fs::File::create(log) {
        Ok(file) => file,
        Err(error) => {
            return Ending::NotStarted {
                error: format!("cannot create its log {}: {error}", log.display()),
            };
        }
    };
    let errors = match output.try_clone() {
        Ok(file) => file,
        Err(error) => {
            return Ending::NotStarted {
                error: error.to_string(),
            };
        }
    };
    let mut command = Command::new(&program.command);
    command
        .args(&program.args)
        .envs(order.env())
        .stdin(Stdio::null())
        .stdout(output)
        .stderr(errors)
        .process_group(0);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Ending::NotStarted {
                error: format!("{}: {error}", program.command),
            };
        }
    };
    let group = child.id();
    live_groups().insert(group);
    let started = tokio::time::Instant::now(); // wall-clock-ok: a real program's bound
    let ending = loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break Ending::Success,
            Ok(Some(status)) => {
                break Ending::Failed {
                    code: status.code(),
                };
            }
            Ok(None) if started.elapsed() >= bound => {
                kill_group(group);
                let _ = child.wait();
                break Ending::TimedOut {
                    bound_ms: u64::try_from(bound.as_millis()).unwrap_or(u64::MAX),
                };
            }
            Ok(None) => meshsim_time::sleep(POLL).await,
            Err(error) => {
                kill_group(group);
                let _ = child.wait();
                break Ending::NotStarted {
                    error: format!("cannot wait for it: {error}"),
                };
            }
        }
    };
    // Whatever the program left running in its group goes with it.
    kill_group(group);
    live_groups().remove(&group);
    ending
}

/// The process groups of the programs running now.
fn live_groups() -> MutexGuard<'static, BTreeSet<u32>> {
    static LIVE: Mutex<BTreeSet<u32>> = Mutex::new(BTreeSet::new());
    LIVE.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Kills every program running now, with whatever it started in its group: for a check
/// that is stopped before its runs end, so that none outlives it. Returns once each program
/// has exited: a signal is delivered after `killpg` returns, so a check that exited at once
/// could leave a program still running for a moment (seen: 8 of 60 stopped checks on a
/// loaded machine).
pub fn kill_every_program() {
    let groups = std::mem::take(&mut *live_groups());
    for group in &groups {
        kill_group(*group);
    }
    for group in groups {
        await_exit(group);
    }
}

/// Waits until the program `pid`, a child of this process, has exited, leaving it to be
/// reaped by whoever holds its `Child`; at once when it has already been reaped.
fn await_exit(pid: u32) {
    // SAFETY: an all-zero siginfo_t is a valid value for waitid to fill in.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waitid writes only to `info`; with WNOWAIT it reaps nothing, and a pid
        // that is no longer a child is an ECHILD.
        let waited =
            unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if waited == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
        {
            return;
        }
    }
}

/// Kills every process of the group `group` (a program's, made with `process_group(0)`).
fn kill_group(group: u32) {
    if let Ok(group) = libc::pid_t::try_from(group) {
        // SAFETY: killpg only sends a signal; an absent group is an ESRCH we ignore.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_is_named_after_its_script() {
        let python = Program {
            command: "python3".into(),
            args: vec!["examples/consumers/python/naive.py".into()],
        };
        assert_eq!(python.name(), "naive");
        let binary = Program {
            command: "target/debug/meshsim".into(),
            args: vec!["consume".into(), "--consumer".into(), "naive".into()],
        };
        assert_eq!(binary.name(), "meshsim");
        let inline = Program {
            command: "/usr/bin/python3".into(),
            args: vec!["-c".into(), "import json; print(json.dumps(1))".into()],
        };
        assert_eq!(inline.name(), "python3", "code is no script");
    }
}
