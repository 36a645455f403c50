//! Messages and their parts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Agent,
    /// A role outside the spec (e.g. `UNRECOGNIZED`, which @a2a-js/sdk 1.3 writes for a
    /// role its enum does not know), kept as spelled; see [`crate::unrecognised`].
    Unknown(String),
}

/// One turn of conversation. v0.1 messages carry no `message_id`, `task_id` or
/// `context_id` (the task id travels in the request's params there).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub message_id: Option<String>,
    pub role: Role,
    pub parts: Vec<Part>,
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub metadata: Option<Value>,
}

impl Message {
    /// A message with one text part and nothing else set.
    pub fn text(role: Role, message_id: Option<String>, text: impl Into<String>) -> Self {
        Message {
            message_id,
            role,
            parts: vec![Part::text(text)],
            task_id: None,
            context_id: None,
            metadata: None,
        }
    }

    /// The concatenated text of all text parts.
    pub fn text_content(&self) -> String {
        self.parts
            .iter()
            .filter_map(|part| match &part.content {
                PartContent::Text(text) => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("")
    }
}

/// A piece of content in a message or an artifact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    pub content: PartContent,
    pub metadata: Option<Value>,
}

impl Part {
    /// A text part without metadata.
    pub fn text(text: impl Into<String>) -> Self {
        Part {
            content: PartContent::Text(text.into()),
            metadata: None,
        }
    }
}

/// What a part holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartContent {
    Text(String),
    /// Structured data (a JSON value; v0.1 and v0.3 require an object).
    Data(Value),
    File(FileContent),
    /// A part of a kind outside the spec, kept as the peer sent it (proto3 JSON readers keep
    /// what they do not know rather than refuse the document); see [`crate::unrecognised`].
    Unknown(UnknownPart),
}

/// A part whose kind the dialect does not define: v0.3's `"kind": "video"`, v0.1's
/// `"type": "video"`, or a v1.0 part holding none of `text`, `raw`, `url`, `data` but
/// another member (`"video": {...}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnknownPart {
    /// The kind as the peer named it (v0.3's `kind`, v0.1's `type`, v1.0's member name).
    pub kind: String,
    /// The whole part object as sent; encoding writes it back unchanged.
    pub as_sent: Value,
}

/// A file, carried inline (base64) or by reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FileContent {
    pub name: Option<String>,
    pub media_type: Option<String>,
    /// Base64 of the file's bytes, exactly as on the wire.
    pub bytes: Option<String>,
    pub uri: Option<String>,
}
