//! The one door every timer of meshsim's hosts goes through.
//!
//! The timers are tokio's, so they run on turmoil's simulated clock inside a simulation and on
//! the real clock on real TCP. What this crate adds is bookkeeping: while a simulation is
//! [watched](watch), every [`sleep()`], [`sleep_until`], [`timeout()`], [`timeout_at`] and
//! [`Interval`] created inside one of its hosts enters its deadline, in simulated time since
//! the simulation began, and the host's address into the simulation's [`Deadlines`] and
//! leaves it when the timer completes or is dropped. The runner reads the earliest deadline
//! to skip the steps in which no host has anything to do (idle fast-forward), and which hosts
//! have a timer due in a step to leave the others out of it if nothing else woke them; both
//! are only sound if no timer bypasses this crate: the workspace's `clippy.toml` forbids
//! tokio's own timer functions elsewhere.
//!
//! A timer whose simulated time cannot be read (created inside a watched simulation but
//! outside any host) counts as [unknown](Deadlines::next): it keeps the runner from skipping
//! while it lives.

// Modules are private and the root re-exports what users name: a type that a public
// signature shows must be re-exported too, or users could hold it but not name it.
#![warn(unnameable_types)]

mod deadlines;
mod interval;
mod sleep;
mod timeout;

pub use deadlines::{Deadlines, Watch, watch};
pub use interval::Interval;
pub use sleep::{Sleep, sleep, sleep_until};
pub use timeout::{timeout, timeout_at};
pub use tokio::time::Instant;
pub use tokio::time::error::Elapsed;
