//! What a scenario asks of a consumer: a [`Job`] run to an outcome by any [`Consumer`],
//! including users' own.

use crate::report::JobReport;
use serde::Serialize;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A boxed future, so that [`Consumer`] stays object-safe (`Box<dyn Consumer>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How long a consumer lets a task sit in a state before it acts on its own: the Card
/// cannot express a deadline, so the consumer owns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Deadlines {
    /// Longest time in `submitted` before cancel and re-dispatch.
    pub submitted: Duration,
    /// Longest time in `working` (one turn) before cancel and re-dispatch.
    pub working: Duration,
    /// Longest time for the whole job; past it the consumer gives up.
    pub job: Duration,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            submitted: Duration::from_secs(5),
            working: Duration::from_secs(30),
            job: Duration::from_secs(120),
        }
    }
}

/// One piece of work: ask `peer` to do `request`, answering its question (if it asks one)
/// with `answer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Job {
    /// A name for traces and reports, unique within a run.
    pub name: String,
    /// The peer's base URL, e.g. `http://go-replaying:9000`; its Card is found from there.
    pub peer: String,
    /// The text of the message that starts the task.
    pub request: String,
    /// The text sent when the task asks for input.
    pub answer: String,
    pub deadlines: Deadlines,
    /// Cancel the task when it asks for input instead of answering (the job then ends
    /// `canceled`).
    pub cancel_at_input_required: bool,
}

/// Anything that can run a job against a peer and report what it did. A consumer may run
/// several jobs at once and keeps what it learns across them.
///
/// A user's consumer builds its report with a [`JobRecorder`](crate::recorder::JobRecorder),
/// which also emits the trace events the simulation records:
///
/// ```
/// use meshsim_consumer::JobRecorder;
/// use meshsim_consumer::{BoxFuture, Consumer, Job, JobReport, Outcome};
///
/// struct Declines;
///
/// impl Consumer for Declines {
///     fn name(&self) -> &str {
///         "declines"
///     }
///
///     fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
///         Box::pin(async move {
///             let recorder = JobRecorder::new(&job.name, self.name(), &job.peer);
///             let reason = "declines every job".to_string();
///             recorder.finish(Outcome::GaveUp { reason }, None)
///         })
///     }
/// }
///
/// let consumer: Box<dyn Consumer> = Box::new(Declines);
/// assert_eq!(consumer.name(), "declines");
/// ```
pub trait Consumer: Send + Sync {
    /// A short name, e.g. `naive` or `reconciling`.
    fn name(&self) -> &str;

    /// Runs `job` to an outcome. Never panics on a misbehaving peer: failures end up in
    /// the report's outcome.
    fn run(&self, job: Job) -> BoxFuture<'_, JobReport>;
}

/// A boxed consumer is a consumer, so factories may return either.
impl<T: Consumer + ?Sized> Consumer for Box<T> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        (**self).run(job)
    }
}
