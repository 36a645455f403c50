//! Idle fast-forward: how many of the coming steps can be taken as one.
//!
//! A step is idle when no host runs anything in it: no timer falls due (the hosts' timers are
//! all registered in `meshsim_time`'s deadlines), no message becomes deliverable (turmoil's
//! `Sim::next_delivery`), and nothing outside the hosts acts at its start (a fault, the heal,
//! a safety check, the run's end). Merging a stretch of idle steps into one
//! `Sim::step_by` changes nothing: every timer still fires at its own instant, and the run
//! lands back on the same grid of steps before the next thing happens.
//!
//! A step that is not idle may still be quiet ([`quiet_step`]): no host timer falls due in it,
//! so turmoil's `Sim::step_by_quiet` runs only the hosts that have a task queued.

use std::time::Duration;

/// The next moments things happen, all in simulated time since the run began.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Upcoming {
    /// The earliest host timer or message delivery: the step that contains it must run.
    pub(super) inside_hosts: Option<Duration>,
    /// The earliest fault, heal, check or end: the runner must see the first step start at
    /// or after it.
    pub(super) between_steps: Option<Duration>,
}

/// How many steps of `tick` from `now` are idle and can be taken as one (at least 1: the
/// step the runner takes anyway).
pub(super) fn idle_steps(now: Duration, tick: Duration, upcoming: Upcoming) -> u32 {
    // The steps that end before the host event are idle; the one that reaches it is not.
    let before_hosts = upcoming.inside_hosts.map_or(u32::MAX, |at| {
        steps_to_reach(now, tick, at).saturating_sub(1)
    });
    // The runner must stop at the first step start at or after the event, which is the end
    // of the step that reaches it.
    let before_runner = upcoming
        .between_steps
        .map_or(u32::MAX, |at| steps_to_reach(now, tick, at));
    before_hosts.min(before_runner).max(1)
}

/// Whether a step ending at `end` may leave out its idle hosts (turmoil's
/// `Sim::step_by_quiet`): no host timer falls due up to its end, given the earliest live one.
///
/// A timer that fell due at the end of the step before is still live (its deadline leaves the
/// registry when its task polls it), so this also rules out the step after it. A timer's
/// deadline is placed in simulated time from its host's clock, which turmoil moves in whole
/// milliseconds; one millisecond of margin covers its rounding.
pub(super) fn quiet_step(end: Duration, next_timer: Option<Duration>) -> bool {
    next_timer.is_none_or(|at| at > end + Duration::from_millis(1))
}

/// How many steps from `now` it takes for a step to end at or after `at`.
fn steps_to_reach(now: Duration, tick: Duration, at: Duration) -> u32 {
    let ahead = at.saturating_sub(now).as_nanos();
    let tick = tick.as_nanos().max(1);
    u32::try_from(ahead.div_ceil(tick)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(value: u64) -> Duration {
        Duration::from_millis(value)
    }

    fn idle(inside_hosts: Option<u64>, between_steps: Option<u64>) -> u32 {
        let upcoming = Upcoming {
            inside_hosts: inside_hosts.map(ms),
            between_steps: between_steps.map(ms),
        };
        idle_steps(ms(100), ms(10), upcoming)
    }

    #[test]
    fn a_host_event_runs_in_the_step_that_reaches_it() {
        // At 100 ms with 10 ms steps, a timer at 135 ms fires in the step from 130 to 140 ms:
        // the steps ending at 110, 120 and 130 ms are idle.
        assert_eq!(idle(Some(135), None), 3);
        // A timer at 140 ms falls due at the end of the step from 130 to 140 ms.
        assert_eq!(idle(Some(140), None), 3);
        assert_eq!(idle(Some(141), None), 4);
    }

    #[test]
    fn the_runner_sees_the_first_step_start_at_or_after_its_event() {
        // A fault at 135 ms strikes at the 140 ms step start, as with single steps.
        assert_eq!(idle(None, Some(135)), 4);
        assert_eq!(idle(None, Some(140)), 4);
        assert_eq!(idle(Some(200), Some(135)), 4);
        assert_eq!(idle(Some(135), Some(200)), 3);
    }

    #[test]
    fn something_due_now_or_next_step_leaves_a_single_step() {
        assert_eq!(idle(Some(100), None), 1);
        assert_eq!(idle(Some(0), None), 1);
        assert_eq!(idle(Some(105), None), 1);
        assert_eq!(idle(Some(110), None), 1);
        assert_eq!(idle(None, Some(105)), 1);
        assert_eq!(idle(None, Some(100)), 1);
    }

    #[test]
    fn a_step_is_quiet_only_with_every_timer_past_its_end() {
        assert!(quiet_step(ms(110), None));
        assert!(quiet_step(ms(110), Some(ms(112))));
        assert!(!quiet_step(ms(110), Some(ms(111))));
        assert!(!quiet_step(ms(110), Some(ms(110))));
        // Fell due at an earlier step's end and not yet polled.
        assert!(!quiet_step(ms(110), Some(ms(100))));
    }

    #[test]
    fn nothing_ahead_at_all_is_unbounded() {
        assert_eq!(idle(None, None), u32::MAX);
    }
}
