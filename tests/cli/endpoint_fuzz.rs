//! Fuzzing the runtime's JSON-RPC endpoint, as `meshsim serve` exposes it: the golden
//! request vectors of every dialect, mutated (members deleted, values of other types, huge
//! numbers, truncated bytes), posted in process to a runtime of every dialect. Whatever
//! arrives, the answer is HTTP 200 with a JSON-RPC 2.0 response (a result, an error with an
//! integer code and a message, or an SSE stream whose every event is such a response), never
//! a panic: not in the handler, and not in a task that feeds a stream.
//!
//! Streams are read to their end on a paused tokio clock, so work steps cost no real time.
//! `MESHSIM_FUZZ_CASES / 50` cases (default 2,000) in `cargo test`.

use axum::body::Body;
use http::Request;
use http_body_util::BodyExt;
use meshsim_protocol::clock::Clock;
use meshsim_protocol::{Dialect, version};
use meshsim_runtimes::{GroundTruth, Runtime, builtin};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tower::ServiceExt;

/// Panics on the fuzzing thread, including inside spawned stream tasks (the current-thread
/// runtime runs them there), whose panics tokio catches and the response alone would never
/// show. Other tests of this binary run on other threads and are not counted.
static PANICS: AtomicUsize = AtomicUsize::new(0);
static FUZZING_THREAD: OnceLock<std::thread::ThreadId> = OnceLock::new();

fn count_panics() {
    FUZZING_THREAD
        .set(std::thread::current().id())
        .expect("one fuzzing thread");
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if FUZZING_THREAD.get() == Some(&std::thread::current().id()) {
            PANICS.fetch_add(1, Ordering::SeqCst);
        }
        previous(info);
    }));
}

/// Longer than any stream of the built-in script runs on the paused clock; a stream still open
/// then (a subscriber kept open at `input-required`) is judged on the events it sent.
const STREAM_WINDOW: Duration = Duration::from_secs(600);

/// The body's bytes up to its end or [`STREAM_WINDOW`], or the body's error.
async fn read_stream(mut body: Body) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let read = async {
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|error| error.to_string())?;
            if let Some(data) = frame.data_ref() {
                bytes.extend_from_slice(data);
            }
        }
        Ok::<(), String>(())
    };
    match meshsim_time::timeout(STREAM_WINDOW, read).await {
        Ok(Err(error)) => Err(error),
        Ok(Ok(())) | Err(_) => Ok(bytes),
    }
}

/// Each `data:` payload of an SSE body.
fn sse_payloads(bytes: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| data.trim().to_string())
        .collect()
}

/// Whether `answer` is a JSON-RPC 2.0 response: a result, or an error with an integer code
/// and a message.
fn check_response(answer: &Value) -> Result<(), String> {
    if answer["jsonrpc"] != "2.0" {
        return Err(format!("not JSON-RPC 2.0: {answer}"));
    }
    match answer.get("error") {
        Some(error) if error["code"].is_i64() && error["message"].is_string() => Ok(()),
        Some(_) => Err(format!(
            "an error without an integer code and a message: {answer}"
        )),
        None if answer.get("result").is_some() => Ok(()),
        None => Err(format!("neither result nor error: {answer}")),
    }
}

fn cases() -> u32 {
    let total = std::env::var("MESHSIM_FUZZ_CASES")
        .ok()
        .and_then(|value| value.parse::<u32>().ok())
        .unwrap_or(100_000);
    (total / 50).max(1)
}

/// Every request vector: its dialect and document.
fn requests() -> &'static [(Dialect, Value)] {
    static REQUESTS: OnceLock<Vec<(Dialect, Value)>> = OnceLock::new();
    REQUESTS.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("protocol/tests/vectors");
        let read = |path: PathBuf| -> Value {
            serde_json::from_str(&std::fs::read_to_string(&path).expect("vector"))
                .expect("vector is JSON")
        };
        Dialect::ALL
            .into_iter()
            .flat_map(|dialect| {
                let dir = root.join(dialect.name());
                let index = read(dir.join("index.json"));
                index
                    .as_array()
                    .expect("index is a list")
                    .iter()
                    .filter(|entry| entry["kind"] == "request")
                    .map(|entry| {
                        let file = entry["file"].as_str().expect("file");
                        (dialect, read(dir.join(file)))
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    })
}

fn pointers(value: &Value, here: &str, out: &mut Vec<String>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, child)| (key.replace('~', "~0").replace('/', "~1"), child))
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(n, child)| (n.to_string(), child))
            .collect(),
        _ => Vec::new(),
    };
    for (key, child) in children {
        let path = format!("{here}/{key}");
        out.push(path.clone());
        pointers(child, &path, out);
    }
}

