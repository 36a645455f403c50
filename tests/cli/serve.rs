//! `meshsim serve` as a user runs it: the binary listens on loopback, prints its URL, and a
//! plain hyper client plays the origin incident's five steps against it for each seed runtime.

use crate::support;
use crate::support::{Client, Target};
use meshsim_protocol::Dialect;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

/// The served process; killed when dropped so a failing test leaves nothing behind.
struct Served(Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `meshsim serve` and reads the address from the URL it prints.
fn serve(runtime: &str, dialect: Dialect) -> (Served, SocketAddr) {
    serve_with(runtime, dialect, &[])
}

fn serve_with(runtime: &str, dialect: Dialect, extra: &[&str]) -> (Served, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args([
            "serve",
            "--runtime",
            runtime,
            "--dialect",
            dialect.name(),
            "--seed",
            "3",
        ])
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("meshsim runs");
    let stdout = child.stdout.take().unwrap();
    let served = Served(child);
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .expect(&line);
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .expect(url);
    assert!(
        line.contains(runtime) && line.contains(dialect.name()),
        "{line}"
    );
    (served, addr)
}

#[tokio::test]
async fn seed_steps_against_meshsim_serve() {
    for runtime in ["python-correct", "go-replaying", "jvm-reaping"] {
        for dialect in Dialect::ALL {
            let (_served, addr) = serve(runtime, dialect);
            assert!(addr.ip().is_loopback());
            let client = Client::new(Target::Tcp(addr), dialect);
            support::incident::play(&client, runtime, None).await;
        }
    }
}

#[test]
fn unknown_runtime_exits_2_naming_it() {
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args(["serve", "--runtime", "no-such-runtime"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no-such-runtime") && stderr.contains("python-correct"),
        "{stderr}"
    );
}

#[test]
fn list_names_every_builtin_and_dialect() {
    let output = Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .arg("list")
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    for name in meshsim_runtimes::BUILTIN_NAMES {
        assert!(stdout.contains(name), "{name} missing");
    }
    for dialect in Dialect::ALL {
        assert!(stdout.contains(dialect.name()), "{dialect} missing");
    }
}

#[tokio::test]
async fn a_sidecar_route_timeout_cuts_a_long_stream() {
    let (_served, addr) = serve_with(
        "python-correct",
        Dialect::V0_3,
        &["--sidecar-route-timeout-ms", "300"],
    );
    let client = Client::new(Target::Tcp(addr), Dialect::V0_3);
    // The Card comes through the sidecar and points at it.
    let card = client.card().await;
    assert_eq!(card.primary_url(), Some(format!("http://{addr}/").as_str()));
    let mut stream = client
        .send_streaming(client.message("#long job", None))
        .await
        .stream();
    let mut states = Vec::new();
    let broke = loop {
        match stream.next_or_broken().await {
            Ok(Some(response)) => states.push(format!("{:?}", response.outcome)),
            Ok(None) => break false,
            Err(_) => break true,
        }
    };
    assert!(broke, "the sidecar cuts the stream mid-task: {states:?}");
    assert!(!states.iter().any(|state| state.contains("Completed")));
}
