//! Every [`TraceEvent`] recorded by the [`Recorder`] reads back as the same event.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use meshsim_protocol::TaskState;
use meshsim_trace::{
    Applied, ConnectOutcome, ErrorKind, JobOutcome, StreamEnd, TaskOrigin, TraceEvent, TraceLine,
};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

use super::Recorder;
use crate::sim_time::SimTime;

fn text(value: &str) -> Cow<'static, str> {
    Cow::Owned(value.to_string())
}

/// One event of every kind, with every optional part both present and absent.
fn every_event() -> Vec<TraceEvent<'static>> {
    vec![
        TraceEvent::Accept { conn: 3 },
        TraceEvent::AcceptFailed {
            error: ErrorKind::Io,
        },
        TraceEvent::Connect {
            to: text("agent:9000"),
            outcome: ConnectOutcome::Ok,
        },
        TraceEvent::Connect {
            to: text("agent:9000"),
            outcome: ConnectOutcome::Error(ErrorKind::Refused),
        },
        TraceEvent::Connect {
            to: text("agent:9000"),
            outcome: ConnectOutcome::Timeout,
        },
        TraceEvent::Request {
            conn: 1,
            method: text("POST"),
            path: text("/"),
        },
        TraceEvent::Response {
            conn: 1,
            method: text("POST"),
            path: text("/"),
            status: 200,
            streaming: true,
        },
        TraceEvent::StreamFrame {
            conn: 1,
            seq: 2,
            bytes: 120,
        },
        TraceEvent::StreamClose {
            conn: 1,
            frames: 2,
            end: StreamEnd::End,
        },
        TraceEvent::StreamClose {
            conn: 1,
            frames: 0,
            end: StreamEnd::Dropped,
        },
        TraceEvent::StreamClose {
            conn: 1,
            frames: 1,
            end: StreamEnd::Error(ErrorKind::TimedOut),
        },
        TraceEvent::ConnClose {
            conn: 1,
            error: None,
        },
        TraceEvent::ConnClose {
            conn: 1,
            error: Some(ErrorKind::ClosedEarly),
        },
        TraceEvent::Fault {
            at_ms: 50,
            fault: text(r#"{"crash":{"host":"agent"}}"#),
        },
        TraceEvent::Heal {
            bounced: vec!["agent".into(), "sidecar".into()],
            latency_reset: 1,
            loss_reset: 0,
        },
        TraceEvent::Heal {
            bounced: Vec::new(),
            latency_reset: 0,
            loss_reset: 2,
        },
        TraceEvent::Exit {
            node: text("consumer"),
            error: None,
        },
        TraceEvent::Exit {
            node: text("consumer"),
            error: Some(ErrorKind::Panicked),
        },
        TraceEvent::Violation {
            message: text("two outcomes"),
        },
        TraceEvent::End { clients_done: true },
        TraceEvent::TaskCreated {
            runtime: text("go-replaying"),
            task: text("t-1"),
            origin: TaskOrigin::New,
            to: TaskState::Submitted,
        },
        TraceEvent::TaskCreated {
            runtime: text("go-replaying"),
            task: text("t-2"),
            origin: TaskOrigin::FollowUp,
            to: TaskState::Submitted,
        },
        TraceEvent::TaskStalled {
            runtime: text("r"),
            task: text("t"),
        },
        TraceEvent::TaskEvicted {
            runtime: text("r"),
            task: text("t"),
        },
        TraceEvent::FollowUpQueued {
            runtime: text("r"),
            task: text("t"),
        },
        TraceEvent::FollowUpsDropped {
            runtime: text("r"),
            task: text("t"),
            dropped: 2,
        },
        TraceEvent::Transition {
            runtime: text("r"),
            task: text("t"),
            from: TaskState::Working,
            to: TaskState::InputRequired,
        },
        TraceEvent::Artifact {
            runtime: text("r"),
            task: text("t"),
            chunk: 0,
            last: false,
        },
        TraceEvent::TaskReaped {
            runtime: text("r"),
            task: text("t"),
            state: TaskState::InputRequired,
            reason: text("stream closed"),
        },
        TraceEvent::TaskStreamOpen {
            runtime: text("r"),
            task: text("t"),
            stream: 4,
            kind: text("resubscribe"),
        },
        TraceEvent::TaskStreamClose {
            runtime: text("r"),
            task: text("t"),
            stream: 4,
            reason: text("final event"),
        },
        TraceEvent::DirectReply { runtime: text("r") },
        TraceEvent::ErrorAnswered {
            runtime: text("r"),
            method: text("tasks/get"),
            code: -32001,
        },
        TraceEvent::StreamErrorAnswered {
            task: text("t"),
            code: -32603,
            problem: text("cannot say it"),
        },
        TraceEvent::SidecarUpstreamError {
            path: text("/"),
            problem: ErrorKind::Refused,
        },
        TraceEvent::SidecarCut {
            path: text("/"),
            reason: text("idle timeout"),
        },
        TraceEvent::JobStart {
            job: text("j"),
            consumer: text("naive"),
            peer: text("agent"),
        },
        TraceEvent::Card {
            path: text("/.well-known/agent-card.json"),
            dialect: text("v1.0"),
            version: text("1.2.0"),
            streaming: Some(true),
        },
        TraceEvent::Card {
            path: text("/.well-known/agent-card.json"),
            dialect: text("v0.3"),
            version: text("1.0"),
            streaming: Some(false),
        },
        TraceEvent::Card {
            path: text("/.well-known/agent.json"),
            dialect: text("v0.1"),
            version: text("0.1"),
            streaming: None,
        },
        TraceEvent::EncodeLoss {
            method: text("SendMessage"),
            loss: text("metadata"),
        },
        TraceEvent::Applied(Applied {
            job: text("j"),
            task: text("t"),
            from: None,
            state: TaskState::Submitted,
            connection: 1,
            index: 0,
        }),
        TraceEvent::Applied(Applied {
            job: text("j"),
            task: text("t"),
            from: Some(TaskState::Submitted),
            state: TaskState::Working,
            connection: 1,
            index: 1,
        }),
        TraceEvent::Anomaly {
            job: text("j"),
            task: text("t"),
            kind: text("Replayed"),
            detail: text("seen twice"),
        },
        TraceEvent::Decision {
            job: text("j"),
            task: text("t"),
            decision: text("resubscribe"),
            reason: text("stream ended"),
        },
        TraceEvent::Deadline {
            job: text("j"),
            task: text("t"),
            state: TaskState::Working,
            limit_ms: 3000,
        },
        TraceEvent::Abandoned {
            job: text("j"),
            task: text("t"),
            reason: text("deadline"),
            cancel: text("Canceled"),
        },
        TraceEvent::ProfileLearned {
            job: text("j"),
            peer: text("agent:9000"),
            card_version: text("1.0"),
            field: text("resubscribe_after_input_required"),
            value: text("replays"),
        },
        TraceEvent::Outcome {
            job: text("j"),
            outcome: JobOutcome::Completed {
                task: text("t-1"),
                artifact: text("chunk 1 of 2\nchunk \"2\""),
            },
        },
        TraceEvent::Outcome {
            job: text("j"),
            outcome: JobOutcome::Failed {
                task: text("t-1"),
                reason: text("the agent failed it"),
            },
        },
        TraceEvent::Outcome {
            job: text("j"),
            outcome: JobOutcome::Canceled { task: text("t-1") },
        },
        TraceEvent::Outcome {
            job: text("j"),
            outcome: JobOutcome::GaveUp {
                reason: text("no outcome after 6 tasks"),
            },
        },
        TraceEvent::Note {
            note: text("nudged"),
            value: None,
        },
        TraceEvent::Note {
            note: text("connected"),
            value: Some(120),
        },
    ]
}

