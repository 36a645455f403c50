//! Where the oracle's verdicts are about the consumer: the knob values the swarm draws from.
//!
//! Inside that space every job is decidable from the personality: possible, or impossible
//! by a rule the oracle names ([`crate::IMPOSSIBLE_RULES`]). Outside it a runtime can reap a
//! question before any consumer could answer it, reap tasks mid-work at random, work so
//! slowly that a task looks stuck, or sit behind a sidecar that cuts exchanges before the
//! network can carry them, and a
//! verdict may blame the consumer for what no consumer could do (docs/personalities.md
//! measures how often). [`cautions`] names each such knob value of a personality, so that
//! a command can say so before it judges; the swarm's draw keeps inside these bounds, and
//! a test holds it to that.

use meshsim_runtimes::{Personality, Reaping, Script, WorkDurations};

/// The shortest reaping timer (`ttl` or `input-required-timeout`) under which a consumer
/// can always ask after a task before the peer reaps it.
pub const SHORTEST_REAPING_TIMER_MS: u64 = 300;

/// The longest the `#long` script may work, so that it fits the scenarios' 20 s `working`
/// deadline.
pub const LONG_WORK_BUDGET_MS: u64 = 15_000;

/// The longest work step under which a task leaves `submitted` well inside the shortest
/// `submitted` deadline of the scenarios (stuck-in-submitted's consumer re-dispatches a task
/// `submitted` for 2 s, and a task stays there for its first step). Measured with every
/// step as long as the bound, 50 seeds of the swarm-faulted reconciling sweep: at 1,900 ms
/// none of 1,050 runs missed its expectation, at 1,990 ms 52 did, and at 9,000 to 10,000 ms
/// 180 of 210 (job deadlines passed), none of it the consumer's doing.
pub const LONGEST_WORK_STEP_MS: u64 = 1_600;

/// The shortest sidecar route or idle timeout under which an exchange through the sidecar
/// can always complete on the simulated network: connecting to the runtime, then the request
/// and the answer's head, each message up to 20 ms, is 80 ms. Below it an exchange completes
/// only when the latency draws are quick: at 10 ms 51 of 210 swarm-faulted runs missed
/// their expectation and at 1 ms 180 (the consumer's retries carried 20 ms: none of 2,100).
pub const SHORTEST_SIDECAR_TIMEOUT_MS: u64 = 100;

/// The longest the swarm has a Card take to be answered, under which discovering the peer
/// always fits the simulation's client request timeout (3 s for the whole discovery: the
/// delay, then a connection, a request and its answer, each message up to 20 ms), with room
/// for a client that allows less. Measured with every Card this late, 50 seeds of the
/// swarm-faulted reconciling sweep: at 2,500 ms and at 2,900 ms none of 1,050 runs missed
/// its expectation, at 3,100 ms all 1,050 did (no discovery finished in time).
pub const LONGEST_CARD_DELAY_MS: u64 = 2_500;

/// The longest the swarm's faults can put off the end of a stream, beyond its work: a link
/// held for up to 2.5 s, then a latency of up to 500 ms. Not a measured bound: a route
/// timeout that cuts the `#long` script's stream by chance under a reaper on close misses
/// too rarely to find one (2 runs of 840,000 in the swarm's sweep of seeds 190000..230000;
/// with every drawn peer of seeds 0..1000 reaping on close behind a route timeout 3 s short
/// of its stream's work steps alone, none of 21,000 runs), so it is the most the faults can
/// add.
pub const LONGEST_STREAM_DELAY_MS: u64 = 3_000;

