//! The consumer side of A2A: what users take into production.
//!
//! A transport-generic A2A client, the [`Consumer`] trait a scenario drives, two consumers
//! (a naive one that plans the task lifecycle from the Agent Card, as the origin incident's failure
//! mode does, and a reconciling one that learns each peer's real lifecycle), the per-peer
//! lifecycle profiles they learn, and the probe behind `meshsim probe`.
//!
//! It never imports turmoil: the client takes a connector, so the same code runs inside the
//! simulation and over real TCP.

pub mod client;
pub mod contract;
pub mod ids;
pub mod job;
pub mod ledger;
pub mod naive;
pub mod probe;
pub mod profile;
pub mod reconciling;
pub mod recorder;
pub mod report;
pub mod session;

pub use client::{A2aClient, ClientConfig, ClientError, Connector, EventStream, TcpConnector};
pub use contract::Report;
pub use ids::IdSource;
pub use job::{BoxFuture, Consumer, Deadlines, Job};
pub use naive::NaiveConsumer;
pub use profile::{
    FollowupBehaviour, PeerLifecycleProfile, ProfileCache, ProfileKey, ResubscribeBehaviour,
};
pub use reconciling::{ReconcilingConfig, ReconcilingConsumer};
pub use report::{JobReport, Outcome};
