//! Child processes the interop tests start: the SDK agents and `meshsim serve`. Each is
//! held by a [`Process`] that kills it when dropped, so a failing test leaves nothing
//! running; the agents also exit when their standard input (a pipe held by the guard)
//! closes, which covers a test process that is killed outright.

use super::{Sdk, install_dir};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long an agent may take to print its ready line (a cold Python import is slow).
const READY_WITHIN: Duration = Duration::from_secs(60);

/// A running child process, killed and reaped on drop.
pub struct Process {
    name: String,
    child: Child,
    log: Option<PathBuf>,
}

impl Process {
    /// The end of what the process wrote to its log, for failure messages.
    pub fn log_tail(&self) -> String {
        let Some(log) = &self.log else {
            return String::new();
        };
        let text = std::fs::read_to_string(log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if let Err(error) = self.child.kill() {
            eprintln!("stopping {}: {error}", self.name);
        }
        let _ = self.child.wait();
    }
}

/// A loopback port that was free a moment ago.
fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener.local_addr().expect("its address").port()
}

/// Spawns `command` with piped stdin and stdout, stderr into `log` (when given), and waits
/// for a stdout line containing `marker`; returns the guard and that line.
fn spawn_until(
    name: &str,
    mut command: Command,
    marker: &'static str,
    log: Option<PathBuf>,
) -> Result<(Process, String), String> {
    command.stdin(Stdio::piped()).stdout(Stdio::piped());
    match &log {
        Some(path) => {
            let file = std::fs::File::create(path)
                .map_err(|error| format!("cannot create {}: {error}", path.display()))?;
            command.stderr(file);
        }
        None => {
            command.stderr(Stdio::inherit());
        }
    }
    let mut child = command
        .spawn()
        .map_err(|error| format!("cannot start {name}: {error}"))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let process = Process {
        name: name.to_string(),
        child,
        log,
    };
    let (lines, ready) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.contains(marker) {
                let _ = lines.send(line);
            }
        }
    });
    match ready.recv_timeout(READY_WITHIN) {
        Ok(line) => Ok((process, line)),
        Err(_) => Err(format!(
            "{name} printed no `{marker}` line within {READY_WITHIN:?}; its log:\n{}",
            process.log_tail()
        )),
    }
}

/// The first `http://...` word of `line`, without a trailing slash.
fn url_in(line: &str) -> String {
    line.split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap_or_else(|| panic!("no URL in `{line}`"))
        .trim_end_matches('/')
        .to_string()
}

/// Starts `sdk`'s agent on a free loopback port; its base URL (no trailing slash). A port
/// taken between choosing and binding it is retried on another.
pub fn start_agent(sdk: Sdk) -> (Process, String) {
    let mut failures = Vec::new();
    for _ in 0..3 {
        let port = free_port();
        let log = install_dir().join(format!("{}-agent.log", sdk.name()));
        let name = format!("the {} agent", sdk.name());
        match spawn_until(&name, sdk.agent_command(port), "ready http://", Some(log)) {
            Ok((process, line)) => return (process, url_in(&line)),
            Err(failure) => failures.push(failure),
        }
    }
    panic!("{}", failures.join("\n---\n"));
}

/// Starts `meshsim serve --runtime personality --dialect dialect` on a free port (the
/// binary picks it); the base URL it prints (no trailing slash).
pub fn start_mock(personality: &str, dialect: &str) -> (Process, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_meshsim"));
    command.args([
        "serve",
        "--runtime",
        personality,
        "--dialect",
        dialect,
        "--addr",
        "127.0.0.1:0",
    ]);
    let name = format!("meshsim serve --runtime {personality} --dialect {dialect}");
    let (process, line) =
        spawn_until(&name, command, "speaking A2A", None).unwrap_or_else(|error| panic!("{error}"));
    (process, url_in(&line))
}

/// `meshsim probe URL --json`: the report as JSON. Fails the test if the probe does.
pub fn probe(url: &str) -> Value {
    probe_with(url, &[])
}

/// The same, also writing the personality file that reproduces what it measured
/// (`--personality-out`).
pub fn probe_into_personality(url: &str, personality: &Path) -> Value {
    let path = personality.to_str().expect("a UTF-8 path");
    probe_with(url, &["--personality-out", path])
}

fn probe_with(url: &str, more: &[&str]) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args([
            "probe",
            url,
            "--json",
            "--settle-ms",
            "1000",
            "--timeout-s",
            "20",
        ])
        .args(more)
        .output()
        .expect("meshsim probe runs");
    assert!(
        output.status.success(),
        "meshsim probe {url} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "meshsim probe {url} printed no JSON ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

/// Runs `sdk`'s official client through a whole lifecycle against `url`; what it parsed at
/// each step, as the JSON object it prints.
pub fn official_client(sdk: Sdk, url: &str) -> Value {
    client_report(sdk, url, sdk.client_command(url))
}

/// [`official_client`] allowed only `binding` (the Python client only).
pub fn official_client_over(sdk: Sdk, url: &str, binding: &str) -> Value {
    client_report(sdk, url, sdk.client_command_over(url, binding))
}

fn client_report(sdk: Sdk, url: &str, mut command: std::process::Command) -> Value {
    let output = command.output().expect("the official client runs");
    let name = sdk.name();
    assert!(
        output.status.success(),
        "the {name} client against {url} failed ({}):\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "the {name} client printed no JSON ({error}):\n{}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}
