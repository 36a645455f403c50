//! `meshsim serve --runtime NAME|FILE [--dialect D] [--addr 127.0.0.1:PORT] [--seed S]`:
//! runs one runtime personality on real TCP (loopback unless told otherwise, wall clock)
//! until interrupted, printing the URL it listens on, so consumer code in any language can
//! be pointed at it.

use axum::Router;
use clap::Args;
use http::Uri;
use meshsim_consumer::TcpConnector;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Runtime, Sidecar, resolve};
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A built-in personality (see `meshsim list`) or the path of a personality file.
    #[arg(long)]
    runtime: String,
    /// The wire dialect to speak: v0.1, v0.3 or v1.0.
    #[arg(long, default_value = "v1.0")]
    dialect: Dialect,
    /// Where to listen; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Seed of the runtime's work durations and ids.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Put a sidecar proxy in front that cuts any response still running this many ms
    /// after its request (Envoy's route timeout; its default is 15000).
    #[arg(long)]
    sidecar_route_timeout_ms: Option<u64>,
    /// Put a sidecar proxy in front that cuts any response silent for this many ms
    /// (Envoy's stream idle timeout; its default is 300000).
    #[arg(long)]
    sidecar_idle_timeout_ms: Option<u64>,
}

pub fn run(args: ServeArgs) -> ExitCode {
    let personality = match resolve(&args.runtime) {
        Ok(personality) => personality,
        Err(error) => {
            eprintln!("meshsim serve: {error}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("meshsim serve: cannot start the async runtime: {error}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(async {
        let listener = match tokio::net::TcpListener::bind(args.addr).await {
            Ok(listener) => listener,
            Err(error) => {
                eprintln!("meshsim serve: cannot listen on {}: {error}", args.addr);
                return ExitCode::from(1);
            }
        };
        let addr = match listener.local_addr() {
            Ok(addr) => addr,
            Err(error) => {
                eprintln!("meshsim serve: {error}");
                return ExitCode::from(1);
            }
        };
        let name = personality.name.clone();
        let runtime = Runtime::new(personality, args.dialect, Clock::wall(), args.seed);
        let router = match sidecar(&args) {
            None => runtime.router(),
            Some(sidecar) => match behind(sidecar, runtime).await {
                Ok(router) => router,
                Err(error) => {
                    eprintln!(
                        "meshsim serve: cannot start the runtime behind the sidecar: {error}"
                    );
                    return ExitCode::from(1);
                }
            },
        };
        // Whoever started us may stop reading stdout; serving goes on regardless.
        let mut stdout = std::io::stdout();
        let dialect = args.dialect;
        let _ = writeln!(
            stdout,
            "meshsim serve: {name} speaking A2A {dialect} on http://{addr}/"
        );
        let _ = writeln!(stdout, "card: http://{addr}{}", dialect.card_path());
        tokio::select! {
            biased;
            _ = tokio::signal::ctrl_c() => ExitCode::SUCCESS,
            _ = meshsim_sim::serve(listener, router) => ExitCode::SUCCESS,
        }
    })
}

/// The sidecar the arguments ask for, if any.
fn sidecar(args: &ServeArgs) -> Option<Sidecar> {
    if args.sidecar_route_timeout_ms.is_none() && args.sidecar_idle_timeout_ms.is_none() {
        return None;
    }
    Some(Sidecar {
        route_timeout_ms: args.sidecar_route_timeout_ms,
        idle_timeout_ms: args.sidecar_idle_timeout_ms,
    })
}

/// Serves `runtime` on a private loopback port and returns the sidecar router in front of it.
async fn behind(sidecar: Sidecar, runtime: Runtime) -> std::io::Result<Router> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let backend: Uri = format!("http://{}/", listener.local_addr()?)
        .parse()
        .map_err(std::io::Error::other)?;
    tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    Ok(sidecar.router(backend, TcpConnector::new(Duration::from_secs(5))))
}
