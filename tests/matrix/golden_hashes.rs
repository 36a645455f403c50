//! Golden trace hashes: a small table of runs (seed, scenario, runtime, consumer, dialect,
//! faults) and the trace hash each must give, in `tests/matrix/golden_hashes.tsv`. Any change
//! to what a run does or records (a runtime, a consumer, the network, the trace format, a
//! dependency's behaviour) changes a hash and fails here. When the change is deliberate,
//! rewrite the table with `MESHSIM_BLESS=1 cargo test --test matrix golden` and commit it
//! with the change that explains it.

use meshsim_scenarios::{
    ConsumerChoice, DEFAULT_TICK, Faults, RunOptions, RunSpec, RuntimeChoice, run,
};
use meshsim_sim::Seed;

const TABLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/matrix/golden_hashes.tsv"
);

/// The runs the table pins: every seed runtime, both consumers, every dialect, with and
/// without swarm faults, over a few scenarios.
const RUNS: &[(u64, &str, &str, &str, &str, &str)] = &[
    (
        7,
        "origin-incident",
        "go-replaying",
        "naive",
        "v1.0",
        "none",
    ),
    (7, "origin-incident", "jvm-reaping", "naive", "v0.3", "none"),
    (
        7,
        "origin-incident",
        "python-correct",
        "reconciling",
        "v0.1",
        "none",
    ),
    (
        3,
        "origin-incident",
        "jvm-reaping",
        "naive",
        "v1.0",
        "swarm",
    ),
    (
        11,
        "origin-incident",
        "go-replaying",
        "reconciling",
        "v0.3",
        "swarm",
    ),
    (
        5,
        "origin-incident",
        "a2a-js-1.3",
        "reconciling",
        "v1.0",
        "swarm",
    ),
];

const HEADER: &str = "# seed\tscenario\truntime\tconsumer\tdialect\tfaults\ttrace_hash";

fn spec(run: &(u64, &str, &str, &str, &str, &str)) -> RunSpec {
    let (seed, scenario, runtime, consumer, dialect, faults) = *run;
    RunSpec {
        seed: Seed::new(seed),
        scenario: scenario.parse().expect("a scenario"),
        runtime: RuntimeChoice::resolve(runtime).expect("a built-in runtime"),
        consumer: ConsumerChoice::builtin(consumer).expect("a built-in consumer"),
        dialect: dialect.parse().expect("a dialect"),
        faults: if faults == "swarm" {
            Faults::Swarm
        } else {
            Faults::None
        },
        job_limit: None,
        tick: DEFAULT_TICK,
    }
}

/// The table as it should read now.
fn current_table() -> String {
    let mut table = format!("{HEADER}\n");
    for entry in RUNS {
        let result = run(&spec(entry), &RunOptions::default()).expect("the run is carried out");
        let (seed, scenario, runtime, consumer, dialect, faults) = entry;
        table.push_str(&format!(
            "{seed}\t{scenario}\t{runtime}\t{consumer}\t{dialect}\t{faults}\t{}\n",
            result.trace_hash
        ));
    }
    table
}

#[test]
fn golden_trace_hashes_are_unchanged() {
    let now = current_table();
    if std::env::var_os("MESHSIM_BLESS").is_some() {
        std::fs::write(TABLE, &now).expect("write the golden table");
        return;
    }
    let pinned = std::fs::read_to_string(TABLE).unwrap_or_default();
    let changed: Vec<String> = now
        .lines()
        .zip(pinned.lines().chain(std::iter::repeat("(missing)")))
        .filter(|(new, old)| new != old)
        .map(|(new, old)| format!("  pinned: {old}\n  now:    {new}"))
        .collect();
    assert!(
        changed.is_empty() && now.lines().count() == pinned.lines().count(),
        "trace hashes changed (if deliberate: MESHSIM_BLESS=1 cargo test --test matrix golden, \
         and commit tests/matrix/golden_hashes.tsv):\n{}",
        changed.join("\n")
    );
}
