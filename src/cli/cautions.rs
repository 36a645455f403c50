//! Before a command judges runs against a runtime whose personality sets knob values
//! outside the space the swarm draws from, it says so on standard error: there a verdict
//! may blame the consumer for what no consumer could do (`meshsim_scenarios::judgeable`,
//! docs/personalities.md). The runs still go ahead; a researcher may want exactly that
//! runtime.

use meshsim_scenarios::RuntimeChoice;
use meshsim_scenarios::judgeable::cautions;

/// Names, for `meshsim COMMAND`, each runtime outside the judgeable space and its knob
/// values there. Drawn (`swarm`) runtimes are always inside it.
pub fn say<'a>(command: &str, runtimes: impl IntoIterator<Item = &'a RuntimeChoice>) {
    for runtime in runtimes {
        if runtime.drawn {
            continue;
        }
        let cautions = cautions(&runtime.personality);
        if cautions.is_empty() {
            continue;
        }
        eprintln!(
            "meshsim {command}: caution: runtime {} sets knobs outside the space the swarm \
             draws from, where a verdict may blame the consumer for what no consumer could do \
             (docs/personalities.md):",
            runtime.label
        );
        for caution in cautions {
            eprintln!("  - {caution}");
        }
    }
}
