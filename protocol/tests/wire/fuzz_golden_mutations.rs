//! Fuzzing seeded from the golden vectors: real documents of every dialect, mutated (fields
//! deleted, values swapped for another JSON type, huge numbers, deep nesting, truncated or
//! corrupted bytes), fed to every decoder (requests, responses, cards), the JSON-RPC
//! envelope and the SSE parser. Nothing may panic; every refusal names its dialect and a
//! field; an SSE event never exceeds the parser's bound.
//!
//! Each of the six targets runs `MESHSIM_FUZZ_CASES / 6` cases (default 100,002 in all, a
//! bounded run inside `cargo test`); a longer run:
//! `MESHSIM_FUZZ_CASES=3000000 cargo test --release -p meshsim-protocol --test wire fuzz_golden_mutations`.

use crate::support::{Kind, Vector, arbitrary, vectors};
use meshsim_protocol::sse::SseParser;
use meshsim_protocol::{Dialect, Method, detect};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::Config;
use serde_json::{Value, json};
use std::sync::OnceLock;

/// Cases per target.
fn cases() -> u32 {
    let total = std::env::var("MESHSIM_FUZZ_CASES")
        .ok()
        .and_then(|value| value.parse::<u32>().ok())
        .unwrap_or(100_002);
    (total / 6).max(1)
}

fn config() -> Config {
    Config {
        cases: cases(),
        // Mutations are cheap to regenerate; a failure prints its seed and minimal input.
        failure_persistence: None,
        ..Config::default()
    }
}

/// Every golden vector of every dialect.
fn corpus() -> &'static [Vector] {
    static CORPUS: OnceLock<Vec<Vector>> = OnceLock::new();
    CORPUS.get_or_init(|| Dialect::ALL.into_iter().flat_map(vectors).collect())
}

fn corpus_of(kind: Kind) -> Vec<Vector> {
    corpus()
        .iter()
        .filter(|vector| vector.kind == kind)
        .cloned()
        .collect()
}

/// Every path into `value`, as JSON pointers (the root excluded).
fn pointers(value: &Value, here: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                let path = format!("{here}/{}", key.replace('~', "~0").replace('/', "~1"));
                out.push(path.clone());
                pointers(child, &path, out);
            }
        }
        Value::Array(items) => {
            for (n, child) in items.iter().enumerate() {
                let path = format!("{here}/{n}");
                out.push(path.clone());
                pointers(child, &path, out);
            }
        }
        _ => {}
    }
}

/// One structural change to a document.
#[derive(Debug, Clone)]
enum Mutation {
    /// Remove the field (or array item) at the picked path.
    Delete(Index),
    /// Put another value in its place: a value of another type, a huge number, a deep nest.
    Replace(Index, Value),
}

/// Values that break assumptions: other types, numbers beyond i64/u64/f64 ranges, a nest
/// as deep as serde_json's parser admits.
fn hostile_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        Just(json!(u64::MAX)),
        Just(json!(i64::MIN)),
        Just(json!(f64::MAX)),
        Just(json!(-0.0)),
        Just(json!(1.5)),
        Just(json!("")),
        Just(json!([])),
        Just(json!({})),
        "\\PC{0,12}".prop_map(Value::String),
        (1usize..126).prop_map(nest),
        arbitrary::json(),
    ]
}

/// `[[[...{}...]]]`, `depth` arrays around an empty object.
fn nest(depth: usize) -> Value {
    (0..depth).fold(json!({}), |inner, _| Value::Array(vec![inner]))
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Delete),
        (any::<Index>(), hostile_value()).prop_map(|(at, value)| Mutation::Replace(at, value)),
    ]
}

fn mutate(document: &Value, mutations: &[Mutation]) -> Value {
    let mut document = document.clone();
    for mutation in mutations {
        let mut paths = Vec::new();
        pointers(&document, "", &mut paths);
        if paths.is_empty() {
            break;
        }
        match mutation {
            Mutation::Delete(at) => {
                let path = &paths[at.index(paths.len())];
                let (parent, key) = path.rsplit_once('/').expect("a pointer has a slash");
                match document.pointer_mut(parent) {
                    Some(Value::Object(map)) => {
                        map.remove(&key.replace("~1", "/").replace("~0", "~"));
                    }
                    Some(Value::Array(items)) => {
                        if let Ok(n) = key.parse::<usize>() {
                            items.remove(n);
                        }
                    }
                    _ => {}
                }
            }
            Mutation::Replace(at, value) => {
                let path = &paths[at.index(paths.len())];
                if let Some(slot) = document.pointer_mut(path) {
                    *slot = value.clone();
                }
            }
        }
    }
    document
}

