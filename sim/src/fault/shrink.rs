//! Shrinking a failing fault plan: delta debugging over the list of faults. Drops ever
//! smaller chunks of faults while the run still fails, until no single fault can be dropped
//! (the result is 1-minimal). Dropping an undo (a repair, a bounce) is a legal move: the heal
//! phase repairs whatever the plan leaves broken.

use super::FaultPlan;

/// The smallest plan found for which `still_fails` holds, and how many runs it took.
/// If `plan` itself does not fail it is returned unchanged.
pub fn shrink_plan(
    plan: &FaultPlan,
    mut still_fails: impl FnMut(&FaultPlan) -> bool,
) -> (FaultPlan, usize) {
    let mut runs = 1;
    if !still_fails(plan) {
        return (plan.clone(), runs);
    }
    let mut faults = plan.faults.clone();
    let mut chunk = (faults.len() / 2).max(1);
    loop {
        let mut start = 0;
        let mut progressed = false;
        while start < faults.len() {
            let end = (start + chunk).min(faults.len());
            let mut candidate = faults[..start].to_vec();
            candidate.extend_from_slice(&faults[end..]);
            runs += 1;
            if still_fails(&FaultPlan::new(candidate.clone())) {
                faults = candidate;
                progressed = true;
            } else {
                start = end;
            }
        }
        if chunk > 1 {
            chunk = (chunk / 2).max(1);
        } else if !progressed {
            return (FaultPlan::new(faults), runs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::{Fault, TimedFault};

    fn hook(at_ms: u64, name: &str) -> TimedFault {
        TimedFault::new(at_ms, Fault::Hook { name: name.into() })
    }

    fn names(plan: &FaultPlan) -> Vec<String> {
        plan.faults
            .iter()
            .map(|f| match &f.fault {
                Fault::Hook { name } => name.clone(),
                other => other.kind().to_string(),
            })
            .collect()
    }

    #[test]
    fn keeps_exactly_the_faults_the_failure_needs() {
        let plan = FaultPlan::new((0..20).map(|i| hook(i, &format!("h{i}"))).collect());
        let needs = |p: &FaultPlan| {
            let n = names(p);
            n.contains(&"h3".to_string()) && n.contains(&"h17".to_string())
        };
        let (shrunk, runs) = shrink_plan(&plan, needs);
        assert_eq!(names(&shrunk), ["h3", "h17"]);
        assert!(runs < 60, "{runs} runs");
    }

    #[test]
    fn a_plan_that_does_not_fail_is_returned_as_is() {
        let plan = FaultPlan::new(vec![hook(1, "a")]);
        assert_eq!(shrink_plan(&plan, |_| false), (plan, 1));
    }

    #[test]
    fn a_failure_needing_no_fault_shrinks_to_the_empty_plan() {
        let plan = FaultPlan::new(vec![hook(1, "a"), hook(2, "b"), hook(3, "c")]);
        assert_eq!(shrink_plan(&plan, |_| true).0, FaultPlan::none());
    }
}
