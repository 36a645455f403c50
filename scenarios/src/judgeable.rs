//! Where the oracle's verdicts are about the consumer: the knob values the swarm draws from.
//!
//! Inside that space every job is decidable from the personality: possible, or impossible
//! by a rule the oracle names ([`crate::IMPOSSIBLE_RULES`]). Outside it a runtime can reap a
//! question before any consumer could answer it, or reap tasks mid-work at random, and a
//! verdict may blame the consumer for what no consumer could do (docs/personalities.md
//! measures how often). [`cautions`] names each such knob value of a personality, so that
//! a command can say so before it judges; the swarm's draw keeps inside these bounds, and
//! a test holds it to that.

use meshsim_runtimes::{Personality, Reaping};

/// The shortest reaping timer (`ttl` or `input-required-timeout`) under which a consumer
/// can always ask after a task before the peer reaps it.
pub const SHORTEST_REAPING_TIMER_MS: u64 = 300;

/// The longest the `#long` script may work, so that it fits the scenarios' 20 s `working`
/// deadline.
pub const LONG_WORK_BUDGET_MS: u64 = 15_000;

/// Each knob value of `personality` outside the space where verdicts are about the
/// consumer, with why, in words; empty when there is none.
pub fn cautions(personality: &Personality) -> Vec<String> {
    let work = &personality.work;
    let long_steps = u64::from(work.long_running_steps);
    let (long_shortest, long_longest) = (
        long_steps.saturating_mul(work.min_ms),
        long_steps.saturating_mul(work.max_ms),
    );
    let mut cautions = Vec::new();
    let timer = match personality.reaping {
        Reaping::Ttl { after_ms } => Some(("ttl", after_ms)),
        Reaping::InputRequiredTimeout { after_ms } => Some(("input-required-timeout", after_ms)),
        Reaping::OnStreamClose | Reaping::Never => None,
    };
    if let Some((kind, after_ms)) = timer
        && after_ms < SHORTEST_REAPING_TIMER_MS
    {
        cautions.push(format!(
            "reaping.{kind}.after_ms is {after_ms}, under {SHORTEST_REAPING_TIMER_MS} ms: the \
             peer may reap a task before a consumer can ask after it"
        ));
    }
    if let Reaping::Ttl { after_ms } = personality.reaping {
        if work.max_ms > after_ms / 2 {
            cautions.push(format!(
                "work.max_ms is {}, more than half of reaping.ttl.after_ms ({after_ms}): \
                 tasks may be reaped mid-work, by chance",
                work.max_ms
            ));
        }
        if long_shortest <= after_ms && after_ms <= long_longest {
            cautions.push(format!(
                "the #long script's work ({} steps of {} to {} ms) sometimes fits \
                 reaping.ttl.after_ms ({after_ms}) and sometimes does not: whether its task \
                 is reaped is chance, not a rule",
                work.long_running_steps, work.min_ms, work.max_ms
            ));
        }
    }
    if long_longest > LONG_WORK_BUDGET_MS {
        cautions.push(format!(
            "the #long script's work may last {long_longest} ms ({} steps of up to {} ms), \
             more than {LONG_WORK_BUDGET_MS} ms: it may outlast the 20 s `working` deadline",
            work.long_running_steps, work.max_ms
        ));
    }
    cautions
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_runtimes::{WorkDurations, builtins};

    fn with(reaping: Reaping, min_ms: u64, max_ms: u64, long_running_steps: u32) -> Personality {
        Personality {
            reaping,
            work: WorkDurations {
                min_ms,
                max_ms,
                long_running_steps,
            },
            ..Personality::default()
        }
    }

    #[test]
    fn the_built_in_personalities_are_inside_the_judgeable_space() {
        for personality in builtins() {
            assert_eq!(
                cautions(&personality),
                Vec::<String>::new(),
                "{}",
                personality.name
            );
        }
    }

    #[test]
    fn a_reaping_timer_under_300_ms_is_named_and_300_is_not() {
        for reaping in [
            Reaping::Ttl { after_ms: 299 },
            Reaping::InputRequiredTimeout { after_ms: 150 },
        ] {
            let named = cautions(&with(reaping, 0, 100, 1));
            assert_eq!(named.len(), 1, "{named:?}");
            assert!(named[0].contains("under 300 ms"), "{named:?}");
        }
        for reaping in [
            Reaping::Ttl { after_ms: 300 },
            Reaping::InputRequiredTimeout { after_ms: 300 },
        ] {
            assert!(cautions(&with(reaping, 0, 100, 1)).is_empty());
        }
    }

    #[test]
    fn work_too_long_to_count_is_named_at_the_most_a_count_can_say() {
        let named = cautions(&with(Reaping::Never, u64::MAX, u64::MAX, 10));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(
            named[0].contains(&format!("may last {} ms", u64::MAX)),
            "{named:?}"
        );
    }

    #[test]
    fn a_work_step_over_half_the_ttl_is_named() {
        let ttl = Reaping::Ttl { after_ms: 1_000 };
        assert!(cautions(&with(ttl, 100, 500, 1)).is_empty());
        let named = cautions(&with(ttl, 100, 501, 1));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].starts_with("work.max_ms is 501"), "{named:?}");
    }

    #[test]
    fn long_work_that_only_sometimes_fits_the_ttl_is_named_and_always_or_never_is_not() {
        let ttl = Reaping::Ttl { after_ms: 10_000 };
        // 40 steps of 100 to 400 ms: 4 s to 16 s against a 10 s TTL.
        let named = cautions(&with(ttl, 100, 400, 40));
        assert!(
            named
                .iter()
                .any(|caution| caution.contains("sometimes fits")),
            "{named:?}"
        );
        // Always fits (at most 8 s), never fits (at least 12 s).
        assert!(cautions(&with(ttl, 100, 400, 20)).is_empty());
        assert!(cautions(&with(ttl, 400, 400, 30)).is_empty());
    }

    #[test]
    fn long_work_past_the_budget_is_named() {
        let named = cautions(&with(Reaping::Never, 0, 1_000, 16));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].contains("16000 ms"), "{named:?}");
        assert!(cautions(&with(Reaping::Never, 0, 1_000, 15)).is_empty());
    }
}
