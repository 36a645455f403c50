//! The registry of live timer deadlines of one simulation, each with the host it was made
//! on, and the thread-local watch that points new timers at it.

use std::cell::RefCell;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

/// The deadlines of the live timers of one simulation, in simulated time since it began, and
/// the host (by address) each timer was made on.
#[derive(Clone, Debug, Default)]
pub struct Deadlines {
    inner: Arc<Mutex<Live>>,
}

#[derive(Debug, Default)]
struct Live {
    /// Each deadline and host with how many live timers have them, earliest first. A few
    /// timers are alive at a time, and every one enters and leaves: a sorted vector keeps
    /// its room, where a `BTreeMap` searched and rebalanced nodes for each.
    at: Vec<((Duration, IpAddr), usize)>,
    /// Live timers whose deadline could not be placed in simulated time.
    unknown: usize,
}

/// What a deadline is known as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// When, and on which host.
    At(Duration, IpAddr),
    Unknown,
}

impl Deadlines {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The earliest deadline of a live timer; `Some(ZERO)` while a timer's deadline is
    /// unknown, since it may be due at any moment; `None` when no timer is alive.
    pub fn next(&self) -> Option<Duration> {
        let live = self.live();
        if live.unknown > 0 {
            return Some(Duration::ZERO);
        }
        live.at.first().map(|((at, _), _)| *at)
    }

    /// The hosts with a live timer due by `end`, each once, in address order; `None` while a
    /// timer's deadline is unknown, since any host may have it.
    pub fn hosts_due_by(&self, end: Duration) -> Option<Vec<IpAddr>> {
        let live = self.live();
        if live.unknown > 0 {
            return None;
        }
        let mut hosts: Vec<IpAddr> = live
            .at
            .iter()
            .take_while(|((at, _), _)| *at <= end)
            .map(|((_, host), _)| *host)
            .collect();
        hosts.sort_unstable();
        hosts.dedup();
        Some(hosts)
    }

    /// How many timers are alive.
    pub fn len(&self) -> usize {
        let live = self.live();
        live.unknown + live.at.iter().map(|(_, count)| count).sum::<usize>()
    }

    /// Whether no timer is alive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn live(&self) -> MutexGuard<'_, Live> {
        // A panic while holding the lock leaves the counts consistent: no update can panic
        // between changing a count and dropping its emptied entry.
        self.inner
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn add(&self, key: Key) {
        let mut live = self.live();
        match key {
            Key::At(at, host) => match live
                .at
                .binary_search_by_key(&(at, host), |(known, _)| *known)
            {
                Ok(found) => live.at[found].1 += 1,
                Err(place) => live.at.insert(place, ((at, host), 1)),
            },
            Key::Unknown => live.unknown += 1,
        }
    }

    fn remove(&self, key: Key) {
        let mut live = self.live();
        match key {
            Key::At(at, host) => {
                if let Ok(found) = live
                    .at
                    .binary_search_by_key(&(at, host), |(known, _)| *known)
                {
                    live.at[found].1 -= 1;
                    if live.at[found].1 == 0 {
                        live.at.remove(found);
                    }
                }
            }
            Key::Unknown => live.unknown = live.unknown.saturating_sub(1),
        }
    }
}

/// Reads, inside one of the simulation's hosts, that host's address and the simulated time
/// since the simulation began (`None` outside any host).
pub type SimNow = fn() -> Option<(IpAddr, Duration)>;

thread_local! {
    static WATCHED: RefCell<Option<(Deadlines, SimNow)>> = const { RefCell::new(None) };
}

/// Registers the timers created on this thread in `deadlines` until the returned [`Watch`]
/// is dropped; `now` places their deadlines in simulated time. A simulation runs on one
/// thread, so parallel simulations on other threads keep their own registries.
pub fn watch(deadlines: Deadlines, now: SimNow) -> Watch {
    let previous = WATCHED.with(|watched| watched.replace(Some((deadlines, now))));
    Watch { previous }
}

/// Keeps a [`watch`] in force; dropping it restores the watch before it.
#[must_use = "timers are watched only while the Watch lives"]
pub struct Watch {
    previous: Option<(Deadlines, SimNow)>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        let previous = self.previous.take();
        WATCHED.with(|watched| *watched.borrow_mut() = previous);
    }
}

/// One timer's entry in the watched registry, removed when dropped.
#[derive(Debug)]
pub(crate) struct Registration {
    entry: Option<(Deadlines, Key)>,
}