/// A change to a document's bytes: what a cut connection, a bad proxy or a hostile client
/// sends.
#[derive(Debug, Clone)]
enum ByteMutation {
    Truncate(Index),
    /// Bytes that are not UTF-8 (lone continuation, overlong, surrogate, 0xFF).
    InvalidUtf8(Index, Vec<u8>),
    /// A number literal no integer or float type holds.
    HugeNumber(Index, String),
    /// An opening bracket run deeper than any parser should recurse.
    DeepNest(Index, usize),
    Flip(Index, u8),
}

fn byte_mutation() -> impl Strategy<Value = ByteMutation> {
    let invalid = prop_oneof![
        Just(vec![0x80]),
        Just(vec![0xC0, 0xAF]),
        Just(vec![0xED, 0xA0, 0x80]),
        Just(vec![0xFF]),
        Just(vec![0xF4, 0x90, 0x80, 0x80]),
        proptest::collection::vec(any::<u8>(), 1..4),
    ];
    let huge = prop_oneof![
        Just("1e999999".to_string()),
        Just("-1e400".to_string()),
        Just("184467440737095516160000".to_string()),
        Just("-92233720368547758080".to_string()),
        "[1-9][0-9]{20,60}",
    ];
    prop_oneof![
        any::<Index>().prop_map(ByteMutation::Truncate),
        (any::<Index>(), invalid).prop_map(|(at, bytes)| ByteMutation::InvalidUtf8(at, bytes)),
        (any::<Index>(), huge).prop_map(|(at, number)| ByteMutation::HugeNumber(at, number)),
        (any::<Index>(), 100usize..5000).prop_map(|(at, depth)| ByteMutation::DeepNest(at, depth)),
        (any::<Index>(), any::<u8>()).prop_map(|(at, byte)| ByteMutation::Flip(at, byte)),
    ]
}

fn mutate_bytes(bytes: &[u8], mutations: &[ByteMutation]) -> Vec<u8> {
    let mut bytes = bytes.to_vec();
    for mutation in mutations {
        let len = bytes.len();
        match mutation {
            ByteMutation::Truncate(at) => bytes.truncate(at.index(len + 1)),
            ByteMutation::InvalidUtf8(at, junk) => {
                let at = at.index(len + 1);
                bytes.splice(at..at, junk.iter().copied());
            }
            ByteMutation::HugeNumber(at, number) => {
                let at = at.index(len + 1);
                bytes.splice(at..at, number.bytes());
            }
            ByteMutation::DeepNest(at, depth) => {
                let at = at.index(len + 1);
                let nest = "[".repeat(*depth) + &"]".repeat(*depth);
                bytes.splice(at..at, nest.bytes());
            }
            ByteMutation::Flip(at, byte) if len > 0 => bytes[at.index(len)] = *byte,
            ByteMutation::Flip(..) => {}
        }
    }
    bytes
}

/// A refusal must say which dialect refused and which field.
fn check_refusal(dialect: Dialect, error: &meshsim_protocol::DecodeError) {
    assert_eq!(error.dialect, dialect, "{error}");
    assert!(!error.field.is_empty(), "a refusal names no field: {error}");
}

fn decode_as_request(json: &Value) {
    let _ = detect::detect(json);
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        match codec.decode_request(json) {
            // What decoded must encode again (possibly with losses), without panicking.
            Ok(request) => drop(codec.encode_request(&request)),
            Err(error) => check_refusal(dialect, &error),
        }
    }
}

fn decode_as_response(json: &Value) {
    let _ = detect::detect(json);
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        for method in Method::ALL.map(Some).into_iter().chain([None]) {
            match codec.decode_response(json, method) {
                Ok(response) => match method {
                    Some(method) => drop(codec.encode_response_to(method, &response)),
                    None => drop(codec.encode_response(&response)),
                },
                Err(error) => check_refusal(dialect, &error),
            }
        }
    }
}

fn decode_as_card(json: &Value) {
    let _ = detect::detect(json);
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        match codec.decode_card(json) {
            Ok(card) => drop(codec.encode_card(&card)),
            Err(error) => check_refusal(dialect, &error),
        }
    }
}

