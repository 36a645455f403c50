//! The consumer side of A2A: what users take into production.
//!
//! A transport-generic A2A client, the [`Consumer`] trait a scenario drives, two consumers
//! (a naive one that plans the task lifecycle from the Agent Card, as the origin incident's failure
//! mode does, and a reconciling one that learns each peer's real lifecycle), the per-peer
//! lifecycle profiles they learn, and the probe behind `meshsim probe`.
//!
//! It never imports turmoil: the client takes a connector, so the same code runs inside the
//! simulation and over real TCP.

// Modules are private and the root re-exports what users name (the probe and the ledger
// are namespaces: `probe::ProbeConfig`, `ledger::Ruling`). A type that a public signature
// shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

mod client;
mod contract;
mod ids;
mod job;
pub mod ledger;
mod naive;
pub mod probe;
mod profile;
mod reconciling;
mod recorder;
mod report;
mod session;

pub use client::{
    A2aClient, BoxError, ClientConfig, ClientError, Connector, EventStream, TcpConnector,
};
pub use contract::Report;
pub use ids::IdSource;
pub use job::{BoxFuture, Consumer, Deadlines, Job};
pub use naive::NaiveConsumer;
pub use profile::{
    FollowupBehaviour, Observed, PeerLifecycleProfile, ProfileCache, ProfileKey,
    ResubscribeBehaviour,
};
pub use reconciling::{ReconcilingConfig, ReconcilingConsumer};
pub use recorder::JobRecorder;
pub use report::{
    Abandonment, Anomaly, AnomalyKind, AppliedEvent, CancelResult, DeadlineHit, JobReport, Outcome,
    TaskView,
};
pub use session::{artifact_text, status_text};
