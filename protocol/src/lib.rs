//! The A2A wire protocol, as data: one internal model ([`model`]), JSON-RPC envelopes
//! ([`rpc`]), and a codec per wire dialect (`v0.1`, `v0.3`, `v1.0`, see [`codec`]) that
//! encodes the model to JSON and decodes JSON back, naming what a dialect cannot express.
//! Obtain a codec with [`Dialect::codec`]. Around the codecs: [`sse`] frames and parses
//! event streams, [`version`] holds v1.0's `A2A-Version` header rules, and [`detect`] tells
//! a document's dialect from a Card or a payload, and [`unrecognised`] names the enum values
//! outside the spec that the tolerant decoders kept.
//!
//! This crate does no I/O. Runtimes, consumers and the CLI all speak through it, so the
//! simulation and real TCP share one vocabulary.

pub mod clock;
pub mod codec;
pub mod detect;
mod dialect;
mod json;
pub mod model;
pub mod rpc;
pub mod sse;
pub mod unrecognised;
pub mod version;

pub use codec::{Codec, DecodeError, Dialect, EncodeError, Encoded, Loss};
pub use model::*;
pub use rpc::*;