fn decode_as(kind: Kind, json: &Value) {
    match kind {
        Kind::Request => decode_as_request(json),
        Kind::Response => decode_as_response(json),
        Kind::Card => decode_as_card(json),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn mutated_requests_never_panic(
        pick in any::<Index>(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let requests = corpus_of(Kind::Request);
        let vector = &requests[pick.index(requests.len())];
        decode_as_request(&mutate(&vector.document, &mutations));
    }

    #[test]
    fn mutated_responses_never_panic(
        pick in any::<Index>(),
        mutations in proptest::collection::vec(mutation(), 1..4),
    ) {
        let responses = corpus_of(Kind::Response);
        let vector = &responses[pick.index(responses.len())];
        decode_as_response(&mutate(&vector.document, &mutations));
    }

    #[test]
    fn mutated_cards_never_panic(
        pick in any::<Index>(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let cards = corpus_of(Kind::Card);
        let vector = &cards[pick.index(cards.len())];
        decode_as_card(&mutate(&vector.document, &mutations));
    }

    /// The JSON-RPC envelope's own members (`jsonrpc`, `id`, `method`, `params`, `result`,
    /// `error` and its `code`/`message`/`data`) dropped or given hostile values.
    #[test]
    fn mutated_envelopes_never_panic(
        pick in any::<Index>(),
        member in proptest::sample::select(vec![
            "/jsonrpc", "/id", "/method", "/params", "/result", "/error",
            "/error/code", "/error/message", "/error/data",
        ]),
        value in proptest::option::of(hostile_value()),
    ) {
        let vector = &corpus()[pick.index(corpus().len())];
        let mut document = vector.document.clone();
        let (parent, key) = member.rsplit_once('/').expect("a pointer has a slash");
        if let Some(Value::Object(map)) = document.pointer_mut(parent) {
            match value {
                Some(value) => drop(map.insert(key.to_string(), value)),
                None => drop(map.remove(key)),
            }
        }
        decode_as_request(&document);
        decode_as_response(&document);
    }

    /// Real documents as bytes, truncated or corrupted, through `serde_json` then the
    /// decoders, as `meshsim decode` and `meshsim serve` read them.
    #[test]
    fn corrupted_bytes_never_panic(
        pick in any::<Index>(),
        mutations in proptest::collection::vec(byte_mutation(), 1..3),
    ) {
        let vector = &corpus()[pick.index(corpus().len())];
        let bytes = serde_json::to_vec(&vector.document).expect("a vector serialises");
        let bytes = mutate_bytes(&bytes, &mutations);
        if let Ok(json) = serde_json::from_slice::<Value>(&bytes) {
            decode_as(vector.kind, &json);
        }
    }

    /// Real documents framed as an SSE stream, corrupted (invalid UTF-8, stray line breaks,
    /// huge events, truncation) and fed in arbitrary chunks: every event the parser yields
    /// respects its bound, and every yielded payload decodes or is refused cleanly.
    #[test]
    fn corrupted_sse_streams_never_panic(
        picks in proptest::collection::vec(any::<Index>(), 1..5),
        mutations in proptest::collection::vec(byte_mutation(), 0..4),
        newlines in proptest::collection::vec(
            (any::<Index>(), proptest::sample::select(vec!["\n", "\r", "\r\n", "\n\n", ":"])),
            0..3,
        ),
        cuts in proptest::collection::vec(any::<Index>(), 0..8),
        limit in 16usize..4096,
    ) {
        let mut stream = Vec::new();
        for pick in &picks {
            let vector = &corpus()[pick.index(corpus().len())];
            stream.extend(meshsim_protocol::sse::frame(&vector.document.to_string()).bytes());
        }
        let mut stream = mutate_bytes(&stream, &mutations);
        for (at, text) in &newlines {
            let at = at.index(stream.len() + 1);
            stream.splice(at..at, text.bytes());
        }
        let mut cuts: Vec<usize> = cuts.iter().map(|cut| cut.index(stream.len() + 1)).collect();
        cuts.sort_unstable();
        let mut parser = SseParser::new(limit);
        let mut from = 0;
        let mut yielded = 0usize;
        for cut in cuts.into_iter().chain([stream.len()]) {
            for event in parser.feed(&stream[from..cut]) {
                let Ok(event) = event else { continue };
                prop_assert!(event.data.len() <= limit, "{} > {limit}", event.data.len());
                yielded += event.data.len();
                if let Ok(json) = serde_json::from_str::<Value>(&event.data) {
                    decode_as_response(&json);
                }
            }
            from = cut;
        }
        prop_assert!(yielded <= stream.len());
    }
}
