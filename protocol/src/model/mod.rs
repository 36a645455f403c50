//! The internal A2A model: one set of types that every dialect encodes to and decodes
//! from. Field names follow A2A 1.0's proto (snake_case here, camelCase on the wire); a
//! field that only some dialects carry is an `Option` and its absence is meaningful.

mod card;
mod event;
mod message;
mod state;
mod task;

pub use card::{AgentCapabilities, AgentCard, AgentInterface, AgentSkill};
pub use event::{StreamEvent, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};
pub use message::{FileContent, Message, Part, PartContent, Role, UnknownPart};
pub use state::{TaskMove, TaskState};
pub use task::{Artifact, Task, TaskStatus};
