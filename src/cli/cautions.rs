//! Before a command judges runs against a runtime whose personality sets knob values
//! outside the space the swarm draws from, it says so on standard error: there a verdict
//! may blame the consumer for what no consumer could do (`meshsim_scenarios::judgeable`,
//! docs/personalities.md). The runs still go ahead; a researcher may want exactly that
//! runtime. With `--json` the same cautions are in the output too (`"cautions"`), so that a
//! script reading it learns what a person reading the terminal does.

use std::collections::BTreeMap;

use meshsim_scenarios::RuntimeChoice;
use meshsim_scenarios::judgeable::cautions;

/// Each runtime outside the judgeable space, by its label, with each of its knob values
/// there in words.
pub type Cautions = BTreeMap<String, Vec<String>>;

/// Names, for `meshsim COMMAND`, each runtime outside the judgeable space and its knob
/// values there, and returns them for the command's `--json` output. Drawn (`swarm`)
/// runtimes are always inside it.
pub fn say<'a>(command: &str, runtimes: impl IntoIterator<Item = &'a RuntimeChoice>) -> Cautions {
    let mut said = Cautions::new();
    for runtime in runtimes {
        if runtime.drawn {
            continue;
        }
        let cautions = cautions(&runtime.personality);
        if cautions.is_empty() || said.contains_key(&runtime.label) {
            continue;
        }
        eprintln!(
            "meshsim {command}: caution: runtime {} sets knobs outside the space the swarm \
             draws from, where a verdict may blame the consumer for what no consumer could do \
             (docs/personalities.md):",
            runtime.label
        );
        for caution in &cautions {
            eprintln!("  - {caution}");
        }
        said.insert(runtime.label.clone(), cautions);
    }
    said
}

/// Adds `cautions` to a JSON object under `"cautions"`, when there are any.
pub fn add_to(object: &mut serde_json::Value, cautions: &Cautions) {
    if !cautions.is_empty() {
        object["cautions"] = serde_json::json!(cautions);
    }
}
