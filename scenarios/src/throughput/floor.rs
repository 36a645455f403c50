//! The protocol floor: a run's wire exchange (taped from the simulated run itself) replayed
//! with no network at all. Each Card, request and answer is encoded by the dialect's codec
//! and serialised, then parsed and decoded again the way the code under test reads it (a
//! request as the runtime's endpoint does, an answer as the consumer's client does: from the
//! text into a borrowed [`Json`] tree; a Card as the consumer's discovery does, through a
//! `serde_json::Value`, which dialect detection needs); stream events go through SSE framing
//! and the incremental SSE parser; every reported task state goes through the consumer's
//! [`TaskLedger`]. What a run costs beyond this is the price of simulating it.

use super::http_message::HttpMessage;
use super::tape::Tape;
use meshsim_consumer::ledger::{
    ConnectionKind, EventKind, EventRef, Observation, StateVerdict, TaskLedger,
};
use meshsim_protocol::sse::SseParser;
use meshsim_protocol::{
    AgentCard, Dialect, Json, Method, RpcRequest, RpcResponse, RpcResult, StreamEvent, sse,
};
use serde_json::Value;
use std::collections::BTreeMap;

/// One exchange of a run, decoded into the model.
#[derive(Debug, Clone)]
enum Step {
    /// A Card fetch and the Card it answered.
    Card(AgentCard),
    /// A JSON-RPC call and its answer: one plain response, or the events of a stream.
    Call {
        request: RpcRequest,
        answers: Vec<RpcResponse>,
        streamed: bool,
    },
}

/// The decoded exchange of one run, ready to replay.
#[derive(Debug, Clone)]
pub struct Script {
    dialect: Dialect,
    steps: Vec<Step>,
}

/// What one replay went through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FloorCount {
    pub cards: usize,
    pub requests: usize,
    pub answers: usize,
    /// Task states the ledgers applied.
    pub applied: usize,
}

impl Script {
    /// Decodes the taped connections of a run spoken in `dialect`. Connections that carried
    /// nothing decodable (cut before an answer arrived) contribute what they did carry.
    pub fn from_tapes(dialect: Dialect, tapes: &[Tape]) -> Script {
        let codec = dialect.codec();
        let mut steps = Vec::new();
        for tape in tapes {
            let Some(request) = HttpMessage::parse(&tape.sent) else {
                continue;
            };
            let answer = HttpMessage::parse(&tape.received);
            if request.start_line().starts_with("GET") {
                let card = answer
                    .and_then(|answer| serde_json::from_slice::<Value>(&answer.body).ok())
                    .and_then(|json| codec.decode_card(&json).ok());
                steps.extend(card.map(Step::Card));
                continue;
            }
            let Some(request) = serde_json::from_slice::<Value>(&request.body)
                .ok()
                .and_then(|json| codec.decode_request(&json).ok())
            else {
                continue;
            };
            let method = request.request.method();
            let streamed = answer.as_ref().is_some_and(|answer| {
                answer
                    .header("content-type")
                    .is_some_and(|value| value.starts_with(sse::CONTENT_TYPE))
            });
            let payloads = match (&answer, streamed) {
                (Some(answer), true) => SseParser::default()
                    .feed(&answer.body)
                    .into_iter()
                    .filter_map(|event| event.ok().map(|event| event.data.into_bytes()))
                    .collect(),
                (Some(answer), false) if !answer.body.is_empty() => vec![answer.body.clone()],
                _ => Vec::new(),
            };
            let answers = payloads
                .iter()
                .filter_map(|payload| serde_json::from_slice::<Value>(payload).ok())
                .filter_map(|json| codec.decode_response(&json, Some(method)).ok())
                .collect();
            steps.push(Step::Call {
                request,
                answers,
                streamed,
            });
        }
        Script { dialect, steps }
    }

