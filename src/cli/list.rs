//! `meshsim list`: names what the other subcommands accept: every built-in runtime
//! personality, wire dialect, scenario, consumer and invariant, and the declared
//! expectations the sweep judges runs by.

use meshsim_protocol::{Dialect, Method};
use meshsim_runtimes::builtins;
use meshsim_scenarios::{BUILTIN_CONSUMERS, Expect, Invariant, RULES, Scenario};
use std::process::ExitCode;

pub fn run() -> ExitCode {
    print!("{}", render());
    ExitCode::SUCCESS
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
    out.push_str("dialects (--dialect):\n");
    for dialect in Dialect::ALL {
        let codec = dialect.codec();
        let methods: Vec<&str> = Method::ALL
            .into_iter()
            .filter_map(|method| codec.method_name(method))
            .collect();
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
    out.push_str("expectations (first match decides; `any` matches anything):\n");
    for rule in RULES {
        let expect = match rule.expect {
            Expect::Holds => "holds".to_string(),
            Expect::Violates(invariant) => format!("violates {invariant}"),
            Expect::Unspecified => "unspecified".to_string(),
        };
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
    }
}