impl Registration {
    /// Enters `deadline` into the registry watching this thread, if any.
    pub(crate) fn new(deadline: Instant) -> Self {
        let entry = WATCHED.with(|watched| {
            let watched = watched.borrow();
            let (deadlines, now) = watched.as_ref()?;
            let key = match now() {
                Some((host, now)) => Key::At(
                    now + deadline.saturating_duration_since(Instant::now()),
                    host,
                ),
                None => Key::Unknown,
            };
            deadlines.add(key);
            Some((deadlines.clone(), key))
        });
        Self { entry }
    }

    /// No entry: for a timer that has completed.
    pub(crate) fn none() -> Self {
        Self { entry: None }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        if let Some((deadlines, key)) = self.entry.take() {
            deadlines.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOST: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 0, 1));
    const OTHER_HOST: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 0, 2));

    fn at_five_seconds() -> Option<(IpAddr, Duration)> {
        Some((HOST, Duration::from_secs(5)))
    }

    fn on_the_other_host_at_five_seconds() -> Option<(IpAddr, Duration)> {
        Some((OTHER_HOST, Duration::from_secs(5)))
    }

    fn outside_a_host() -> Option<(IpAddr, Duration)> {
        None
    }

    #[tokio::test(start_paused = true)]
    async fn a_watched_timer_is_listed_at_its_simulated_deadline_until_dropped() {
        let deadlines = Deadlines::new();
        let _watch = watch(deadlines.clone(), at_five_seconds);
        let early = Registration::new(Instant::now() + Duration::from_millis(30));
        let late = Registration::new(Instant::now() + Duration::from_millis(70));
        let twin = Registration::new(Instant::now() + Duration::from_millis(30));
        assert_eq!(deadlines.len(), 3);
        assert_eq!(deadlines.next(), Some(Duration::from_millis(5_030)));
        drop(early);
        assert_eq!(deadlines.next(), Some(Duration::from_millis(5_030)));
        drop(twin);
        assert_eq!(deadlines.next(), Some(Duration::from_millis(5_070)));
        drop(late);
        assert_eq!(deadlines.next(), None);
        assert!(deadlines.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_deadline_that_cannot_be_placed_is_due_at_once_while_it_lives() {
        let deadlines = Deadlines::new();
        let _watch = watch(deadlines.clone(), outside_a_host);
        let unknown = Registration::new(Instant::now() + Duration::from_secs(1));
        assert_eq!(deadlines.next(), Some(Duration::ZERO));
        assert_eq!(
            deadlines.hosts_due_by(Duration::ZERO),
            None,
            "any host may have it"
        );
        drop(unknown);
        assert_eq!(deadlines.next(), None);
        assert_eq!(deadlines.hosts_due_by(Duration::ZERO), Some(Vec::new()));
    }

    #[tokio::test(start_paused = true)]
    async fn the_hosts_due_by_a_time_are_those_with_a_live_timer_due_by_then() {
        let deadlines = Deadlines::new();
        let ms = Duration::from_millis;
        let (early, twin) = {
            let _watch = watch(deadlines.clone(), at_five_seconds);
            let early = Registration::new(Instant::now() + ms(30));
            (early, Registration::new(Instant::now() + ms(30)))
        };
        let late = {
            let _watch = watch(deadlines.clone(), on_the_other_host_at_five_seconds);
            Registration::new(Instant::now() + ms(70))
        };
        assert_eq!(deadlines.hosts_due_by(ms(5_029)), Some(vec![]));
        assert_eq!(deadlines.hosts_due_by(ms(5_030)), Some(vec![HOST]));
        assert_eq!(
            deadlines.hosts_due_by(ms(5_070)),
            Some(vec![HOST, OTHER_HOST])
        );
        drop((early, twin));
        assert_eq!(deadlines.hosts_due_by(ms(5_070)), Some(vec![OTHER_HOST]));
        drop(late);
        assert_eq!(deadlines.hosts_due_by(ms(5_070)), Some(vec![]));
    }

    #[tokio::test(start_paused = true)]
    async fn without_a_watch_nothing_is_listed_and_the_watch_before_comes_back() {
        let outer = Deadlines::new();
        let inner = Deadlines::new();
        let _unwatched = Registration::new(Instant::now());
        let outer_watch = watch(outer.clone(), at_five_seconds);
        {
            let _inner_watch = watch(inner.clone(), at_five_seconds);
            let _held = Registration::new(Instant::now());
            assert_eq!(inner.len(), 1);
        }
        let _back = Registration::new(Instant::now());
        assert_eq!((outer.len(), inner.len()), (1, 0));
        drop(outer_watch);
    }
}