    /// How many exchanges the script holds.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the run exchanged nothing decodable.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// Replays the script: encode, serialise, (frame, parse,) decode and reconcile every
    /// message. Fails if anything that decoded once no longer round-trips.
    pub fn replay(&self) -> Result<FloorCount, String> {
        let codec = self.dialect.codec();
        let mut ledgers: BTreeMap<String, TaskLedger> = BTreeMap::new();
        let mut count = FloorCount::default();
        for (connection, step) in self.steps.iter().enumerate() {
            let connection = u32::try_from(connection).unwrap_or(u32::MAX);
            match step {
                Step::Card(card) => {
                    let encoded = codec.encode_card(card).map_err(|e| e.to_string())?;
                    let wire = serde_json::to_vec(&encoded.value).map_err(|e| e.to_string())?;
                    let json: Value = serde_json::from_slice(&wire).map_err(|e| e.to_string())?;
                    std::hint::black_box(codec.decode_card(&json).map_err(|e| e.to_string())?);
                    count.cards += 1;
                }
                Step::Call {
                    request,
                    answers,
                    streamed,
                } => {
                    let encoded = codec.encode_request(request).map_err(|e| e.to_string())?;
                    let wire = serde_json::to_vec(&encoded.value).map_err(|e| e.to_string())?;
                    let json = Json::parse(&wire).map_err(|e| e.to_string())?;
                    let method = codec
                        .read_request(&json)
                        .map_err(|e| e.to_string())?
                        .request
                        .method();
                    count.requests += 1;
                    let kind = connection_kind(method);
                    let mut parser = SseParser::default();
                    for (index, answer) in answers.iter().enumerate() {
                        let encoded = codec
                            .encode_response_to(method, answer)
                            .map_err(|e| e.to_string())?;
                        let text =
                            serde_json::to_string(&encoded.value).map_err(|e| e.to_string())?;
                        let event;
                        let data = if *streamed {
                            parser.push(sse::frame(&text).as_bytes());
                            event = parser
                                .next_event()
                                .ok_or("a framed event did not parse back")?
                                .map_err(|e| e.to_string())?;
                            &event.data
                        } else {
                            &text
                        };
                        let json = Json::parse_str(data).map_err(|e| e.to_string())?;
                        let decoded = codec
                            .read_response(&json, Some(method))
                            .map_err(|e| e.to_string())?;
                        count.answers += 1;
                        let at = |kind| EventRef {
                            connection,
                            index: u32::try_from(index).unwrap_or(u32::MAX),
                            kind,
                        };
                        if let Some((task, observation)) = observation(&decoded, at) {
                            let rulings = ledgers.entry(task).or_default().observe(
                                connection,
                                kind,
                                observation,
                            );
                            count.applied += applied(&rulings);
                        }
                    }
                    for ledger in ledgers.values_mut() {
                        count.applied += applied(&ledger.close(connection));
                    }
                }
            }
        }
        Ok(count)
    }
}

fn applied(rulings: &[meshsim_consumer::ledger::Ruling]) -> usize {
    rulings
        .iter()
        .filter(|ruling| ruling.verdict == StateVerdict::Applied)
        .count()
}

/// Why a call's connection was opened, as the reconciling consumer tells its ledger.
fn connection_kind(method: Method) -> ConnectionKind {
    match method {
        Method::SendMessage | Method::SendStreamingMessage => ConnectionKind::Turn,
        Method::SubscribeToTask => ConnectionKind::Resubscribe,
        Method::GetTask | Method::ListTasks | Method::CancelTask => ConnectionKind::Probe,
    }
}

/// The task and the state an answer reports, if it reports one (as the consumer reads it).
fn observation(
    response: &RpcResponse,
    at: impl Fn(EventKind) -> EventRef,
) -> Option<(String, Observation)> {
    let (task, status, kind) = match response.outcome.as_ref().ok()? {
        RpcResult::Task(task) => (&task.id, &task.status, EventKind::Result),
        RpcResult::Event(StreamEvent::Task(task)) => (&task.id, &task.status, EventKind::Snapshot),
        RpcResult::Event(StreamEvent::StatusUpdate(update)) => {
            (&update.task_id, &update.status, EventKind::StatusUpdate)
        }
        _ => return None,
    };
    let observation = Observation {
        at: at(kind),
        state: status.state,
        timestamp: status.timestamp.clone(),
        message_id: status
            .message
            .as_ref()
            .and_then(|message| message.message_id.clone()),
        unrecognised_state: status.unrecognised_state.clone(),
    };
    Some((task.clone(), observation))
}