fn hostile() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(-1)),
        Just(json!(1.5)),
        Just(json!("")),
        Just(json!([])),
        Just(json!({})),
        "\\PC{0,8}".prop_map(Value::String),
    ]
}

/// A mutated request: up to three members deleted or replaced, optionally cut short.
fn mutated() -> impl Strategy<Value = (Dialect, Vec<u8>)> {
    (
        any::<Index>(),
        proptest::collection::vec((any::<Index>(), proptest::option::of(hostile())), 0..4),
        proptest::option::of(any::<Index>()),
    )
        .prop_map(|(pick, edits, cut)| {
            let (dialect, document) = &requests()[pick.index(requests().len())];
            let mut document = document.clone();
            for (at, value) in edits {
                let mut paths = Vec::new();
                pointers(&document, "", &mut paths);
                if paths.is_empty() {
                    break;
                }
                let path = &paths[at.index(paths.len())];
                match value {
                    Some(value) => {
                        if let Some(slot) = document.pointer_mut(path) {
                            *slot = value;
                        }
                    }
                    None => {
                        let (parent, key) = path.rsplit_once('/').expect("a slash");
                        if let Some(Value::Object(map)) = document.pointer_mut(parent) {
                            map.remove(&key.replace("~1", "/").replace("~0", "~"));
                        }
                    }
                }
            }
            let mut bytes = serde_json::to_vec(&document).expect("serialises");
            if let Some(cut) = cut {
                bytes.truncate(cut.index(bytes.len() + 1));
            }
            (*dialect, bytes)
        })
}

#[test]
fn mutated_requests_always_get_a_json_rpc_answer() {
    count_panics();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("runtime");
    let routers: Vec<(Dialect, axum::Router)> = Dialect::ALL
        .into_iter()
        .map(|dialect| {
            let served = Runtime::new(
                builtin("python-correct").expect("built-in"),
                dialect,
                Clock::wall(),
                1,
            )
            .with_truth(GroundTruth::unrecorded())
            .with_max_tasks(64);
            (dialect, served.router())
        })
        .collect();
    let config = Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    };
    proptest!(config, |((sent_in, body) in mutated(), to in any::<Index>())| {
        let (dialect, router) = &routers[to.index(routers.len())];
        let mut request = Request::post("/").header("content-type", "application/json");
        if let Some(value) = version::request_header_value(*dialect) {
            request = request.header(version::HEADER, value);
        }
        let request = request.body(Body::from(body.clone())).expect("request");
        let response = runtime.block_on(router.clone().oneshot(request)).expect("infallible");
        prop_assert_eq!(response.status(), 200, "{} body to a {} runtime", sent_in, dialect);
        let streaming = response
            .headers()
            .get("content-type")
            .is_some_and(|value| value.as_bytes().starts_with(b"text/event-stream"));
        let read = runtime.block_on(read_stream(response.into_body()));
        prop_assert_eq!(PANICS.load(Ordering::SeqCst), 0, "a panic answering {} to a {} runtime", sent_in, dialect);
        let bytes = read.map_err(|error| TestCaseError::fail(format!("the body broke: {error}")))?;
        let answers: Vec<String> = if streaming {
            sse_payloads(&bytes)
        } else {
            vec![String::from_utf8_lossy(&bytes).to_string()]
        };
        prop_assert!(!answers.is_empty(), "a stream without an event");
        for answer in answers {
            let answer: Value = serde_json::from_str(&answer)
                .map_err(|error| TestCaseError::fail(format!("not JSON ({error}): {answer}")))?;
            check_response(&answer).map_err(TestCaseError::fail)?;
        }
    });
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}
