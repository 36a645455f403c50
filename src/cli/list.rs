//! `meshsim list`: names what the other subcommands accept: every built-in runtime
//! personality (and the swarm), wire dialect, scenario, consumer and invariant, the rules
//! by which a job is impossible, and the declared expectations the sweep judges runs by;
//! with `--json`, the same as one JSON object.

use crate::cli::output;
use clap::Args;
use meshsim_protocol::{Dialect, Method};
use meshsim_runtimes::builtins;
use meshsim_scenarios::IMPOSSIBLE_RULES;
use meshsim_scenarios::{
    BUILTIN_CONSUMERS, Expect, Invariant, RULES, Rule, SWARM_RUNTIME, Scenario,
};
use serde_json::{Value, json};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Write one JSON object (runtimes, dialects, scenarios, consumers, invariants,
    /// expectations) instead of the text.
    #[arg(long)]
    json: bool,
}

pub fn run(args: ListArgs) -> ExitCode {
    if args.json {
        output::print_line(&render_json().to_string());
    } else {
        output::print(&render());
    }
    ExitCode::SUCCESS
}

/// The methods `dialect` names, in the order of [`Method::ALL`].
fn method_names(dialect: Dialect) -> Vec<&'static str> {
    let codec = dialect.codec();
    Method::ALL
        .into_iter()
        .filter_map(|method| codec.method_name(method))
        .collect()
}

/// What a rule expects, as `meshsim list` words it.
fn expectation(rule: &Rule) -> String {
    match rule.expect {
        Expect::Holds => "holds".to_string(),
        Expect::Violates(invariant) => format!("violates {invariant}"),
        Expect::Unspecified => "unspecified".to_string(),
    }
}

fn render_json() -> Value {
    json!({
        "runtimes": builtins().iter().map(|personality| json!({
            "name": personality.name,
            "description": personality.description,
        })).collect::<Vec<_>>(),
        "dialects": Dialect::ALL.into_iter().map(|dialect| json!({
            "name": dialect.name(),
            "card_path": dialect.card_path(),
            "methods": method_names(dialect),
        })).collect::<Vec<_>>(),
        "scenarios": Scenario::ALL.into_iter().map(|scenario| json!({
            "name": scenario.name(),
            "summary": scenario.summary(),
        })).collect::<Vec<_>>(),
        "consumers": BUILTIN_CONSUMERS,
        "invariants": Invariant::ALL.into_iter().map(|invariant| json!({
            "name": invariant.name(),
            "description": invariant.description(),
        })).collect::<Vec<_>>(),
        "expectations": RULES.iter().map(|rule| json!({
            "consumer": rule.consumer,
            "runtime": rule.runtime,
            "scenario": rule.scenario.map(Scenario::name),
            "swarm": rule.swarm,
            "expect": expectation(rule),
            "why": rule.why,
        })).collect::<Vec<_>>(),
    })
}

fn render() -> String {
    let mut out = String::from("runtimes (--runtime NAME, or the path of a personality file):\n");
    let personalities = builtins();
    let width = personalities
        .iter()
        .map(|p| p.name.len())
        .max()
        .unwrap_or(0);
    for personality in &personalities {
        out.push_str(&format!(
            "  {:width$}  {}\n",
            personality.name, personality.description
        ));
    }
    out.push_str(&format!(
        "  {:width$}  every seed draws a whole personality from the knob space (replay prints it as a file)\n",
        SWARM_RUNTIME
    ));
    out.push_str("dialects (--dialect):\n");
    for dialect in Dialect::ALL {
        let methods = method_names(dialect);
        out.push_str(&format!(
            "  {}  card at {}; methods {}\n",
            dialect,
            dialect.card_path(),
            methods.join(", ")
        ));
    }
    out.push_str("scenarios (--scenario):\n");
    for scenario in Scenario::ALL {
        out.push_str(&format!(
            "  {:28}  {}\n",
            scenario.name(),
            scenario.summary()
        ));
    }
    out.push_str(&format!(
        "consumers (--consumer): {}\n",
        BUILTIN_CONSUMERS.join(", ")
    ));
    out.push_str("invariants (checked by the oracle on every run):\n");
    for invariant in Invariant::ALL {
        out.push_str(&format!(
            "  {:24}  {}\n",
            invariant.name(),
            invariant.description()
        ));
    }
    out.push_str(
        "impossible jobs (no consumer can finish them: a clean give-up, with a reason, nothing applied twice \
         and every task it could cancel canceled, holds; a cancel the peer refused is named as the peer's doing):\n",
    );
    for rule in IMPOSSIBLE_RULES {
        out.push_str(&format!("  {:24}  {}\n", rule.name, rule.rule));
    }
    out.push_str("expectations (first match decides; `any` matches anything):\n");
    for rule in RULES {
        let expect = expectation(rule);
        let faults = match rule.swarm {
            Some(true) => "swarm faults",
            Some(false) => "no faults",
            None => "any faults",
        };
        out.push_str(&format!(
            "  consumer {} / runtime {} / scenario {} / {faults}: {expect}\n      {}\n",
            rule.consumer.unwrap_or("any"),
            rule.runtime.unwrap_or("any"),
            rule.scenario.map_or("any", Scenario::name),
            rule.why
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_builtin_and_dialect() {
        let text = render();
        for name in meshsim_runtimes::BUILTIN_NAMES {
            assert!(
                text.contains(&format!("  {name} ")),
                "{name} missing from\n{text}"
            );
        }
        for dialect in Dialect::ALL {
            assert!(
                text.contains(&format!("  {dialect}  ")),
                "{dialect} missing"
            );
        }
        for scenario in Scenario::ALL {
            assert!(
                text.contains(&format!("  {scenario} ")),
                "{scenario} missing"
            );
        }
        for invariant in Invariant::ALL {
            assert!(
                text.contains(&format!("  {invariant} ")),
                "{invariant} missing"
            );
        }
        assert!(text.contains("naive, reconciling"));
        assert!(text.contains(&format!("  {SWARM_RUNTIME} ")));
        for rule in IMPOSSIBLE_RULES {
            assert!(text.contains(&format!("  {} ", rule.name)), "{}", rule.name);
        }
    }

    #[test]
    fn the_json_names_what_the_text_names() {
        let value = render_json();
        let names = |key: &str| -> Vec<String> {
            value[key]
                .as_array()
                .unwrap_or_else(|| panic!("{key} is a list"))
                .iter()
                .map(|entry| entry["name"].as_str().expect("a name").to_string())
                .collect()
        };
        assert_eq!(names("runtimes"), meshsim_runtimes::BUILTIN_NAMES.to_vec());
        assert_eq!(names("dialects"), ["v0.1", "v0.3", "v1.0"]);
        assert_eq!(names("scenarios").len(), Scenario::ALL.len());
        assert_eq!(names("invariants").len(), Invariant::ALL.len());
        assert_eq!(
            value["expectations"].as_array().map(Vec::len),
            Some(RULES.len())
        );
        assert_eq!(value["consumers"], json!(BUILTIN_CONSUMERS));
    }
}
