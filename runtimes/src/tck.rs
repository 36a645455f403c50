//! The A2A TCK's agent conventions (a2aproject/a2a-tck, branch `1.0-dev`).
//!
//! The TCK can only steer an agent through the messages it sends, so it names the
//! behaviour it needs in the prefix of `message.messageId`, then appends
//! `-<hex>[-<transport>]`. A message whose id starts with `tck-` runs the [`TckScript`]
//! its prefix names, on any personality, beside the project's own `#directive` words; a
//! `tck-` prefix the table does not know completes. A follow-up to a task picks its turn's
//! script again by its own prefix, so `tck-complete-task` finishes a task that waits for
//! input and `tck-input-required` keeps it waiting.

use crate::step::TurnStep;
use meshsim_protocol::{FileContent, Message, Part, PartContent, Role, TaskState};
use serde_json::json;

/// The prefix every TCK message id starts with.
const TCK: &str = "tck-";

/// What a TCK message asks of the agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TckScript {
    /// Complete, the status message saying "Hello from TCK".
    CompleteTask,
    /// Stop in `input-required`.
    InputRequired,
    /// Answer with a Message and create no task.
    MessageResponse,
    /// Produce one artifact of this kind, then complete.
    Artifact(TckArtifact),
    /// Produce one text artifact in two chunks, then complete.
    ChunkedArtifact,
    /// Complete with neither artifact nor message (every other `tck-` prefix).
    Complete,
}

/// The artifact a [`TckScript::Artifact`] produces, with the content the TCK checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TckArtifact {
    Text(&'static str),
    /// The bytes `tck` inline, `text/plain`, named `output.txt`.
    File,
    /// `https://example.com/output.txt`, `text/plain`, named `output.txt`.
    FileUrl,
    /// `{"key": "value", "count": 42}`.
    Data,
}

/// The prefixes the TCK uses, most specific first (`-file-url` before `-file`).
const PREFIXES: [(&str, TckScript); 14] = [
    ("tck-complete-task", TckScript::CompleteTask),
    ("tck-input-required", TckScript::InputRequired),
    ("tck-message-response", TckScript::MessageResponse),
    (
        "tck-artifact-text",
        TckScript::Artifact(TckArtifact::Text("Generated text content")),
    ),
    (
        "tck-artifact-file-url",
        TckScript::Artifact(TckArtifact::FileUrl),
    ),
    ("tck-artifact-file", TckScript::Artifact(TckArtifact::File)),
    ("tck-artifact-data", TckScript::Artifact(TckArtifact::Data)),
    (
        "tck-stream-artifact-text",
        TckScript::Artifact(TckArtifact::Text("Streamed text content")),
    ),
    (
        "tck-stream-artifact-file",
        TckScript::Artifact(TckArtifact::File),
    ),
    ("tck-stream-artifact-chunked", TckScript::ChunkedArtifact),
    (
        "tck-stream-ordering-001",
        TckScript::Artifact(TckArtifact::Text("Ordered output")),
    ),
    (
        "tck-stream-001",
        TckScript::Artifact(TckArtifact::Text("Stream hello from TCK")),
    ),
    ("tck-stream-002", TckScript::Complete),
    (
        "tck-stream-003",
        TckScript::Artifact(TckArtifact::Text("Stream task lifecycle")),
    ),
];

impl TckScript {
    /// The script a message's id selects, if it is a TCK message.
    pub fn for_message(message: &Message) -> Option<TckScript> {
        let id = message.message_id.as_deref()?;
        if !id.starts_with(TCK) {
            return None;
        }
        let script = PREFIXES
            .iter()
            .find(|(prefix, _)| id.starts_with(prefix))
            .map_or(TckScript::Complete, |(_, script)| *script);
        Some(script)
    }

    /// The steps of a turn. A TCK turn does not depend on the turns before it.
    pub fn turn(self) -> Vec<TurnStep> {
        let mut steps = vec![
            TurnStep::Work,
            TurnStep::status(TaskState::Working, None),
            TurnStep::Work,
        ];
        let end = match self {
            TckScript::InputRequired => {
                steps.push(TurnStep::status(TaskState::InputRequired, None));
                return steps;
            }
            TckScript::CompleteTask => Some("Hello from TCK".to_string()),
            TckScript::Artifact(kind) => {
                steps.push(TurnStep::artifact(kind.part(), 0, true));
                None
            }
            TckScript::ChunkedArtifact => {
                steps.push(TurnStep::artifact(Part::text("chunk-1 "), 0, false));
                steps.push(TurnStep::Work);
                steps.push(TurnStep::artifact(Part::text("chunk-2"), 1, true));
                None
            }
            // `SendMessage` answers a task-less message response directly (see
            // [`direct_reply`]); one that continues a task, or comes by stream, completes.
            TckScript::MessageResponse | TckScript::Complete => None,
        };
        steps.push(TurnStep::status(TaskState::Completed, end));
        steps
    }
}

