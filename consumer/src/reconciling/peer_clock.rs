//! The peer's status timestamps read on the consumer's clock.
//!
//! An event may reach the consumer long after the peer stamped it (a link that held it, a
//! slow proxy), and what the peer did meanwhile (a timer reaping the task) is then older
//! than the event looks. The two clocks need not agree, so a timestamp cannot be compared
//! with the consumer's clock directly. What the consumer can measure is how much later than
//! another an event arrived, against how much later it was stamped: the event that arrived
//! soonest after its stamp (the smallest arrival minus stamp seen) fixes the offset between
//! the clocks, up to that event's own transit time, and every stamp maps through it. A
//! status that was held in transit then reads as stamped when it was, not when it came.

use meshsim_protocol::clock::parse_rfc3339;
use std::time::Duration;
use tokio::time::Instant;

/// The offset between the peer's stamps and the consumer's clock, learned from arrivals.
#[derive(Debug, Default)]
pub(super) struct PeerClock {
    /// The first stamped arrival: when it came, and its stamp.
    anchor: Option<(Instant, Duration)>,
    /// The least, over every stamped arrival, of (arrival − the anchor's arrival) −
    /// (stamp − the anchor's stamp), in nanoseconds: how much sooner after its stamp the
    /// promptest arrival came than the anchor did (zero or less).
    promptest: i128,
}

impl PeerClock {
    /// An event stamped `stamp` (RFC 3339) arrived at `at` (arrivals come in order).
    /// Unreadable stamps are ignored.
    pub(super) fn arrived(&mut self, stamp: &str, at: Instant) {
        let Some(stamped) = parse_rfc3339(stamp) else {
            return;
        };
        match self.anchor {
            None => self.anchor = Some((at, stamped)),
            Some((anchor_arrival, anchor_stamp)) => {
                let since_anchor = at.saturating_duration_since(anchor_arrival);
                let lag = nanos(since_anchor) - signed_nanos(stamped, anchor_stamp);
                self.promptest = self.promptest.min(lag);
            }
        }
    }

    /// When the peer stamped `stamp`, on the consumer's clock; `None` when the stamp is
    /// unreadable or nothing stamped has arrived yet.
    pub(super) fn stamped_at(&self, stamp: &str) -> Option<Instant> {
        let stamped = parse_rfc3339(stamp)?;
        let (anchor_arrival, anchor_stamp) = self.anchor?;
        let offset = signed_nanos(stamped, anchor_stamp) + self.promptest;
        let magnitude = Duration::from_nanos(u64::try_from(offset.unsigned_abs()).ok()?);
        let at = if offset >= 0 {
            anchor_arrival.checked_add(magnitude)?
        } else {
            anchor_arrival.checked_sub(magnitude)?
        };
        Some(at)
    }

    /// When the peer sent a status stamped `stamp` that arrived at `arrived`, as its stamp
    /// says: on the consumer's clock, never later than its arrival; `None` when it has no
    /// readable stamp (or nothing stamped has arrived yet).
    pub(super) fn stamped_sent_at(&self, stamp: Option<&str>, arrived: Instant) -> Option<Instant> {
        stamp
            .and_then(|stamp| self.stamped_at(stamp))
            .map(|stamped| stamped.min(arrived))
    }

    /// When the peer sent a status stamped `stamp` that arrived at `arrived`: as its stamp
    /// says ([`PeerClock::stamped_sent_at`]), or its arrival when nothing stamped dates it.
    pub(super) fn sent_at(&self, stamp: Option<&str>, arrived: Instant) -> Instant {
        self.stamped_sent_at(stamp, arrived).unwrap_or(arrived)
    }
}

fn nanos(duration: Duration) -> i128 {
    i128::try_from(duration.as_nanos()).unwrap_or(i128::MAX)
}

/// `later − earlier` in nanoseconds, negative when `later` is the earlier one.
fn signed_nanos(later: Duration, earlier: Duration) -> i128 {
    nanos(later) - nanos(earlier)
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::clock::rfc3339;

    /// The peer's clock runs an hour ahead of the epoch the consumer would assume.
    fn stamp(peer_ms: u64) -> String {
        rfc3339(Duration::from_millis(3_600_000 + peer_ms))
    }

    fn ms(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn a_held_event_reads_as_stamped_when_it_was_not_when_it_came() {
        let start = Instant::now();
        let mut clock = PeerClock::default();
        // Two events arrive 10 ms after their stamps (the usual transit)...
        clock.arrived(&stamp(0), ms(start, 10));
        clock.arrived(&stamp(300), ms(start, 310));
        // ...and the one stamped at 600 ms is held by the link until 1400 ms.
        let held = stamp(600);
        clock.arrived(&held, ms(start, 1400));
        assert_eq!(clock.stamped_at(&held), Some(ms(start, 610)));
    }

    #[test]
    fn a_prompter_later_arrival_corrects_a_held_first_one() {
        let start = Instant::now();
        let mut clock = PeerClock::default();
        // The first event was held 500 ms; the next came in the usual 10 ms.
        clock.arrived(&stamp(0), ms(start, 510));
        assert_eq!(clock.stamped_at(&stamp(0)), Some(ms(start, 510)));
        clock.arrived(&stamp(600), ms(start, 610));
        assert_eq!(clock.stamped_at(&stamp(0)), Some(ms(start, 10)));
    }

    #[test]
    fn nothing_is_read_without_a_readable_stamp() {
        let start = Instant::now();
        let mut clock = PeerClock::default();
        assert_eq!(clock.stamped_at(&stamp(0)), None, "nothing arrived yet");
        clock.arrived("yesterday", start);
        assert_eq!(
            clock.stamped_at(&stamp(0)),
            None,
            "nothing readable arrived"
        );
        clock.arrived(&stamp(0), start);
        assert_eq!(clock.stamped_at("yesterday"), None);
        assert_eq!(clock.stamped_at(&stamp(0)), Some(start));
    }

    #[test]
    fn a_status_was_sent_by_its_stamp_never_after_it_arrived_and_unstamped_when_it_arrived() {
        let start = Instant::now();
        let mut clock = PeerClock::default();
        clock.arrived(&stamp(0), ms(start, 10));
        let held = ms(start, 900);
        assert_eq!(clock.sent_at(Some(&stamp(300)), held), ms(start, 310));
        assert_eq!(clock.sent_at(None, held), held);
        assert_eq!(clock.sent_at(Some("yesterday"), held), held);
        // A stamp read as later than the arrival (the offset is only an upper bound of the
        // transit) is held to the arrival.
        assert_eq!(clock.sent_at(Some(&stamp(950)), held), held);
    }
}
