//! The environment a test's sweep reads, as proptest and madsim users expect:
//! `MESHSIM_SEED=N` runs that one seed, `MESHSIM_SEEDS=A..B` widens or narrows the range,
//! and `MESHSIM_RUNTIME`, `MESHSIM_SCENARIO`, `MESHSIM_DIALECT`, `MESHSIM_FAULTS` narrow the
//! cells to one value each. A rerun line sets them all, so that it makes exactly one run.

use crate::matrix::Matrix;
use crate::run_spec::Faults;
use crate::scenario::Scenario;
use meshsim_protocol::Dialect;
use meshsim_sim::Seed;
use std::ops::Range;

/// What the environment asks of a sweep.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TestEnv {
    pub seeds: Option<Range<u64>>,
    pub runtime: Option<String>,
    pub scenario: Option<Scenario>,
    pub dialect: Option<Dialect>,
    pub faults: Option<Faults>,
}

impl TestEnv {
    /// Reads the process environment; a value that does not parse is an error naming it.
    pub fn from_env() -> Result<Self, String> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// Reads the variables through `lookup` (the environment, or a test's map).
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Self, String> {
        let read = |name: &str| lookup(name).filter(|value| !value.trim().is_empty());
        let seeds = match (read("MESHSIM_SEED"), read("MESHSIM_SEEDS")) {
            (Some(_), Some(_)) => {
                return Err("set MESHSIM_SEED or MESHSIM_SEEDS, not both".to_string());
            }
            (Some(seed), None) => {
                let seed = seed
                    .trim()
                    .parse::<Seed>()
                    .map_err(|error| format!("MESHSIM_SEED=`{seed}`: {error}"))?
                    .value();
                Some(seed..seed.saturating_add(1))
            }
            (None, Some(range)) => Some(
                parse_seed_range(range.trim())
                    .map_err(|error| format!("MESHSIM_SEEDS: {error}"))?,
            ),
            (None, None) => None,
        };
        let scenario = read("MESHSIM_SCENARIO")
            .map(|name| {
                name.trim()
                    .parse::<Scenario>()
                    .map_err(|error| format!("MESHSIM_SCENARIO: {error}"))
            })
            .transpose()?;
        let dialect = read("MESHSIM_DIALECT")
            .map(|name| {
                name.trim()
                    .parse::<Dialect>()
                    .map_err(|error| format!("MESHSIM_DIALECT: {error}"))
            })
            .transpose()?;
        let faults = read("MESHSIM_FAULTS")
            .map(|name| match name.trim() {
                "none" => Ok(Faults::None),
                "swarm" => Ok(Faults::Swarm),
                other => Err(format!(
                    "MESHSIM_FAULTS=`{other}`: expected `none` or `swarm`"
                )),
            })
            .transpose()?;
        Ok(TestEnv {
            seeds,
            runtime: read("MESHSIM_RUNTIME").map(|name| name.trim().to_string()),
            scenario,
            dialect,
            faults,
        })
    }

    /// `matrix` narrowed (or, for seeds, replaced) as asked. Narrowing to a value the
    /// matrix does not hold is an error that says which values it holds.
    pub fn apply(&self, matrix: Matrix) -> Result<Matrix, String> {
        let mut matrix = match &self.seeds {
            Some(seeds) => matrix.seeds(seeds.clone()),
            None => matrix,
        };
        if let Some(label) = &self.runtime {
            let known = matrix.runtime_labels();
            if !known.contains(label) {
                return Err(format!(
                    "MESHSIM_RUNTIME=`{label}` is not a runtime of this matrix ({})",
                    known.join(", ")
                ));
            }
            matrix = matrix.only_runtime(label);
        }
        if let Some(scenario) = self.scenario {
            matrix = matrix.only_scenario(scenario);
        }
        if let Some(dialect) = self.dialect {
            matrix = matrix.only_dialect(dialect);
        }
        if let Some(faults) = &self.faults {
            matrix = matrix.only_faults(faults);
        }
        if matrix.cells().is_empty() {
            return Err(format!(
                "the environment ({}) leaves no cell of this matrix to run",
                self.describe()
            ));
        }
        Ok(matrix)
    }

    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(seeds) = &self.seeds {
            parts.push(format!("seeds {}..{}", seeds.start, seeds.end));
        }
        if let Some(runtime) = &self.runtime {
            parts.push(format!("MESHSIM_RUNTIME={runtime}"));
        }
        if let Some(scenario) = self.scenario {
            parts.push(format!("MESHSIM_SCENARIO={scenario}"));
        }
        if let Some(dialect) = self.dialect {
            parts.push(format!("MESHSIM_DIALECT={dialect}"));
        }
        if let Some(faults) = &self.faults {
            parts.push(format!("MESHSIM_FAULTS={}", faults.name()));
        }
        parts.join(", ")
    }
}

