//! What meshsim puts on the wire, checked against the official specs rather than its own
//! codecs: every run of the default matrix (every built-in personality, both consumers,
//! every dialect and scenario) is taped, and every Card, request, response and stream event
//! on the tapes is validated:
//! - v0.1 and v0.3 against the official JSON Schemas (`spec/a2a-v0.1.0.schema.json`,
//!   `spec/a2a-v0.3.0.schema.json`): a request against the definition whose `method` is the
//!   request's, an answer against that request's `...Response` definition, a stream event
//!   against the streaming send's response definition (a resubscribe streams the same);
//! - v1.0 against `spec/a2a-v1.0.1.proto` in its ProtoJSON form: each `rpc` line gives the
//!   request's params message and the answer's result message (`GetTask` returns `Task`).
//!
//! Each message is also put through dialect detection; what detection reads as another
//! dialect is listed, and must be one of the ambiguities the spec leaves (`AMBIGUOUS`).
//! The test prints how many messages it checked per dialect and method.

#[path = "../../../protocol/tests/wire/support/proto.rs"]
mod proto;

use self::proto::{Proto, envelope_problems, response_problems};
use meshsim_consumer::{NaiveConsumer, ReconcilingConfig, ReconcilingConsumer};
use meshsim_protocol::Dialect;
use meshsim_protocol::detect::detect;
use meshsim_protocol::sse::SseParser;
use meshsim_scenarios::throughput::http_message::HttpMessage;
use meshsim_scenarios::throughput::tape::{Tape, Tapes, TapingConnector};
use meshsim_scenarios::{ConsumerChoice, Matrix, RunOptions, RunSpec, run, sim_client};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// The official spec files, as copied into the repository.
fn spec_file(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../spec")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// A v0.1 or v0.3 JSON Schema with a validator per definition, made when first needed.
struct Schema {
    document: Value,
    definitions: &'static str,
    validators: BTreeMap<String, jsonschema::Validator>,
}

impl Schema {
    fn load(file: &str, definitions: &'static str) -> Schema {
        Schema {
            document: serde_json::from_str(&spec_file(file)).expect("the schema is JSON"),
            definitions,
            validators: BTreeMap::new(),
        }
    }

    /// The definition whose `method` is `method` (`tasks/get` -> `GetTaskRequest`).
    fn request_definition(&self, method: &str) -> Option<String> {
        self.document[self.definitions]
            .as_object()?
            .iter()
            .find(|(_, definition)| {
                definition.pointer("/properties/method/const")
                    == Some(&Value::String(method.to_string()))
            })
            .map(|(name, _)| name.clone())
    }

    /// Every problem of `document` against definition `name`.
    fn problems(&mut self, name: &str, document: &Value) -> Vec<String> {
        if self.document[self.definitions].get(name).is_none() {
            return vec![format!("the schema has no definition {name}")];
        }
        let validator = self.validators.entry(name.to_string()).or_insert_with(|| {
            let mut rooted = self.document.clone();
            rooted["$ref"] = Value::String(format!("#/{}/{name}", self.definitions));
            jsonschema::draft7::new(&rooted).unwrap_or_else(|error| panic!("{name}: {error}"))
        });
        validator
            .iter_errors(document)
            .map(|error| format!("{name}: {error} at {}", error.instance_path))
            .collect()
    }
}

/// The v1.0 proto: its messages, and per `rpc` the request and the response message (and
/// whether the response is a stream).
struct ProtoSpec {
    proto: Proto,
    rpcs: BTreeMap<String, (String, String)>,
}

impl ProtoSpec {
    fn load() -> ProtoSpec {
        let text = spec_file("a2a-v1.0.1.proto");
        let rpcs = text
            .lines()
            .filter_map(|line| {
                // `rpc GetTask(GetTaskRequest) returns (Task) {`
                let rest = line.trim().strip_prefix("rpc ")?;
                let (name, rest) = rest.split_once('(')?;
                let (request, rest) = rest.split_once(')')?;
                let (_, rest) = rest.split_once('(')?;
                let (response, _) = rest.split_once(')')?;
                let response = response.trim().trim_start_matches("stream ").trim();
                Some((
                    name.trim().to_string(),
                    (request.trim().to_string(), response.to_string()),
                ))
            })
            .collect();
        ProtoSpec {
            proto: Proto::parse(&text),
            rpcs,
        }
    }
}

/// What one message is, for the counts: `card`, or a method and the message's role.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    dialect: Dialect,
    method: String,
    role: &'static str,
}

/// The checks of every taped message.
struct Checker {
    v0_1: Schema,
    v0_3: Schema,
    v1_0: ProtoSpec,
    checked: BTreeMap<Slot, usize>,
    failures: Vec<String>,
    /// How many messages of each slot broke the spec.
    failing: BTreeMap<Slot, usize>,
    /// Messages detection read as another dialect (or none), by what it said.
    misdetected: BTreeMap<(Slot, String), usize>,
    /// Connections whose answer was cut by a fault or was not a 200.
    unanswered: usize,
}

