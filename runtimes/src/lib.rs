//! Mock A2A agent runtimes for the simulation and for real TCP.
//!
//! A [`Personality`] holds, as data, the knobs on which real runtimes differ (resubscribe
//! and follow-up semantics, reaping, stream closing, cancel, timestamps, Card claims, work
//! durations). Built-in personalities reproduce the origin incident's three runtimes and runtimes
//! calibrated against real SDKs. Task lifecycles follow executor [`Script`]s, and every
//! state change is written to a [`GroundTruth`] handle that the oracle reads directly.
//! This crate never imports turmoil: it hands out routers, and its sidecar reaches its
//! backend through any connector.

// Modules are private and the root re-exports what users name: a type that a public
// signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

mod behaviour;
mod builtin;
mod card;
mod card_cache;
mod card_route;
mod endpoint;
mod executor;
mod headers;
mod http_json;
mod json_text;
mod media;
mod personality;
mod routes;
mod runtime;
mod script;
mod serve_guard;
mod sidecar;
mod step;
mod store;
mod stream;
mod tck;
mod thread_memo;
mod truth;
mod unserved;

pub use behaviour::{Behaviour, Knobs, TaskFacts};
pub use builtin::{BUILTIN_NAMES, builtin, builtins, resolve};
pub use card::agent_card;
pub use personality::{
    Bindings, BusyFollowUp, CancelOutcome, CancelPolicy, CardClaims, FollowUp, FollowUpOpening,
    NewTaskOpening, Personality, PersonalityError, Reaping, Resubscribe, SendReply, StreamClose,
    TerminalCancel, Timestamps, TurnOpening, UnknownTask, WorkDurations,
};
pub use runtime::Runtime;
pub use script::Script;
pub use serve_guard::{BodyDrain, ServeGuard, ServeLimits, Tenants};
pub use sidecar::Sidecar;
pub use step::TurnStep;
pub use store::probe::{FollowUpAnswer, Lifecycle, ResubscribeAnswer, lifecycle};
pub use tck::{TckArtifact, TckScript};
pub use truth::{Fate, GroundTruth, Origin, TaskTruth, Transition};
