//! Runs that once failed, remembered beside the test that found them (as proptest keeps
//! `proptest-regressions/`): `tests/NAME.rs` gets `tests/NAME.meshsim-regressions`, one line
//! per run. A sweep runs the remembered runs of its test that its seed range does not
//! already cover first, so a failure found with `MESHSIM_SEEDS=0..1000` keeps being checked
//! by the default range. Commit the file with the fix; delete a line to forget a run.

use crate::matrix::Matrix;
use crate::run_spec::RunSpec;
use crate::test_caller::TestCaller;
use std::io::Write as _;
use std::path::PathBuf;

const HEADER: &str = "# Runs that failed in a meshsim sweep of the test named on each line; the test runs\n\
# them first, whatever its seed range. Commit this file; delete a line to forget a run.\n";

/// One remembered run.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Remembered {
    test: String,
    seed: u64,
    scenario: String,
    faults: String,
    runtime: String,
    dialect: String,
}

impl Remembered {
    fn of(test: &str, spec: &RunSpec) -> Self {
        Remembered {
            test: test.to_string(),
            seed: spec.seed.value(),
            scenario: spec.scenario.to_string(),
            faults: spec.faults.name().to_string(),
            runtime: spec.runtime.label.clone(),
            dialect: spec.dialect.to_string(),
        }
    }

    fn line(&self) -> String {
        format!(
            "test={} seed={} scenario={} faults={} runtime={} dialect={}",
            self.test, self.seed, self.scenario, self.faults, self.runtime, self.dialect
        )
    }

    /// A line written by [`Remembered::line`]; anything else (comments) is `None`.
    fn parse(line: &str) -> Option<Self> {
        let mut fields = std::collections::BTreeMap::new();
        for pair in line.split_whitespace() {
            let (key, value) = pair.split_once('=')?;
            fields.insert(key, value);
        }
        Some(Remembered {
            test: fields.get("test")?.to_string(),
            seed: fields.get("seed")?.parse().ok()?,
            scenario: fields.get("scenario")?.to_string(),
            faults: fields.get("faults")?.to_string(),
            runtime: fields.get("runtime")?.to_string(),
            dialect: fields.get("dialect")?.to_string(),
        })
    }
}

/// The regressions file of one test source.
#[derive(Debug, Default)]
pub struct Regressions {
    path: Option<PathBuf>,
    remembered: Vec<Remembered>,
}

impl Regressions {
    /// The file beside `caller`'s source (none when the source is not on disk).
    pub fn load(caller: &TestCaller) -> Self {
        let Some(path) = caller
            .source
            .as_ref()
            .map(|source| source.with_extension("meshsim-regressions"))
        else {
            return Regressions::default();
        };
        let remembered = std::fs::read_to_string(&path)
            .map(|text| text.lines().filter_map(Remembered::parse).collect())
            .unwrap_or_default();
        Regressions {
            path: Some(path),
            remembered,
        }
    }

    /// The file's path, if the test has one.
    pub fn path(&self) -> Option<&PathBuf> {
        self.path.as_ref()
    }

    /// The remembered runs of `caller`'s test that fall in a cell of `matrix` but outside
    /// its seed range, as specs of that matrix.
    pub fn specs_in(&self, caller: &TestCaller, matrix: &Matrix) -> Vec<RunSpec> {
        let test = caller.test.as_deref().unwrap_or_default();
        let seeds = matrix.seed_range();
        let cells = matrix.cells();
        self.remembered
            .iter()
            .filter(|run| run.test == test && !seeds.contains(&run.seed))
            .flat_map(|run| {
                cells
                    .iter()
                    .filter(move |cell| {
                        cell.scenario.to_string() == run.scenario
                            && cell.faults.name() == run.faults
                            && cell.runtime.label == run.runtime
                            && cell.dialect.to_string() == run.dialect
                    })
                    .map(move |cell| cell.spec(run.seed, matrix.step()))
            })
            .collect()
    }

    /// Adds the runs of `specs` not yet remembered for `caller`'s test; returns how many
    /// were added, or why the file could not be written.
    pub fn remember<'a>(
        &mut self,
        caller: &TestCaller,
        specs: impl IntoIterator<Item = &'a RunSpec>,
    ) -> Result<usize, String> {
        let (Some(path), Some(test)) = (&self.path, &caller.test) else {
            return Ok(0);
        };
        let new: Vec<Remembered> = specs
            .into_iter()
            .map(|spec| Remembered::of(test, spec))
            .fold(Vec::new(), |mut new, run| {
                if !self.remembered.contains(&run) && !new.contains(&run) {
                    new.push(run);
                }
                new
            });
        if new.is_empty() {
            return Ok(0);
        }
        let fresh = !path.exists();
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|error| format!("cannot open {}: {error}", path.display()))?;
        let mut text = if fresh {
            HEADER.to_string()
        } else {
            String::new()
        };
        for run in &new {
            text.push_str(&run.line());
            text.push('\n');
        }
        file.write_all(text.as_bytes())
            .map_err(|error| format!("cannot write {}: {error}", path.display()))?;
        let added = new.len();
        self.remembered.extend(new);
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_written() {
        let run = Remembered {
            test: "mine".into(),
            seed: 7,
            scenario: "origin-incident".into(),
            faults: "swarm".into(),
            runtime: "go-replaying".into(),
            dialect: "v1.0".into(),
        };
        assert_eq!(Remembered::parse(&run.line()), Some(run));
        assert_eq!(Remembered::parse("# a comment"), None);
    }
}
