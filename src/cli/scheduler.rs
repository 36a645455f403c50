//! `--shard auto`: which shard of a sweep this process is, read from the environment a
//! fleet scheduler gives each of its tasks. Looked up in this order, the first whose index
//! variable is set deciding:
//!
//! | scheduler | index | count |
//! |---|---|---|
//! | any (the GitHub Actions workflow in `deploy/` sets these from `strategy.job-index` and `strategy.job-total`) | `MESHSIM_SHARD_INDEX` (from 0) | `MESHSIM_SHARD_COUNT` |
//! | Slurm job array (`sbatch --array=A-B`) | `SLURM_ARRAY_TASK_ID` minus `SLURM_ARRAY_TASK_MIN` | `SLURM_ARRAY_TASK_MAX - SLURM_ARRAY_TASK_MIN + 1`, or `SLURM_ARRAY_TASK_COUNT` (then the ids count from 0) |
//! | Kubernetes Indexed Job | `JOB_COMPLETION_INDEX` (set by Kubernetes) | `JOB_COMPLETIONS` (set by the manifest to the Job's `completions`; Kubernetes has no variable for it) |
//! | GitLab CI `parallel: N` | `CI_NODE_INDEX` minus 1 (GitLab counts from 1) | `CI_NODE_TOTAL` |

use crate::cli::shard::Shard;
use std::str::FromStr;

/// `--shard I/N` or `--shard auto` (the shard a fleet scheduler's environment names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardChoice {
    Given(Shard),
    Auto,
}

impl ShardChoice {
    /// The shard, looking `auto` up in the environment (`var`, as `std::env::var`).
    pub fn resolve(self, var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
        match self {
            ShardChoice::Given(shard) => Ok(shard),
            ShardChoice::Auto => shard_from_env(var),
        }
    }
}

impl FromStr for ShardChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "auto" {
            return Ok(ShardChoice::Auto);
        }
        s.parse().map(ShardChoice::Given)
    }
}

/// The shard the environment `var` names (`var` looks a variable up, as `std::env::var`
/// does), or one line saying why there is none.
pub fn shard_from_env(var: impl Fn(&str) -> Option<String>) -> Result<Shard, String> {
    let number = |name: &str| -> Result<Option<u64>, String> {
        match var(name) {
            None => Ok(None),
            Some(text) => text
                .trim()
                .parse::<u64>()
                .map(Some)
                .map_err(|_| format!("--shard auto: {name}={text:?} is not a whole number")),
        }
    };
    let required = |name: &str, because: &str| -> Result<u64, String> {
        number(name)?.ok_or_else(|| format!("--shard auto: {because} is set but {name} is not"))
    };
    let shard = |scheduler: &str, index: u64, count: u64| -> Result<Shard, String> {
        if count == 0 || index >= count {
            return Err(format!(
                "--shard auto: {scheduler} names shard {index} of {count} (I counts from 0 and must be below N)"
            ));
        }
        Ok(Shard { index, count })
    };

    if let Some(index) = number("MESHSIM_SHARD_INDEX")? {
        let count = required("MESHSIM_SHARD_COUNT", "MESHSIM_SHARD_INDEX")?;
        return shard("MESHSIM_SHARD_INDEX/COUNT", index, count);
    }
    if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        return slurm_shard(
            id,
            number("SLURM_ARRAY_TASK_MIN")?,
            number("SLURM_ARRAY_TASK_MAX")?,
            number("SLURM_ARRAY_TASK_COUNT")?,
        )
        .and_then(|(index, count)| shard("the Slurm job array", index, count));
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let count = required(
            "JOB_COMPLETIONS",
            "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job; set JOB_COMPLETIONS to the Job's completions)",
        )?;
        return shard("the Kubernetes Indexed Job", index, count);
    }
    if let Some(node) = number("CI_NODE_INDEX")? {
        let count = required("CI_NODE_TOTAL", "CI_NODE_INDEX")?;
        let index = node.checked_sub(1).ok_or(
            "--shard auto: CI_NODE_INDEX is 0, but GitLab counts its parallel jobs from 1",
        )?;
        return shard("GitLab's parallel jobs", index, count);
    }
    Err(
        "--shard auto: no scheduler's shard variables are set (Slurm SLURM_ARRAY_TASK_ID, \
         Kubernetes JOB_COMPLETION_INDEX with JOB_COMPLETIONS, GitLab CI_NODE_INDEX with \
         CI_NODE_TOTAL, or MESHSIM_SHARD_INDEX with MESHSIM_SHARD_COUNT)"
            .to_string(),
    )
}