/// The ambiguities of detection the specs leave: v0.1 and v0.3 share the method names
/// `tasks/get`, `tasks/cancel` and `tasks/resubscribe` and spell plain errors alike, and
/// detection reads what they share as v0.3.
const AMBIGUOUS: &[&str] = &[
    "method `tasks/get` is shared by v0.1 and v0.3; read as v0.3",
    "method `tasks/cancel` is shared by v0.1 and v0.3; read as v0.3",
    "method `tasks/resubscribe` is shared by v0.1 and v0.3; read as v0.3",
    "a plain JSON-RPC error (v0.1 and v0.3 spell these alike)",
];

impl Checker {
    fn new() -> Checker {
        Checker {
            v0_1: Schema::load("a2a-v0.1.0.schema.json", "$defs"),
            v0_3: Schema::load("a2a-v0.3.0.schema.json", "definitions"),
            v1_0: ProtoSpec::load(),
            checked: BTreeMap::new(),
            failures: Vec::new(),
            failing: BTreeMap::new(),
            misdetected: BTreeMap::new(),
            unanswered: 0,
        }
    }

    fn schema(&mut self, dialect: Dialect) -> &mut Schema {
        match dialect {
            Dialect::V0_1 => &mut self.v0_1,
            _ => &mut self.v0_3,
        }
    }

    /// Checks one taped connection of a run spoken in `dialect`.
    fn tape(&mut self, dialect: Dialect, tape: &Tape, run: &str) {
        let Some(request) = HttpMessage::parse(&tape.sent) else {
            return;
        };
        let requests = tape
            .sent
            .windows(11)
            .filter(|w| *w == b" HTTP/1.1\r\n")
            .count();
        assert_eq!(requests, 1, "{run}: one request per connection");
        let answer = HttpMessage::parse(&tape.received)
            .filter(|answer| answer.start_line().starts_with("HTTP/1.1 200") && !cut_short(answer));
        if request.start_line().starts_with("GET ") {
            let Some(answer) = answer else {
                self.unanswered += 1;
                return;
            };
            let slot = Slot {
                dialect,
                method: "card".to_string(),
                role: "card",
            };
            self.message(slot, &answer.body, run);
            return;
        }
        let Ok(sent) = serde_json::from_slice::<Value>(&request.body) else {
            self.failures
                .push(format!("{run}: a request that is not JSON"));
            return;
        };
        let method = sent["method"].as_str().unwrap_or("?").to_string();
        let slot = |role| Slot {
            dialect,
            method: method.clone(),
            role,
        };
        self.message(slot("request"), &request.body, run);
        let Some(answer) = answer else {
            self.unanswered += 1;
            return;
        };
        if answer
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            let mut parser = SseParser::new(usize::MAX);
            for event in parser.feed(&answer.body) {
                match event {
                    Ok(event) => self.message(slot("event"), event.data.as_bytes(), run),
                    Err(error) => self
                        .failures
                        .push(format!("{run}: {method}: bad SSE: {error}")),
                }
            }
        } else {
            self.message(slot("response"), &answer.body, run);
        }
    }

    /// Validates one message and checks its detected dialect.
    fn message(&mut self, slot: Slot, bytes: &[u8], run: &str) {
        *self.checked.entry(slot.clone()).or_default() += 1;
        let document: Value = match serde_json::from_slice(bytes) {
            Ok(document) => document,
            Err(error) => {
                self.failures
                    .push(format!("{run}: {slot:?}: not JSON ({error})"));
                return;
            }
        };
        let problems = match slot.dialect {
            Dialect::V1_0 => self.proto_problems(&slot, &document),
            dialect => self.schema_problems(dialect, &slot, &document),
        };
        if !problems.is_empty() {
            *self.failing.entry(slot.clone()).or_default() += 1;
        }
        for problem in problems.into_iter().take(3) {
            self.failures.push(format!(
                "{run}: {} {} {}: {problem}\n    {document}",
                slot.dialect, slot.method, slot.role
            ));
        }
        let detected = detect(&document);
        if detected.as_ref().map(|found| found.dialect) != Some(slot.dialect) {
            let said = detected.map_or("nothing detected".to_string(), |found| found.reason);
            *self.misdetected.entry((slot, said)).or_default() += 1;
        }
    }

    fn schema_problems(&mut self, dialect: Dialect, slot: &Slot, document: &Value) -> Vec<String> {
        let schema = self.schema(dialect);
        let streaming_send = if dialect == Dialect::V0_1 {
            "tasks/sendSubscribe"
        } else {
            "message/stream"
        };
        let definition = match slot.role {
            "card" => Some("AgentCard".to_string()),
            "request" => schema.request_definition(&slot.method),
            // A method without a response definition of its own streams (`tasks/resubscribe`):
            // its JSON answer (an error) is one of the streaming send's responses.
            "response" => schema
                .request_definition(&slot.method)
                .map(|request| request.replace("Request", "Response"))
                .filter(|name| schema.document[schema.definitions].get(name).is_some())
                .or_else(|| {
                    schema
                        .request_definition(streaming_send)
                        .map(|request| request.replace("Request", "Response"))
                }),
            _ => schema
                .request_definition(streaming_send)
                .map(|request| request.replace("Request", "Response")),
        };
        match definition {
            Some(name) => schema.problems(&name, document),
            None => vec![format!("the schema has no method {}", slot.method)],
        }
    }

    fn proto_problems(&self, slot: &Slot, document: &Value) -> Vec<String> {
        let spec = &self.v1_0;
        if slot.role == "card" {
            return spec.proto.check("AgentCard", document, "card");
        }
        let Some((request, response)) = spec.rpcs.get(&slot.method) else {
            return vec![format!("the proto has no rpc {}", slot.method)];
        };
        if slot.role == "request" {
            let mut problems = envelope_problems(document, &["jsonrpc", "id", "method", "params"]);
            problems.extend(spec.proto.check(request, &document["params"], "params"));
            return problems;
        }
        response_problems(&spec.proto, response, document)
    }
}

