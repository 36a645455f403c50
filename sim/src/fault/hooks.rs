//! Named hooks: a fault that does nothing to the network but tells host code "now" (e.g. a
//! sidecar cuts a stream when `cut-stream` fires). Host code receives a plain
//! `tokio::sync::watch::Receiver<u64>` (the number of firings so far), so runtimes need no
//! dependency on the simulator.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;

/// The registry of named hooks of one run. Cheap to clone; clones share the hooks.
#[derive(Clone, Debug, Default)]
pub struct Hooks {
    senders: Arc<Mutex<BTreeMap<String, watch::Sender<u64>>>>,
}

impl Hooks {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A receiver for `name`. Its value is the number of firings so far; `changed().await`
    /// resolves at the next firing (firings before subscribing count as seen).
    pub fn subscribe(&self, name: &str) -> watch::Receiver<u64> {
        self.lock()
            .entry(name.to_string())
            .or_insert_with(|| watch::channel(0).0)
            .subscribe()
    }

    /// Fires `name`, waking every subscriber; returns the number of firings so far.
    pub fn fire(&self, name: &str) -> u64 {
        let mut senders = self.lock();
        let sender = senders
            .entry(name.to_string())
            .or_insert_with(|| watch::channel(0).0);
        sender.send_modify(|count| *count += 1);
        *sender.borrow()
    }

    /// How many times `name` has fired.
    pub fn count(&self, name: &str) -> u64 {
        self.lock().get(name).map_or(0, |sender| *sender.borrow())
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, watch::Sender<u64>>> {
        self.senders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscribers_see_firings_after_they_subscribe() {
        let hooks = Hooks::new();
        assert_eq!(hooks.fire("cut"), 1);
        let mut rx = hooks.subscribe("cut");
        assert!(!rx.has_changed().unwrap());
        assert_eq!(hooks.fire("cut"), 2);
        assert!(rx.has_changed().unwrap());
        assert_eq!(*rx.borrow_and_update(), 2);
        assert_eq!(hooks.count("cut"), 2);
        assert_eq!(hooks.count("other"), 0);
    }

    #[test]
    fn a_host_wakes_when_the_hook_fires() {
        let hooks = Hooks::new();
        let mut sim = turmoil::Builder::new().build();
        let mut rx = hooks.subscribe("go");
        sim.client("waiter", async move {
            rx.changed().await?;
            Ok(())
        });
        for _ in 0..10 {
            assert!(!sim.step().unwrap());
        }
        hooks.fire("go");
        assert!(sim.step().unwrap());
    }
}