/// `A..B`: the seeds from A up to, not including, B (A below B).
pub fn parse_seed_range(text: &str) -> Result<Range<u64>, String> {
    let (start, end) = text
        .split_once("..")
        .ok_or_else(|| format!("seed range `{text}` is not of the form A..B"))?;
    let parse = |part: &str| {
        part.parse::<Seed>()
            .map(Seed::value)
            .map_err(|error| format!("seed range `{text}`: {error}"))
    };
    let (start, end) = (parse(start)?, parse(end)?);
    if start >= end {
        return Err(format!("seed range `{text}` is empty (A must be below B)"));
    }
    Ok(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn env(pairs: &[(&str, &str)]) -> Result<TestEnv, String> {
        let map: BTreeMap<String, String> = pairs
            .iter()
            .map(|(key, value)| (key.to_string(), value.to_string()))
            .collect();
        TestEnv::from_lookup(|name| map.get(name).cloned())
    }

    fn users_matrix() -> Matrix {
        Matrix::for_consumer(crate::ConsumerChoice::Reconciling)
    }

    #[test]
    fn one_seed_or_a_range_replaces_the_seeds() {
        let seed = env(&[("MESHSIM_SEED", "7")]).unwrap();
        assert_eq!(seed.apply(users_matrix()).unwrap().seed_range(), 7..8);
        let range = env(&[("MESHSIM_SEEDS", "0..50")]).unwrap();
        assert_eq!(range.apply(users_matrix()).unwrap().seed_range(), 0..50);
        assert_eq!(
            env(&[])
                .unwrap()
                .apply(users_matrix())
                .unwrap()
                .seed_range(),
            0..3
        );
    }

    #[test]
    fn a_rerun_line_narrows_to_one_cell() {
        let one = env(&[
            ("MESHSIM_SEED", "7"),
            ("MESHSIM_RUNTIME", "go-replaying"),
            ("MESHSIM_SCENARIO", "origin-incident"),
            ("MESHSIM_DIALECT", "v0.1"),
            ("MESHSIM_FAULTS", "none"),
        ])
        .unwrap()
        .apply(users_matrix())
        .unwrap();
        let cells = one.cells();
        assert_eq!(cells.len(), 1);
        assert_eq!(cells[0].runtime.label, "go-replaying");
        assert_eq!(cells[0].dialect, Dialect::V0_1);
        assert_eq!(cells[0].faults, Faults::None);
        assert_eq!(one.len(), 1);
    }

    #[test]
    fn bad_values_are_errors_that_name_the_variable() {
        for (pairs, named) in [
            (vec![("MESHSIM_SEED", "seven")], "MESHSIM_SEED"),
            (vec![("MESHSIM_SEEDS", "5..2")], "MESHSIM_SEEDS"),
            (vec![("MESHSIM_DIALECT", "v9")], "MESHSIM_DIALECT"),
            (vec![("MESHSIM_FAULTS", "some")], "MESHSIM_FAULTS"),
            (
                vec![("MESHSIM_SEED", "1"), ("MESHSIM_SEEDS", "0..2")],
                "MESHSIM_SEEDS",
            ),
        ] {
            let error = env(&pairs).unwrap_err();
            assert!(error.contains(named), "{error}");
        }
        let error = env(&[("MESHSIM_RUNTIME", "no-such")])
            .unwrap()
            .apply(users_matrix())
            .unwrap_err();
        assert!(
            error.contains("no-such") && error.contains("go-replaying"),
            "{error}"
        );
    }
}
