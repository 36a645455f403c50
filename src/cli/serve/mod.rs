//! `meshsim serve --runtime NAME|FILE [--dialect D] [--addr 127.0.0.1:PORT] [--seed S]`:
//! runs one runtime personality on real TCP (loopback unless `--allow-non-loopback`, wall
//! clock) until SIGINT or SIGTERM, printing the URL it listens on, so consumer code in any
//! language can be pointed at it. A [`ServeGuard`] bounds what clients can make it hold (body
//! size and time, open streams, stored tasks) and checks bearer tokens; see
//! docs/hardening.md.

mod shutdown;

use crate::cli::stop_signal;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use clap::Args;
use http::Uri;
use meshsim_consumer::TcpConnector;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{
    BodyDrain, GroundTruth, Runtime, ServeGuard, ServeLimits, Sidecar, Tenants, resolve,
};
use meshsim_sim::{ServeOptions, serve_with};
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::time::Duration;

/// How much of a refused (413, 408) body is read and dropped before the refusal is sent:
/// enough for a client that sends a few MiB without waiting to read the 413, bounded so a
/// client cannot hold the server by sending forever.
const REFUSED_BODY_DRAIN: BodyDrain = BodyDrain {
    bytes: 16 << 20,
    time: Duration::from_secs(1),
};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// A built-in personality (see `meshsim list`) or the path of a personality file (its
    /// knobs, e.g. `bindings`: jsonrpc | http-json | both, are in docs/personalities.md).
    #[arg(long)]
    runtime: String,
    /// The wire dialect to speak: v0.1, v0.3 or v1.0.
    #[arg(long, default_value = "v1.0")]
    dialect: Dialect,
    /// Where to listen; port 0 picks a free port. Loopback only, unless
    /// --allow-non-loopback.
    #[arg(long, default_value = "127.0.0.1:0")]
    addr: SocketAddr,
    /// Allow an --addr that is not a loopback address (the server is then reachable from
    /// other machines; consider --token).
    #[arg(long)]
    allow_non_loopback: bool,
    /// Require `Authorization: Bearer TOKEN` on every JSON-RPC request (the Card stays
    /// public and declares the scheme). Repeat for several tokens: each token has its own
    /// task store, so no token can read, follow or cancel another's tasks.
    #[arg(long = "token", value_name = "TOKEN", value_parser = parse_token)]
    tokens: Vec<String>,
    /// Seed of the runtime's work durations and ids.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Refuse a request body larger than this with 413, before reading it whole.
    #[arg(long, default_value_t = 1 << 20, value_parser = clap::value_parser!(u64).range(1..=1 << 30))]
    max_body_bytes: u64,
    /// A request body must arrive whole within this time (else 408).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout_ms: u64,
    /// A request head must arrive within this time of connecting or of the previous
    /// answer (the keep-alive idle timeout), else the connection is closed.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout_ms: u64,
    /// Streams open at once; one more is refused with 503.
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u64).range(1..=1 << 20))]
    max_streams: u64,
    /// Tasks kept per task store: when full, the oldest finished task is evicted; when
    /// none is finished, a new task is refused (-32603).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1 << 24))]
    max_tasks: u64,
    /// On SIGINT/SIGTERM, wait this long for answers in flight before exiting.
    #[arg(long, default_value_t = 5_000)]
    shutdown_grace_ms: u64,
    /// Put a sidecar proxy in front that cuts any response still running this many ms
    /// after its request (Envoy's route timeout; its default is 15000). Either sidecar
    /// flag replaces the personality's own `sidecar`.
    #[arg(long)]
    sidecar_route_timeout_ms: Option<u64>,
    /// Put a sidecar proxy in front that cuts any response silent for this many ms
    /// (Envoy's stream idle timeout; its default is 300000).
    #[arg(long)]
    sidecar_idle_timeout_ms: Option<u64>,
}

/// A token must fit in a header: visible ASCII, no spaces.
fn parse_token(token: &str) -> Result<String, String> {
    if token.is_empty() || !token.bytes().all(|byte| byte.is_ascii_graphic()) {
        return Err("a token must be non-empty visible ASCII without spaces".to_string());
    }
    Ok(token.to_string())
}