/// A Slurm array task's (index, count): by its id's place between the array's first and
/// last id, or, without those, by the id and the task count. An array with a step or gaps
/// (`--array=0-9:2`, `--array=1,5`) has ids that are not a contiguous run and is refused.
fn slurm_shard(
    id: u64,
    min: Option<u64>,
    max: Option<u64>,
    task_count: Option<u64>,
) -> Result<(u64, u64), String> {
    match (min, max) {
        (Some(min), Some(max)) if min <= id && id <= max => {
            let span = max - min + 1;
            if task_count.is_some_and(|count| count != span) {
                return Err(format!(
                    "--shard auto: the Slurm array's ids {min}-{max} are not contiguous \
                     (SLURM_ARRAY_TASK_COUNT is {}); use --array={min}-{max} without a step",
                    task_count.unwrap_or_default()
                ));
            }
            Ok((id - min, span))
        }
        (Some(min), Some(max)) => Err(format!(
            "--shard auto: SLURM_ARRAY_TASK_ID {id} lies outside the array's ids {min}-{max}"
        )),
        _ => task_count.map(|count| (id, count)).ok_or_else(|| {
            "--shard auto: SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_MIN and \
             SLURM_ARRAY_TASK_MAX nor SLURM_ARRAY_TASK_COUNT is"
                .to_string()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn shard_with(vars: &[(&str, &str)]) -> Result<Shard, String> {
        let vars: BTreeMap<String, String> = vars
            .iter()
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect();
        shard_from_env(|name| vars.get(name).cloned())
    }

    fn shard(index: u64, count: u64) -> Result<Shard, String> {
        Ok(Shard { index, count })
    }

    #[test]
    fn slurm_arrays_by_min_and_max_or_by_count() {
        let array_1_to_4 = [
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(shard_with(&array_1_to_4), shard(2, 4));
        assert_eq!(
            shard_with(&[
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "4")
            ]),
            shard(0, 4)
        );
        let stepped = [
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "6"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert!(shard_with(&stepped).unwrap_err().contains("not contiguous"));
        assert!(
            shard_with(&[("SLURM_ARRAY_TASK_ID", "2")])
                .unwrap_err()
                .contains("SLURM_ARRAY_TASK_COUNT")
        );
    }

    #[test]
    fn kubernetes_indexed_jobs_need_the_completions_count() {
        assert_eq!(
            shard_with(&[("JOB_COMPLETION_INDEX", "3"), ("JOB_COMPLETIONS", "4")]),
            shard(3, 4)
        );
        assert!(
            shard_with(&[("JOB_COMPLETION_INDEX", "3")])
                .unwrap_err()
                .contains("JOB_COMPLETIONS is not")
        );
        assert!(
            shard_with(&[("JOB_COMPLETION_INDEX", "4"), ("JOB_COMPLETIONS", "4")])
                .unwrap_err()
                .contains("shard 4 of 4")
        );
    }

    #[test]
    fn ci_matrices_gitlab_counting_from_one_and_the_explicit_pair() {
        assert_eq!(
            shard_with(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "4")]),
            shard(0, 4)
        );
        assert!(
            shard_with(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "4")])
                .unwrap_err()
                .contains("from 1")
        );
        assert_eq!(
            shard_with(&[("MESHSIM_SHARD_INDEX", "2"), ("MESHSIM_SHARD_COUNT", "3")]),
            shard(2, 3)
        );
        // The explicit pair wins over a scheduler's own variables.
        assert_eq!(
            shard_with(&[
                ("MESHSIM_SHARD_INDEX", "1"),
                ("MESHSIM_SHARD_COUNT", "2"),
                ("SLURM_ARRAY_TASK_ID", "0"),
                ("SLURM_ARRAY_TASK_COUNT", "8"),
            ]),
            shard(1, 2)
        );
    }

    #[test]
    fn nothing_set_or_garbage_is_a_clear_error() {
        let none = shard_with(&[]).unwrap_err();
        assert!(
            none.contains("no scheduler's shard variables are set"),
            "{none}"
        );
        assert!(none.contains("SLURM_ARRAY_TASK_ID") && none.contains("JOB_COMPLETION_INDEX"));
        assert!(
            shard_with(&[("SLURM_ARRAY_TASK_ID", "x")])
                .unwrap_err()
                .contains("not a whole number")
        );
    }
}
