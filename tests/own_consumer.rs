//! The public test API: put your own consumer through the matrix in a few lines. Here the
//! "user's consumer" wraps the reconciling consumer, as an orchestrator would wrap its own
//! client code behind the `Consumer` trait.

use meshsim_consumer::{
    BoxFuture, Consumer, Job, JobReport, ReconcilingConfig, ReconcilingConsumer,
};
use meshsim_protocol::Dialect;
use meshsim_scenarios::matrix::builtin_runtimes;
use meshsim_scenarios::{ConsumerChoice, Matrix, Scenario, sim_client};
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
        // Timeouts that fit the 30 s liveness bound: with the real-network defaults (60 s
        // idle) a stream held silent by a fault outlives the bound, and the oracle says so.
        let config = ReconcilingConfig {
            client: sim_client(),
            ..ReconcilingConfig::default()
        };
        Box::new(MyOrchestrator {
            inner: ReconcilingConsumer::new(connector, config, seed),
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