/// How long the `#long` script's stream may last at the most: its work steps (one in
/// `submitted`, then one per chunk) of up to `work.max_ms`, and the faults' delay.
pub fn longest_long_stream_ms(work: &WorkDurations) -> u64 {
    let steps = Script::LongRunning.work_steps(1, work.long_running_steps);
    u64::from(steps)
        .saturating_mul(work.max_ms)
        .saturating_add(LONGEST_STREAM_DELAY_MS)
}

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
    if work.max_ms > LONGEST_WORK_STEP_MS {
        cautions.push(format!(
            "work.max_ms is {}, over {LONGEST_WORK_STEP_MS} ms: a task stays `submitted` for \
             its first work step, which may outlast a consumer's deadline for `submitted` (2 s \
             in stuck-in-submitted): whether a slow task is taken for a stuck one is chance",
            work.max_ms
        ));
    }
    let card_delay_ms = personality.card_delay_ms.unwrap_or(0);
    if card_delay_ms > LONGEST_CARD_DELAY_MS {
        cautions.push(format!(
            "card_delay_ms is {card_delay_ms}, over {LONGEST_CARD_DELAY_MS} ms: with the \
             exchange itself the Card may outlast a client's request timeout (the \
             simulation's is 3 s), and discovering the peer then fails, by chance or always"
        ));
    }
    if let Some(sidecar) = &personality.sidecar {
        let timeouts = [
            ("route_timeout_ms", sidecar.route_timeout_ms),
            ("idle_timeout_ms", sidecar.idle_timeout_ms),
        ];
        for (knob, timeout_ms) in timeouts {
            let Some(timeout_ms) = timeout_ms else {
                continue;
            };
            if timeout_ms < SHORTEST_SIDECAR_TIMEOUT_MS {
                cautions.push(format!(
                    "sidecar.{knob} is {timeout_ms}, under {SHORTEST_SIDECAR_TIMEOUT_MS} ms: an \
                     exchange through the sidecar (a connection, a request and its answer, \
                     each message up to 20 ms) completes only when the network is quick, by \
                     chance"
                ));
            } else if timeout_ms < card_delay_ms.saturating_add(SHORTEST_SIDECAR_TIMEOUT_MS) {
                cautions.push(format!(
                    "sidecar.{knob} is {timeout_ms}, under card_delay_ms ({card_delay_ms}) \
                     and {SHORTEST_SIDECAR_TIMEOUT_MS} ms for the exchange: the sidecar may cut \
                     the Card before it is answered, and then no consumer can discover the peer"
                ));
            }
        }
    }
    let route_timeout_ms = personality
        .sidecar
        .and_then(|sidecar| sidecar.route_timeout_ms);
    let longest_stream_ms = longest_long_stream_ms(work);
    if let Some(route_timeout_ms) = route_timeout_ms
        && personality.reaping == Reaping::OnStreamClose
        && route_timeout_ms < longest_stream_ms
    {
        cautions.push(format!(
            "sidecar.route_timeout_ms is {route_timeout_ms}, under the {longest_stream_ms} ms \
             the #long script's stream may last ({} work steps of up to {} ms, and up to \
             {LONGEST_STREAM_DELAY_MS} ms of faults), and the peer reaps a task when \
             its stream closes: whether the cut takes the task with it is chance, and another \
             try may not fit in the job",
            Script::LongRunning.work_steps(1, work.long_running_steps),
            work.max_ms
        ));
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
    use meshsim_runtimes::{Sidecar, WorkDurations, builtins};

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
        assert_eq!(named.len(), 2, "{named:?}");
        assert!(
            named[1].contains(&format!("may last {} ms", u64::MAX)),
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
    fn a_card_later_than_the_longest_the_swarm_draws_is_named() {
        let late = |card_delay_ms| Personality {
            card_delay_ms: Some(card_delay_ms),
            ..Personality::default()
        };
        assert!(cautions(&late(LONGEST_CARD_DELAY_MS)).is_empty());
        let named = cautions(&late(LONGEST_CARD_DELAY_MS + 1));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].starts_with("card_delay_ms is 2501"), "{named:?}");
    }

    #[test]
    fn a_sidecar_that_cuts_the_card_before_it_is_answered_is_named() {
        let behind = |card_delay_ms, idle_timeout_ms| Personality {
            card_delay_ms: Some(card_delay_ms),
            sidecar: Some(Sidecar {
                route_timeout_ms: None,
                idle_timeout_ms: Some(idle_timeout_ms),
            }),
            ..Personality::default()
        };
        assert!(cautions(&behind(1_900, 2_000)).is_empty());
        let named = cautions(&behind(1_901, 2_000));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(
            named[0].starts_with("sidecar.idle_timeout_ms is 2000, under card_delay_ms (1901)"),
            "{named:?}"
        );
    }

    #[test]
    fn a_work_step_over_the_longest_the_swarm_draws_is_named() {
        assert!(cautions(&with(Reaping::Never, 0, LONGEST_WORK_STEP_MS, 1)).is_empty());
        let named = cautions(&with(Reaping::Never, 9_000, 10_000, 1));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(
            named[0].starts_with("work.max_ms is 10000, over 1600 ms"),
            "{named:?}"
        );
    }

    #[test]
    fn a_sidecar_timeout_shorter_than_an_exchange_is_named() {
        let with_sidecar = |route_timeout_ms, idle_timeout_ms| Personality {
            sidecar: Some(Sidecar {
                route_timeout_ms,
                idle_timeout_ms,
            }),
            ..Personality::default()
        };
        assert!(cautions(&with_sidecar(Some(100), Some(100))).is_empty());
        assert!(cautions(&with_sidecar(None, None)).is_empty());
        let named = cautions(&with_sidecar(Some(1), Some(99)));
        assert_eq!(named.len(), 2, "{named:?}");
        assert!(
            named[0].starts_with("sidecar.route_timeout_ms is 1, under 100 ms"),
            "{named:?}"
        );
        assert!(
            named[1].starts_with("sidecar.idle_timeout_ms is 99, under 100 ms"),
            "{named:?}"
        );
    }

    #[test]
    fn a_route_timeout_the_long_stream_may_outlast_under_a_reaper_on_close_is_named() {
        let behind = |reaping, route_timeout_ms| Personality {
            sidecar: Some(Sidecar {
                route_timeout_ms: Some(route_timeout_ms),
                idle_timeout_ms: None,
            }),
            // Ten work steps (one in `submitted`, then nine chunks) of up to 1 s, and 3 s of
            // faults: 13 s.
            ..with(reaping, 500, 1_000, 9)
        };
        assert!(cautions(&behind(Reaping::OnStreamClose, 13_000)).is_empty());
        let named = cautions(&behind(Reaping::OnStreamClose, 12_999));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(
            named[0].starts_with("sidecar.route_timeout_ms is 12999, under the 13000 ms"),
            "{named:?}"
        );
        // A peer that keeps its tasks when a stream is cut is followed again.
        assert!(cautions(&behind(Reaping::Never, 5_000)).is_empty());
    }

    #[test]
    fn long_work_past_the_budget_is_named() {
        let named = cautions(&with(Reaping::Never, 0, 1_000, 16));
        assert_eq!(named.len(), 1, "{named:?}");
        assert!(named[0].contains("16000 ms"), "{named:?}");
        assert!(cautions(&with(Reaping::Never, 0, 1_000, 15)).is_empty());
    }
}