/// Names every variant without a wildcard, so a new variant fails to compile until
/// [`every_event`] has a sample of it.
fn kind(event: &TraceEvent<'_>) -> &'static str {
    match event {
        TraceEvent::Accept { .. } => "accept",
        TraceEvent::AcceptFailed { .. } => "accept-failed",
        TraceEvent::Connect { .. } => "connect",
        TraceEvent::Request { .. } => "request",
        TraceEvent::Response { .. } => "response",
        TraceEvent::StreamFrame { .. } => "stream-frame",
        TraceEvent::StreamClose { .. } => "stream-close",
        TraceEvent::ConnClose { .. } => "conn-close",
        TraceEvent::Fault { .. } => "fault",
        TraceEvent::Heal { .. } => "heal",
        TraceEvent::Exit { .. } => "exit",
        TraceEvent::Violation { .. } => "violation",
        TraceEvent::End { .. } => "end",
        TraceEvent::TaskCreated { .. } => "task-created",
        TraceEvent::TaskStalled { .. } => "task-stalled",
        TraceEvent::TaskEvicted { .. } => "task-evicted",
        TraceEvent::FollowUpQueued { .. } => "follow-up-queued",
        TraceEvent::FollowUpsDropped { .. } => "follow-ups-dropped",
        TraceEvent::Transition { .. } => "transition",
        TraceEvent::Artifact { .. } => "artifact",
        TraceEvent::TaskReaped { .. } => "task-reaped",
        TraceEvent::TaskStreamOpen { .. } => "task-stream-open",
        TraceEvent::TaskStreamClose { .. } => "task-stream-close",
        TraceEvent::DirectReply { .. } => "direct-reply",
        TraceEvent::ErrorAnswered { .. } => "error-answered",
        TraceEvent::StreamErrorAnswered { .. } => "stream-error-answered",
        TraceEvent::SidecarUpstreamError { .. } => "sidecar-upstream-error",
        TraceEvent::SidecarCut { .. } => "sidecar-cut",
        TraceEvent::JobStart { .. } => "job-start",
        TraceEvent::Card { .. } => "card",
        TraceEvent::EncodeLoss { .. } => "encode-loss",
        TraceEvent::Applied(_) => "applied",
        TraceEvent::Anomaly { .. } => "anomaly",
        TraceEvent::Decision { .. } => "decision",
        TraceEvent::Deadline { .. } => "deadline",
        TraceEvent::Abandoned { .. } => "abandoned",
        TraceEvent::ProfileLearned { .. } => "profile-learned",
        TraceEvent::Outcome { .. } => "outcome",
        TraceEvent::Note { .. } => "note",
        TraceEvent::Unrecognised => "unrecognised",
    }
}

#[test]
fn every_event_reads_back_as_itself() {
    let time = SimTime::new();
    let recorder = Recorder::new(time.clone());
    let events = every_event();
    {
        let _guard = recorder.install();
        for (at, event) in events.iter().enumerate() {
            time.set_elapsed(Duration::from_millis(at as u64));
            event.emit();
        }
    }
    let trace = recorder.trace();
    assert_eq!(trace.lines().len(), events.len());
    let mut kinds: Vec<&str> = events.iter().map(kind).collect();
    kinds.dedup();
    assert_eq!(kinds.len(), 39, "a sample of every kind but unrecognised");
    for (at, (line, event)) in trace.lines().zip(&events).enumerate() {
        let read = TraceLine::parse(line).expect("a recorded line is a JSON object");
        assert_eq!(&read.event, event, "{line}");
        assert_eq!(read.t_us, at as u64 * 1000);
        assert_eq!(read.host, super::SIM_HOST);
    }
}

#[test]
fn an_applied_line_keeps_the_field_names_the_hashes_were_taken_over() {
    let recorder = Recorder::new(SimTime::new());
    {
        let _guard = recorder.install();
        every_event()
            .into_iter()
            .find(|event| matches!(event, TraceEvent::Applied(Applied { from: Some(_), .. })))
            .expect("a sample")
            .emit();
    }
    let trace = recorder.trace();
    let line = trace.lines().next().expect("one line");
    assert_eq!(
        line,
        r#"{"fields":{"connection":1,"event":"applied","from":"submitted","index":1,"job":"j","state":"working","task":"t"},"host":"sim","level":"INFO","t_us":0,"target":"meshsim::consumer"}"#
    );
    assert_eq!(
        TraceLine::parse_consumer(line).map(|read| read.event),
        TraceLine::parse(line).map(|read| read.event),
        "a consumer's line"
    );
    let (t_us, applied) = TraceLine::parse_applied(line).expect("an applied line");
    assert_eq!(
        (t_us, applied.state, applied.index),
        (0, TaskState::Working, 1)
    );
}

#[test]
fn a_line_of_an_unknown_event_reads_as_unrecognised_with_its_fields_as_text() {
    let line = r#"{"fields":{"a":1,"b":"x"},"host":"h","level":"INFO","t_us":5,"target":"meshsim::elsewhere"}"#;
    let read = TraceLine::parse(line).expect("a JSON object");
    assert_eq!(read.event, TraceEvent::Unrecognised);
    assert_eq!(read.fields_text, " a=1 b=x");
    assert_eq!(
        TraceLine::parse_consumer(line),
        None,
        "not a consumer's line"
    );
    assert_eq!(TraceLine::parse("not json"), None);
}

/// Keeps the metadata of every event it is given, and records nothing.
#[derive(Default)]
struct Callsites(Mutex<Vec<&'static Metadata<'static>>>);

impl Subscriber for Callsites {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, event: &Event<'_>) {
        self.0.lock().unwrap().push(event.metadata());
    }

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}

#[test]
fn every_event_names_its_fields_in_the_order_of_its_line() {
    // So the recorder writes each value as it is visited (`fields.rs`, `InOrder`).
    let callsites = Arc::new(Callsites::default());
    let events = every_event();
    tracing::subscriber::with_default(callsites.clone(), || {
        for event in &events {
            event.emit();
        }
    });
    let emitted = callsites.0.lock().unwrap();
    assert_eq!(emitted.len(), events.len());
    for meta in emitted.iter() {
        let names: Vec<&str> = meta.fields().iter().map(|field| field.name()).collect();
        assert!(names.is_sorted_by(|one, next| one < next), "{names:?}");
    }
}
