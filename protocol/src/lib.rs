//! The A2A wire protocol, as data: one internal model ([`Task`], [`Message`], [`AgentCard`],
//! ...), JSON-RPC envelopes ([`RpcRequest`], [`RpcResponse`]), and a [`Codec`] per wire
//! dialect (`v0.1`, `v0.3`, `v1.0`) that encodes the model to JSON and decodes JSON back,
//! naming what a dialect cannot express ([`Loss`]). Obtain a codec with [`Dialect::codec`].
//! Around the codecs: [`sse`] frames and parses event streams, [`version`] holds v1.0's
//! `A2A-Version` header rules, [`detect`] tells a document's dialect from a Card or a
//! payload, and [`unrecognised`] names the enum values outside the spec that the tolerant
//! decoders kept.
//!
//! This crate does no I/O. Runtimes, consumers and the CLI all speak through it, so the
//! simulation and real TCP share one vocabulary.

// Modules are private and the root re-exports what users name: a type that a public
// signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

// The model, the envelopes and the codecs are the crate's vocabulary: their items are named
// from the root. The helpers around them are namespaces (`sse::frame`, `clock::rfc3339`),
// named with their module and not re-exported (`digits` also writes the trace recorder's numbers
// and the runtimes' ids).
mod binding;
pub mod clock;
mod codec;
pub mod detect;
mod dialect;
pub mod digits;
pub mod http_json;
mod json;
mod model;
mod rpc;
pub mod sse;
pub mod unrecognised;
pub mod version;

pub use binding::Binding;
pub use codec::{Codec, DecodeError, Dialect, EncodeError, Encoded, Loss};
pub use json::tree::Json;
pub use model::{
    AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Artifact, FileContent, Message, Part,
    PartContent, Role, StreamEvent, Task, TaskArtifactUpdateEvent, TaskMove, TaskState, TaskStatus,
    TaskStatusUpdateEvent, UnknownPart,
};
pub use rpc::{
    ErrorCode, GetTaskParams, ListTasksParams, Method, Request, RequestId, RpcError, RpcRequest,
    RpcResponse, RpcResult, SendConfiguration, SendMessageParams, TaskList,
};
