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
use std::sync::Mutex;

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

/// Installs `sdk` with `interop/install.sh` (a no-op when already installed). `None`, with
/// the reason printed, only when a program the SDK needs is not on this machine and `CI` is
/// not `true`; under CI a missing program, like a failed install, is a test failure.
pub fn install(sdk: Sdk) -> Option<()> {
    for tool in sdk.tools() {
        let found = Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|output| output.status.success());
        if !found {
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
    // The tests of this binary run on parallel threads, and two installs of one SDK into
    // target/interop at once break each other (one removes the venv the other fills); the
    // first install does the work and the others find it done.
    static ONE_INSTALL_AT_A_TIME: Mutex<()> = Mutex::new(());
    let _installing = ONE_INSTALL_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let output = Command::new("bash")
        .arg(repo().join("interop/install.sh"))
        .arg(sdk.name())
        .output()
        .expect("bash runs interop/install.sh");
    assert!(
        output.status.success(),
        "interop/install.sh {} failed ({}):\n{}{}",
        sdk.name(),
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    eprint!("{}", String::from_utf8_lossy(&output.stdout));
    Some(())
}

/// A current-thread tokio runtime for the async steps.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