/// Whether a Content-Length body arrived shorter than announced (a fault cut it).
fn cut_short(answer: &HttpMessage) -> bool {
    answer
        .header("content-length")
        .and_then(|length| length.parse::<usize>().ok())
        .is_some_and(|length| answer.body.len() < length)
}

/// `spec` with its built-in consumer's connections taped into `tapes`.
fn taped(spec: &RunSpec, tapes: &Tapes) -> RunSpec {
    let tapes = tapes.clone();
    let consumer = match spec.consumer.name() {
        "naive" => ConsumerChoice::custom("naive", move |connector, seed| {
            let connector = TapingConnector::new(connector, tapes.clone());
            Box::new(NaiveConsumer::new(connector, sim_client(), seed))
        }),
        _ => ConsumerChoice::custom("reconciling", move |connector, seed| {
            let config = ReconcilingConfig {
                client: sim_client(),
                ..ReconcilingConfig::default()
            };
            let connector = TapingConnector::new(connector, tapes.clone());
            Box::new(ReconcilingConsumer::new(connector, config, seed))
        }),
    };
    RunSpec {
        consumer,
        ..spec.clone()
    }
}

#[test]
fn every_message_of_the_default_matrix_meets_the_official_spec() {
    let matrix = Matrix::default_matrix();
    let specs: Mutex<Vec<RunSpec>> = Mutex::new(matrix.specs().collect());
    let checker = Mutex::new(Checker::new());
    let runs = specs.lock().unwrap().len();
    std::thread::scope(|scope| {
        for _ in 0..meshsim_scenarios::default_threads() {
            scope.spawn(|| {
                loop {
                    let Some(spec) = specs.lock().unwrap().pop() else {
                        break;
                    };
                    let tapes = Tapes::default();
                    let result = run(&taped(&spec, &tapes), &RunOptions::default());
                    let label = spec.replay_command();
                    result.unwrap_or_else(|error| panic!("{label}: {error}"));
                    let mut checker = checker.lock().unwrap();
                    for tape in tapes.snapshot() {
                        checker.tape(spec.dialect, &tape, &label);
                    }
                }
            });
        }
    });
    let checker = checker.into_inner().unwrap();
    let total: usize = checker.checked.values().sum();
    println!(
        "{total} messages of {runs} runs checked against the official specs ({} connections cut or refused):",
        checker.unanswered
    );
    for (slot, count) in &checker.checked {
        let failed = checker.failing.get(slot).copied().unwrap_or(0);
        println!(
            "  {} {:<22} {:<8} {count:>5} checked, {failed} failed",
            slot.dialect, slot.method, slot.role
        );
    }
    println!("read as another dialect by detection:");
    for ((slot, said), count) in &checker.misdetected {
        println!(
            "  {} {} {} x{count}: {said}",
            slot.dialect, slot.method, slot.role
        );
    }
    for dialect in Dialect::ALL {
        for role in ["card", "request", "response", "event"] {
            assert!(
                checker
                    .checked
                    .keys()
                    .any(|slot| slot.dialect == dialect && slot.role == role),
                "no {role} of {dialect} was taped"
            );
        }
    }
    assert!(
        checker.failures.is_empty(),
        "{} messages break the spec; the first:\n{}",
        checker.failures.len(),
        checker.failures[..checker.failures.len().min(10)].join("\n")
    );
    let unexplained: Vec<_> = checker
        .misdetected
        .keys()
        .filter(|(_, said)| !AMBIGUOUS.contains(&said.as_str()))
        .collect();
    assert!(
        unexplained.is_empty(),
        "detection misread: {unexplained:#?}"
    );
}
