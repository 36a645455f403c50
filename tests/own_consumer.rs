//! The public test API: put your own consumer through the matrix in a few lines. Here the
//! "user's consumer" wraps the reconciling consumer, as an orchestrator would wrap its own
//! client code behind the `Consumer` trait.

use meshsim_consumer::{BoxFuture, Consumer, Job, JobReport, ReconcilingConsumer};
use meshsim_protocol::Dialect;
use meshsim_scenarios::matrix::builtin_runtimes;
use meshsim_scenarios::{ConsumerChoice, Matrix, Scenario};
use meshsim_sim::TurmoilConnector;

/// A user's consumer: anything that implements `Consumer`.
struct MyOrchestrator {
    inner: ReconcilingConsumer<TurmoilConnector>,
}

impl Consumer for MyOrchestrator {
    fn name(&self) -> &str {
        "my-orchestrator"
    }

    fn run(&self, job: Job) -> BoxFuture<'_, JobReport> {
        self.inner.run(job)
    }
}

#[test]
fn my_consumer_holds_across_the_matrix() {
    let mine = ConsumerChoice::custom("my-orchestrator", |connector, seed| {
        Box::new(MyOrchestrator {
            inner: ReconcilingConsumer::new(connector, Default::default(), seed),
        })
    });
    Matrix::of(
        &[mine],
        &builtin_runtimes(),
        &Scenario::ALL,
        &Dialect::ALL,
        true,
    )
    .seeds(0..2)
    .run()
    .assert_expectations();
}
