//! The origin incident's five steps against each of its three runtimes in each dialect, in process
//! (tokio's paused clock fast-forwards the work durations).

use crate::support;
use crate::support::{Client, Target};
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Runtime, builtin};
use std::time::Duration;

async fn play(name: &str, dialect: Dialect) {
    let personality = builtin(name).unwrap();
    let runtime = Runtime::new(
        personality,
        dialect,
        Clock::fixed(Duration::from_secs(1_800_000_000)),
        7,
    );
    let truth = runtime.truth();
    let client = Client::new(Target::Router(runtime.router()), dialect);
    support::incident::play(&client, name, Some(&truth)).await;
}

macro_rules! seed_step_tests {
    ($($test:ident: $name:literal, $dialect:expr;)*) => {$(
        #[tokio::test(start_paused = true)]
        async fn $test() {
            play($name, $dialect).await;
        }
    )*};
}

seed_step_tests! {
    python_correct_v0_1: "python-correct", Dialect::V0_1;
    python_correct_v0_3: "python-correct", Dialect::V0_3;
    python_correct_v1_0: "python-correct", Dialect::V1_0;
    go_replaying_v0_1: "go-replaying", Dialect::V0_1;
    go_replaying_v0_3: "go-replaying", Dialect::V0_3;
    go_replaying_v1_0: "go-replaying", Dialect::V1_0;
    jvm_reaping_v0_1: "jvm-reaping", Dialect::V0_1;
    jvm_reaping_v0_3: "jvm-reaping", Dialect::V0_3;
    jvm_reaping_v1_0: "jvm-reaping", Dialect::V1_0;
}
