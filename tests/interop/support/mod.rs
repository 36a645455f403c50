//! Shared by the interop tests (`tests/interop/python.rs`, `tests/interop/js.rs`): installs
//! a real SDK with `interop/install.sh`, starts its small agent and `meshsim serve` as child
//! processes that are killed when dropped, runs `meshsim probe`, plays the origin incident's script with
//! the A2A client, compares probe reports field by field, runs the SDK's official client
//! as a witness of every personality, and compares how `ListTasks` filters are read.

pub mod calibration;
pub mod decoding;
pub mod list_filter;
pub mod process;
pub mod witness;

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Once, OnceLock};

/// The repository root (the root package's manifest directory).
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where `interop/install.sh` installs: `target/interop`, unless `MESHSIM_INTEROP_DIR`.
pub fn install_dir() -> PathBuf {
    std::env::var_os("MESHSIM_INTEROP_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/interop"))
}

/// One of the real SDKs the tests run against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sdk {
    /// a2a-sdk 1.3.0 (PyPI), `interop/python/agent.py`.
    Python,
    /// @a2a-js/sdk 1.3.0 (npm), `interop/js/agent.mjs`.
    Js,
}

impl Sdk {
    /// Its name for `interop/install.sh`.
    pub fn name(self) -> &'static str {
        match self {
            Sdk::Python => "python",
            Sdk::Js => "js",
        }
    }

    /// The mock personality calibrated against it.
    pub fn personality(self) -> &'static str {
        match self {
            Sdk::Python => "a2a-python-1.3",
            Sdk::Js => "a2a-js-1.3",
        }
    }

    /// The programs the SDK needs on the machine.
    fn tools(self) -> &'static [&'static str] {
        match self {
            Sdk::Python => &["python3"],
            Sdk::Js => &["node", "npm"],
        }
    }

    /// The command that runs its agent on `port`.
    pub fn agent_command(self, port: u16) -> Command {
        let mut command = self.script("agent");
        command
            .args(["--port", &port.to_string(), "--exit-with-stdin"])
            .env_remove("PORT");
        command
    }

    /// The command that runs its official client through a whole lifecycle against `url`
    /// (`interop/python/client.py`, `interop/js/client.mjs`; see `witness`).
    pub fn client_command(self, url: &str) -> Command {
        let mut command = self.script("client");
        command.arg(url);
        command
    }

    /// The same, allowed only `binding` (e.g. `HTTP+JSON`; the Python client only).
    pub fn client_command_over(self, url: &str, binding: &str) -> Command {
        let mut command = self.client_command(url);
        command.arg(binding);
        command
    }

    /// How its client names the errors the witness expects.
    pub fn client_errors(self) -> ClientErrors {
        match self {
            Sdk::Python => ClientErrors {
                not_found: "TaskNotFoundError",
                no_list_in_v0_3: "NotImplementedError",
            },
            Sdk::Js => ClientErrors {
                not_found: "JsonRpcTaskNotFoundError",
                no_list_in_v0_3: "JsonRpcTransportError",
            },
        }
    }

    /// The interpreter, with the installed SDK within reach, running `interop/<sdk>/<name>`.
    fn script(self, name: &str) -> Command {
        let dir = install_dir();
        match self {
            Sdk::Python => {
                let mut command = Command::new(dir.join("venv/bin/python"));
                command.arg(repo().join(format!("interop/python/{name}.py")));
                command
            }
            Sdk::Js => {
                let mut command = Command::new("node");
                command
                    .arg(repo().join(format!("interop/js/{name}.mjs")))
                    .env("MESHSIM_INTEROP_NODE", dir.join("node"));
                command
            }
        }
    }
}

/// The class names an SDK's client gives the errors of the witnessed lifecycle.
#[derive(Debug, Clone, Copy)]
pub struct ClientErrors {
    /// A task the agent does not know (JSON-RPC -32001).
    pub not_found: &'static str,
    /// `ListTasks` asked of a v0.3 agent: v0.3 has no such method, so the client refuses it
    /// itself, before sending anything.
    pub no_list_in_v0_3: &'static str,
}

/// Installs `sdks` with `interop/install.sh` (a no-op for one already installed) and waits
/// for them. `None`, with the reason printed, only when a program one of them needs is not
/// on this machine and `CI` is not `true`; under CI a missing program, like a failed
/// install, is a test failure.
///
/// Each SDK's install runs once per test binary, on a thread of its own, started by the
/// first test that needs it: an install is mostly waiting on a registry (pip's and npm's
/// downloads: a few CPU seconds in a minute or more), so the two SDKs' installs overlap each
/// other and the tests running meanwhile. Each SDK has its own directory under
/// target/interop, so the two scripts never touch each other's files.
pub fn install(sdks: &[Sdk]) -> Option<()> {
    for &sdk in sdks {
        if let Some(tool) = sdk.missing_tool() {
            assert!(
                std::env::var_os("CI").is_none_or(|ci| ci != "true"),
                "the {} interop test needs `{tool}`, which is not on this machine; \
                 CI=true requires every interop peer",
                sdk.name()
            );
            eprintln!(
                "SKIPPED: the {} interop test needs `{tool}`, which is not on this machine",
                sdk.name()
            );
            return None;
        }
    }
    for &sdk in sdks {
        sdk.start_install();
    }
    for &sdk in sdks {
        match sdk.install_outcome().wait() {
            Ok(stdout) => eprint!("{stdout}"),
            Err(failure) => panic!("{failure}"),
        }
    }
    Some(())
}

impl Sdk {
    /// The first program the SDK needs that is not on this machine.
    fn missing_tool(self) -> Option<&'static str> {
        self.tools().iter().copied().find(|tool| {
            !Command::new(tool)
                .arg("--version")
                .output()
                .is_ok_and(|output| output.status.success())
        })
    }

    /// Starts its install on a thread of its own, unless this test binary already has.
    fn start_install(self) {
        static PYTHON: Once = Once::new();
        static JS: Once = Once::new();
        let started = match self {
            Sdk::Python => &PYTHON,
            Sdk::Js => &JS,
        };
        started.call_once(|| {
            std::thread::spawn(move || {
                // Set exactly once, here: every test waiting on it wakes with this outcome.
                let _ = self.install_outcome().set(run_install_script(self));
            });
        });
    }

    /// The outcome of its install in this test binary: the script's output, or why it failed.
    fn install_outcome(self) -> &'static OnceLock<Result<String, String>> {
        static PYTHON: OnceLock<Result<String, String>> = OnceLock::new();
        static JS: OnceLock<Result<String, String>> = OnceLock::new();
        match self {
            Sdk::Python => &PYTHON,
            Sdk::Js => &JS,
        }
    }
}

/// `interop/install.sh SDK`: its output when it succeeds, else a message with all it printed.
fn run_install_script(sdk: Sdk) -> Result<String, String> {
    let output = Command::new("bash")
        .arg(repo().join("interop/install.sh"))
        .arg(sdk.name())
        .output()
        .map_err(|error| format!("cannot run interop/install.sh with bash: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "interop/install.sh {} failed ({}):\n{}{}",
            sdk.name(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// A current-thread tokio runtime for the async steps.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