impl TckArtifact {
    fn part(self) -> Part {
        let file = |bytes: Option<&str>, uri: Option<&str>| {
            PartContent::File(FileContent {
                name: Some("output.txt".to_string()),
                media_type: Some("text/plain".to_string()),
                bytes: bytes.map(str::to_string),
                uri: uri.map(str::to_string),
            })
        };
        let content = match self {
            TckArtifact::Text(text) => PartContent::Text(text.to_string()),
            // Base64 of `tck`.
            TckArtifact::File => file(Some("dGNr"), None),
            TckArtifact::FileUrl => file(None, Some("https://example.com/output.txt")),
            TckArtifact::Data => PartContent::Data(json!({"key": "value", "count": 42})),
        };
        Part {
            content,
            metadata: None,
        }
    }
}

/// The agent's direct answer to a `tck-message-response` message that names no task: a
/// Message in the sender's context, its id derived from the request's.
pub fn direct_reply(message: &Message) -> Option<Message> {
    if message.task_id.is_some()
        || TckScript::for_message(message) != Some(TckScript::MessageResponse)
    {
        return None;
    }
    Some(Message {
        message_id: message.message_id.as_ref().map(|id| format!("{id}-reply")),
        role: Role::Agent,
        parts: vec![Part::text("Direct message response")],
        task_id: None,
        context_id: message.context_id.clone(),
        metadata: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(id: &str) -> Message {
        Message::text(Role::User, Some(id.to_string()), "TCK")
    }

    fn pick(id: &str) -> Option<TckScript> {
        TckScript::for_message(&message(id))
    }

    fn last_state(steps: &[TurnStep]) -> Option<TaskState> {
        steps.iter().rev().find_map(|step| match step {
            TurnStep::Status { state, .. } => Some(*state),
            _ => None,
        })
    }

    fn artifacts(steps: &[TurnStep]) -> Vec<&Part> {
        steps
            .iter()
            .filter_map(|step| match step {
                TurnStep::Artifact { part, .. } => Some(part),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn prefixes_select_scripts_past_the_session_and_transport_suffix() {
        assert_eq!(
            pick("tck-complete-task-1a2b3c-jsonrpc"),
            Some(TckScript::CompleteTask)
        );
        assert_eq!(
            pick("tck-input-required-1a2b"),
            Some(TckScript::InputRequired)
        );
        assert_eq!(
            pick("tck-artifact-file-url-1a2b"),
            Some(TckScript::Artifact(TckArtifact::FileUrl))
        );
        assert_eq!(
            pick("tck-artifact-file-1a2b"),
            Some(TckScript::Artifact(TckArtifact::File))
        );
        assert_eq!(
            pick("tck-stream-artifact-chunked-1a2b"),
            Some(TckScript::ChunkedArtifact)
        );
        assert_eq!(pick("tck-stream-002-1a2b"), Some(TckScript::Complete));
        assert_eq!(pick("tck-dm-test-001-1a2b"), Some(TckScript::Complete));
        assert_eq!(pick("msg-1"), None);
        assert_eq!(
            TckScript::for_message(&Message::text(Role::User, None, "x")),
            None
        );
    }

    #[test]
    fn input_required_stops_and_complete_task_says_hello() {
        assert_eq!(
            last_state(&TckScript::InputRequired.turn()),
            Some(TaskState::InputRequired)
        );
        let steps = TckScript::CompleteTask.turn();
        assert!(matches!(
            steps.last(),
            Some(TurnStep::Status { state: TaskState::Completed, question: Some(text) })
                if text == "Hello from TCK"
        ));
    }

    #[test]
    fn artifact_scripts_emit_the_content_the_tck_checks() {
        let file = TckScript::Artifact(TckArtifact::FileUrl).turn();
        let parts = artifacts(&file);
        assert!(matches!(
            &parts[..],
            [Part { content: PartContent::File(FileContent { uri: Some(uri), media_type: Some(media), name: Some(name), bytes: None }), .. }]
                if uri == "https://example.com/output.txt" && media == "text/plain" && name == "output.txt"
        ));
        assert_eq!(last_state(&file), Some(TaskState::Completed));
        let data = TckScript::Artifact(TckArtifact::Data).turn();
        assert!(matches!(
            &artifacts(&data)[..],
            [Part { content: PartContent::Data(value), .. }] if value["count"] == 42
        ));
        let chunked = TckScript::ChunkedArtifact.turn();
        let chunks: Vec<(u32, bool)> = chunked
            .iter()
            .filter_map(|step| match step {
                TurnStep::Artifact { chunk, last, .. } => Some((*chunk, *last)),
                _ => None,
            })
            .collect();
        assert_eq!(chunks, vec![(0, false), (1, true)]);
    }

    #[test]
    fn only_a_task_less_message_response_gets_a_direct_reply() {
        let reply = direct_reply(&message("tck-message-response-1a2b")).unwrap();
        assert_eq!(reply.role, Role::Agent);
        assert_eq!(reply.text_content(), "Direct message response");
        assert_eq!(
            reply.message_id.as_deref(),
            Some("tck-message-response-1a2b-reply")
        );
        let mut follow_up = message("tck-message-response-1a2b");
        follow_up.task_id = Some("t".to_string());
        assert_eq!(direct_reply(&follow_up), None);
        assert_eq!(direct_reply(&message("tck-complete-task-1a2b")), None);
    }
}
