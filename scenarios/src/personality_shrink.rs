//! Shrinking a personality toward the spec-correct defaults, knob by knob: each knob that
//! differs from its default is set back to it, and the change is kept when the run still
//! fails the same way. What is left is the smallest file that reproduces the failure: the
//! knobs that matter.

use meshsim_runtimes::Personality;
use serde_json::Value;

/// Fields that are labels, not behaviour: never shrunk.
const LABELS: [&str; 2] = ["name", "description"];
/// Fields whose members are knobs of their own (`cancel.working`, `work.max_ms`).
const GROUPS: [&str; 4] = ["card", "work", "opening", "cancel"];
/// Members of a group that are labels.
const GROUP_LABELS: [&str; 2] = ["name", "description"];

/// The personality with every knob set back to its default that `still_fails` allows, and
/// how many candidates were tried. `still_fails` runs the candidate; the result keeps the
/// failure as long as `still_fails(personality)` held.
pub fn shrink_personality(
    personality: &Personality,
    mut still_fails: impl FnMut(&Personality) -> bool,
) -> (Personality, usize) {
    let defaults = to_value(&Personality::default());
    let mut current = personality.clone();
    let mut tried = 0;
    // A knob set back can let another one go that could not before: repeat until a pass
    // changes nothing (each pass only removes differences, so this ends).
    loop {
        let mut changed = false;
        for path in differing_knobs(&to_value(&current), &defaults) {
            let Some(candidate) = with_default(&current, &defaults, &path) else {
                continue;
            };
            tried += 1;
            if still_fails(&candidate) {
                current = candidate;
                changed = true;
            }
        }
        if !changed {
            return (current, tried);
        }
    }
}

/// The knobs (as paths) on which `current` differs from `defaults`, in file order.
fn differing_knobs(current: &Value, defaults: &Value) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let (Some(current), Some(defaults)) = (current.as_object(), defaults.as_object()) else {
        return paths;
    };
    for (field, value) in current {
        if LABELS.contains(&field.as_str()) || defaults.get(field) == Some(value) {
            continue;
        }
        match (
            value.as_object(),
            defaults.get(field).and_then(Value::as_object),
        ) {
            (Some(members), Some(default_members)) if GROUPS.contains(&field.as_str()) => {
                for (member, member_value) in members {
                    if GROUP_LABELS.contains(&member.as_str())
                        || default_members.get(member) == Some(member_value)
                    {
                        continue;
                    }
                    paths.push(vec![field.clone(), member.clone()]);
                }
            }
            _ => paths.push(vec![field.clone()]),
        }
    }
    paths
}

/// `current` with the knob at `path` set to its default, if that is a valid personality
/// (setting `work.min_ms` back can put it above `work.max_ms`).
fn with_default(current: &Personality, defaults: &Value, path: &[String]) -> Option<Personality> {
    let mut value = to_value(current);
    let mut target = &mut value;
    let mut default = defaults;
    for step in path {
        target = target.get_mut(step)?;
        default = default.get(step)?;
    }
    *target = default.clone();
    Personality::from_json(&value.to_string(), "shrink candidate").ok()
}

fn to_value(personality: &Personality) -> Value {
    serde_json::to_value(personality).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_runtimes::{CancelOutcome, FollowUp, Reaping};

    fn odd() -> Personality {
        let mut personality = Personality {
            name: "odd".to_string(),
            follow_up: FollowUp::NewTask,
            reaping: Reaping::Ttl { after_ms: 700 },
            keep_alive_ms: Some(250),
            ..Personality::default()
        };
        personality.cancel.working = CancelOutcome::Ignore;
        personality.work.min_ms = 400;
        personality.work.max_ms = 900;
        personality
    }

    #[test]
    fn keeps_only_the_knobs_the_failure_needs() {
        let (shrunk, tried) = shrink_personality(&odd(), |candidate| {
            candidate.follow_up == FollowUp::NewTask
                && candidate.cancel.working == CancelOutcome::Ignore
        });
        let expected = Personality {
            name: "odd".to_string(),
            follow_up: FollowUp::NewTask,
            cancel: meshsim_runtimes::CancelPolicy {
                working: CancelOutcome::Ignore,
                ..Default::default()
            },
            ..Personality::default()
        };
        assert_eq!(shrunk, expected);
        assert!(tried >= 6, "{tried}");
    }

    #[test]
    fn an_invalid_candidate_is_skipped_not_tried() {
        // Setting work.max_ms back to 250 alone would put it below min_ms (400).
        let (shrunk, _) = shrink_personality(&odd(), |candidate| candidate.work.min_ms == 400);
        assert_eq!(shrunk.work.min_ms, 400);
        assert!(shrunk.work.max_ms >= 400);
        assert_eq!(shrunk.follow_up, FollowUp::Resume);
    }

    #[test]
    fn a_default_personality_has_nothing_to_shrink() {
        let (shrunk, tried) = shrink_personality(&Personality::default(), |_| true);
        assert_eq!(shrunk, Personality::default());
        assert_eq!(tried, 0);
    }
}
