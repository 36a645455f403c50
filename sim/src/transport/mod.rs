//! Transport glue with one interface for both worlds: [`serve()`] runs an `axum::Router` on any
//! `axum::serve::Listener` (a real `tokio::net::TcpListener` or a [`SimListener`]) over hyper
//! HTTP/1.1 without a `Date` header; [`TurmoilConnector`] dials turmoil TCP for hyper clients.
//! Both emit `meshsim::net` events for the trace, and both bound every wait (turmoil has no
//! TCP retransmission, so a dropped segment stalls a connection for good).

mod connector;
mod hyper_timer;
mod json_strings;
mod listener;
mod observed_body;
mod receipts;
mod serve;
mod timeout_io;

pub use connector::{ConnectError, TurmoilConnector};
pub use hyper_timer::HyperTimer;
pub use json_strings::JsonStrings;
pub use listener::SimListener;
pub use receipts::{Receipts, receiving_for};
pub use serve::{ServeOptions, serve, serve_with};
pub use timeout_io::TimeoutIo;
