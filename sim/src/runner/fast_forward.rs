//! Idle fast-forward: how many of the coming steps can be taken as one.
//!
//! A step is idle when no host runs anything in it: no timer falls due (the hosts' timers are
//! all registered in `meshsim_time`'s deadlines), no message becomes deliverable (turmoil's
//! `Sim::next_delivery`), and nothing outside the hosts acts at its start (a fault, the heal,
//! a safety check, the run's end). Merging a stretch of idle steps into one
//! `Sim::step_by` changes nothing: every timer still fires at its own instant, and the run
//! lands back on the same grid of steps before the next thing happens.
//!
//! A step that is not idle still leaves out the hosts that would run nothing in it
//! ([`hosts_to_tick`]): a host with no timer due in the step, no message delivered and no task
//! woken is not run (turmoil's `Sim::step_by_quiet_except`).

use meshsim_time::Deadlines;
use std::net::IpAddr;
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

/// The hosts that tick in full in a step ending at `end` (turmoil's
/// `Sim::step_by_quiet_except`): those with a live timer due up to its end. Any other host is
/// left out of the step if nothing woke it. `None` (every host ticks) while a timer's deadline
/// is unknown.
///
/// A timer that fell due at the end of the step before is still live (its deadline leaves the
/// registry when its task polls it), so its host also ticks in full in the step after. A
/// timer's deadline is placed in simulated time from its host's clock, which turmoil moves in
/// whole milliseconds; one millisecond of margin covers its rounding.
pub(super) fn hosts_to_tick(end: Duration, deadlines: &Deadlines) -> Option<Vec<IpAddr>> {
    deadlines.hosts_due_by(end + Duration::from_millis(1))
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

    /// A host at 192.168.0.1, at simulated time 0.
    fn on_the_host() -> Option<(IpAddr, Duration)> {
        Some((HOST, Duration::ZERO))
    }

    const HOST: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 0, 1));

    /// The hosts to tick in full in a step ending at 110 ms, with one timer of `HOST` due at
    /// `at`.
    fn with_a_timer_at(at: u64) -> Option<Vec<IpAddr>> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        runtime.block_on(async {
            let deadlines = Deadlines::new();
            let _watch = meshsim_time::watch(deadlines.clone(), on_the_host);
            let _timer = meshsim_time::sleep(ms(at));
            hosts_to_tick(ms(110), &deadlines)
        })
    }

    #[test]
    fn a_host_ticks_in_full_only_with_a_timer_due_by_the_steps_end() {
        assert_eq!(with_a_timer_at(112), Some(vec![]));
        assert_eq!(with_a_timer_at(111), Some(vec![HOST]));
        assert_eq!(with_a_timer_at(110), Some(vec![HOST]));
        // Fell due at an earlier step's end and not yet polled.
        assert_eq!(with_a_timer_at(100), Some(vec![HOST]));
        assert_eq!(hosts_to_tick(ms(110), &Deadlines::new()), Some(vec![]));
    }

    #[test]
    fn nothing_ahead_at_all_is_unbounded() {
        assert_eq!(idle(None, None), u32::MAX);
    }
}
