//! What each run is expected to show, declared as data: the sweep compares verdicts with
//! these rules instead of hard-coding outcomes in the runner. The first rule that matches
//! a run decides.

use crate::invariant::Invariant;
use crate::run::{RunResult, Verdict};
use crate::run_spec::RunSpec;
use crate::scenario::Scenario;
use serde::Serialize;

/// An expectation for a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "expect", content = "invariant")]
pub enum Expect {
    /// Every invariant holds.
    Holds,
    /// The run violates this invariant (and possibly others).
    Violates(Invariant),
    /// Nothing is promised either way; the verdict is reported, not judged.
    Unspecified,
}

/// Which runs a rule covers: `None` matches anything.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// A built-in consumer; a user's consumer is matched only by `None`, whatever its name.
    pub consumer: Option<&'static str>,
    pub runtime: Option<&'static str>,
    pub scenario: Option<Scenario>,
    /// Whether the run has swarm faults; `None` matches both.
    pub swarm: Option<bool>,
    pub expect: Expect,
    /// Why, in a sentence, for `meshsim list` and failure messages.
    pub why: &'static str,
}

/// The declared expectations, most specific first.
pub const RULES: &[Rule] = &[
    Rule {
        consumer: Some("reconciling"),
        runtime: None,
        scenario: None,
        swarm: None,
        expect: Expect::Holds,
        why: "the reconciling consumer is the origin note's operational invariant done right: it holds everywhere",
    },
    Rule {
        consumer: Some("naive"),
        runtime: Some("go-replaying"),
        scenario: Some(Scenario::OriginIncident),
        swarm: Some(false),
        expect: Expect::Violates(Invariant::NoDoubleApply),
        why: "go-replaying replays every event on resubscribe: the naive consumer double-counts",
    },
    Rule {
        consumer: Some("naive"),
        runtime: Some("jvm-reaping"),
        scenario: Some(Scenario::OriginIncident),
        swarm: Some(false),
        expect: Expect::Violates(Invariant::ViewMatchesTruth),
        why: "jvm-reaping reaps the task when its stream closes: the naive consumer loses it",
    },
    Rule {
        consumer: Some("naive"),
        runtime: Some("python-correct"),
        scenario: Some(Scenario::OriginIncident),
        swarm: Some(false),
        expect: Expect::Holds,
        why: "against the correct runtime, trusting the Card is enough",
    },
    Rule {
        consumer: Some("naive"),
        runtime: None,
        scenario: None,
        swarm: None,
        expect: Expect::Unspecified,
        why: "the naive consumer is only specified on the origin incident without faults",
    },
    Rule {
        consumer: None,
        runtime: None,
        scenario: None,
        swarm: None,
        expect: Expect::Holds,
        why: "a consumer under test is expected to hold every invariant",
    },
];

impl Rule {
    fn matches(&self, spec: &RunSpec) -> bool {
        self.consumer
            .is_none_or(|name| Some(name) == spec.consumer.builtin_name())
            && self.runtime.is_none_or(|name| name == spec.runtime.label)
            && self
                .scenario
                .is_none_or(|scenario| scenario == spec.scenario)
            && self
                .swarm
                .is_none_or(|swarm| swarm == (spec.faults == crate::run_spec::Faults::Swarm))
    }
}

/// The rule that decides `spec`.
pub fn rule_for(spec: &RunSpec) -> &'static Rule {
    RULES
        .iter()
        .find(|rule| rule.matches(spec))
        .unwrap_or(&RULES[RULES.len() - 1])
}

impl Expect {
    /// Whether a result is what this expectation asks for.
    pub fn is_met_by(self, result: &RunResult) -> bool {
        match self {
            Expect::Holds => result.verdict == Verdict::Holds,
            Expect::Violates(invariant) => result
                .violations
                .iter()
                .any(|violation| violation.invariant == invariant),
            Expect::Unspecified => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catch_all_rule_expects_a_users_consumer_to_hold() {
        let last = RULES.last().unwrap();
        assert!(last.consumer.is_none() && last.runtime.is_none());
        assert_eq!(last.expect, Expect::Holds);
    }

    #[test]
    fn expectations_bind_to_the_consumer_not_to_its_name() {
        use crate::consumer_choice::{ConsumerChoice, sim_client};
        use crate::run_spec::DEFAULT_TICK;
        use crate::run_spec::{Faults, RuntimeChoice};
        let spec = RunSpec {
            seed: meshsim_sim::Seed::new(0),
            scenario: Scenario::OriginIncident,
            runtime: RuntimeChoice::resolve("go-replaying").unwrap(),
            consumer: ConsumerChoice::Naive,
            dialect: meshsim_protocol::Dialect::V1_0,
            faults: Faults::None,
            job_limit: None,
            tick: DEFAULT_TICK,
        };
        assert_eq!(
            rule_for(&spec).expect,
            Expect::Violates(Invariant::NoDoubleApply)
        );
        let users_naive = ConsumerChoice::custom("naive", |connector, seed| {
            meshsim_consumer::NaiveConsumer::new(connector, sim_client(), seed)
        });
        let spec = RunSpec {
            consumer: users_naive,
            ..spec
        };
        assert_eq!(rule_for(&spec).expect, Expect::Holds);
    }
}
