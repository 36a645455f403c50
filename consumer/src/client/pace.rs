//! What a stream's keep-alives say about when the peer sent an event.
//!
//! A peer that sends keep-alives (SSE comments) never leaves a stream quiet for longer
//! than its keep-alive period: whether it pings on a fixed grid or after each quiet spell,
//! some bytes leave within one period of the last. So the bytes that arrive after others
//! left no later than one period after those did, however long a link held them: a status
//! the link held with a keep-alive or two reads as sent when it can at the latest have
//! been, not when it came. That bounds when an event without a readable timestamp was
//! sent, as its stamp would. Without keep-alives nothing bounds it: a link may have held
//! the bytes for any time, so their arrival says nothing of when they left.
//!
//! The period is not announced. The first keep-alive leaves no sooner than one period
//! after the stream opened (exactly one on a fixed grid; later where events came first and
//! the peer waits a quiet period after each), so the wait from the stream's opening to its
//! first keep-alive is the period or more, never less: the bound it gives may be late,
//! never early, and a held event is never read as older than it can be.

use std::time::Duration;
use tokio::time::Instant;

/// A stream's arrivals and the keep-alive period they show.
#[derive(Debug)]
pub(super) struct Pace {
    /// When the stream opened (its response head arrived).
    opened: Instant,
    /// The wait from the opening to the first keep-alive; `None` until one arrived.
    period: Option<Duration>,
    /// The latest the peer can have sent the last bytes that arrived.
    sent_by: Instant,
}

impl Pace {
    /// A stream whose response head arrived at `at`.
    pub(super) fn started(at: Instant) -> Self {
        Pace {
            opened: at,
            period: None,
            sent_by: at,
        }
    }

    /// Bytes arrived at `now` (arrivals come in order); `keep_alive` when they carried
    /// nothing but keep-alives.
    pub(super) fn arrived(&mut self, now: Instant, keep_alive: bool) {
        if keep_alive && self.period.is_none() {
            self.period = Some(now.saturating_duration_since(self.opened));
        }
        let bound = self
            .period
            .and_then(|period| self.sent_by.checked_add(period));
        self.sent_by = bound.map_or(now, |bound| bound.min(now));
    }

    /// The latest the peer can have sent the last bytes that arrived, once keep-alives
    /// showed their period: when they arrived, or earlier where the keep-alives say a link
    /// held them. `None` before any keep-alive: then nothing bounds it.
    pub(super) fn sent_by(&self) -> Option<Instant> {
        self.period.map(|_| self.sent_by)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn a_question_a_link_held_was_sent_within_a_period_of_the_bytes_before_it() {
        let start = Instant::now();
        let mut pace = Pace::started(start);
        pace.arrived(ms(start, 10), false);
        pace.arrived(ms(start, 250), true);
        pace.arrived(ms(start, 260), false);
        assert_eq!(pace.sent_by(), Some(ms(start, 260)), "a prompt event");
        // The peer asks at 400 ms and closes the stream; the link holds the question
        // until 1300 ms.
        pace.arrived(ms(start, 1300), false);
        assert_eq!(pace.sent_by(), Some(ms(start, 510)));
    }

    #[test]
    fn keep_alives_a_link_held_bound_each_other_until_bytes_come_promptly() {
        let start = Instant::now();
        let mut pace = Pace::started(start);
        pace.arrived(ms(start, 250), true);
        // The link holds the keep-alives of 500, 750, 1000 and 1250 ms until 1300 ms.
        for (arrived, bound) in [(1300, 500), (1300, 750), (1300, 1000), (1300, 1250)] {
            pace.arrived(ms(start, arrived), true);
            assert_eq!(pace.sent_by(), Some(ms(start, bound)));
        }
        pace.arrived(ms(start, 1310), false);
        assert_eq!(pace.sent_by(), Some(ms(start, 1310)), "a prompt event");
    }

    #[test]
    fn without_keep_alives_nothing_bounds_when_an_event_was_sent() {
        let start = Instant::now();
        let mut pace = Pace::started(start);
        pace.arrived(ms(start, 5000), false);
        assert_eq!(pace.sent_by(), None);
    }
}