pub fn run(args: ServeArgs) -> ExitCode {
    if !args.addr.ip().is_loopback() && !args.allow_non_loopback {
        eprintln!(
            "meshsim serve: {} is not a loopback address; pass --allow-non-loopback to listen there",
            args.addr
        );
        return ExitCode::from(2);
    }
    let personality = match resolve(&args.runtime) {
        Ok(personality) => personality,
        Err(error) => {
            eprintln!("meshsim serve: {}", one_line(&error.to_string()));
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
        let bindings = personality.bindings.served(args.dialect);
        // The Card's tenant (v1.0), which every request must carry.
        let tenant = personality
            .tenant
            .clone()
            .filter(|_| args.dialect == Dialect::V1_0);
        // Nobody reads a served runtime's ground truth: it would only grow.
        let runtime = Runtime::new(personality, args.dialect, Clock::wall(), args.seed)
            .with_truth(GroundTruth::unrecorded())
            .with_max_tasks(args.max_tasks as usize);
        let body_limit = DefaultBodyLimit::max(args.max_body_bytes as usize);
        let mut stores = Vec::new();
        // The Card's own instance holds no task; each token (or the one open store) gets one.
        for _ in 0..args.tokens.len().max(1) + 1 {
            match instance(&args, &runtime).await {
                Ok(router) => stores.push(router.layer(body_limit)),
                Err(error) => {
                    eprintln!(
                        "meshsim serve: cannot start the runtime behind the sidecar: {error}"
                    );
                    return ExitCode::from(1);
                }
            }
        }
        let card = stores.remove(0);
        let tenants = match args.tokens.is_empty() {
            true => Tenants::Open(stores.remove(0)),
            false => Tenants::Tokens(args.tokens.iter().cloned().zip(stores).collect()),
        };
        let limits = ServeLimits {
            max_body_bytes: args.max_body_bytes as usize,
            body_timeout: Duration::from_millis(args.body_timeout_ms),
            max_streams: args.max_streams as usize,
            drain: REFUSED_BODY_DRAIN,
        };
        let (stop, stopping) = tokio::sync::watch::channel(false);
        let guard =
            ServeGuard::new(card, tenants, args.dialect, limits, stopping).listening_on(addr);
        let in_flight = guard.in_flight();
        let options = ServeOptions {
            header_read_timeout: Duration::from_millis(args.header_timeout_ms),
            ..ServeOptions::default()
        };
        // Whoever started us may stop reading stdout; serving goes on regardless.
        let mut stdout = std::io::stdout();
        let dialect = args.dialect;
        let _ = writeln!(
            stdout,
            "meshsim serve: {name} speaking A2A {dialect} on http://{addr}/"
        );
        let _ = writeln!(stdout, "card: http://{addr}{}", dialect.card_path());
        let bindings: Vec<&str> = bindings.iter().map(|binding| binding.name()).collect();
        let _ = writeln!(stdout, "bindings: {}", bindings.join(", "));
        if let Some(tenant) = tenant {
            let _ = writeln!(
                stdout,
                "tenant: {tenant} (JSON-RPC requests carry it in params.tenant; HTTP+JSON routes are under /{tenant}/)"
            );
        }
        let signal = tokio::select! {
            biased;
            signal = stop_signal::signal() => signal,
            _ = serve_with(listener, guard.router(), options) => "end of listener",
        };
        // The listener is closed; streams end now, answers in flight get the grace period.
        let _ = stop.send(true);
        let open = in_flight.load(std::sync::atomic::Ordering::SeqCst);
        let left = shutdown::drain(&in_flight, Duration::from_millis(args.shutdown_grace_ms)).await;
        let _ = writeln!(
            stdout,
            "meshsim serve: {signal}: stopped ({open} requests or streams open, {left} cut)"
        );
        ExitCode::SUCCESS
    })
}

/// The first line of a possibly multi-line message, the rest joined onto it.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A fresh instance (empty task store) of `runtime`, behind its sidecar if asked for one
/// or if its personality is deployed behind one.
async fn instance(args: &ServeArgs, runtime: &Runtime) -> std::io::Result<Router> {
    match sidecar(args).or(runtime.personality().sidecar) {
        None => Ok(runtime.router()),
        Some(sidecar) => behind(sidecar, runtime).await,
    }
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

/// Serves an instance of `runtime` on a private loopback port and returns the sidecar
/// router in front of it.
async fn behind(sidecar: Sidecar, runtime: &Runtime) -> std::io::Result<Router> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let backend: Uri = format!("http://{}/", listener.local_addr()?)
        .parse()
        .map_err(std::io::Error::other)?;
    tokio::spawn(meshsim_sim::serve(listener, runtime.router()));
    Ok(sidecar.router(backend, TcpConnector::new(Duration::from_secs(5))))
}
