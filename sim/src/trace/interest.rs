//! Keeps tracing's verdict on which callsites to record right while recorders come and go
//! on several threads.
//!
//! tracing decides once per callsite, at its first event, whether any subscriber wants it,
//! and caches the answer until a new subscriber appears. While a single subscriber is alive
//! in the process, tracing-core (0.1.36, `callsite::dispatchers`) asks only the *current
//! thread's* default. So when one thread runs a simulation under its recorder and another
//! thread, with no subscriber, is first to reach a callsite the trace records (a runtime
//! served on real TCP in a parallel test, say), the callsite is cached as wanted by nobody,
//! and the recording thread loses those events until the next recorder is installed
//! anywhere: the same seed gives another trace. One subscriber that lives as long as the
//! process keeps at least two alive whenever a recorder is, so tracing asks every live
//! subscriber, and this one answers "always" for every callsite a recorder records, as a
//! recorder does. Where every live subscriber says "always", tracing offers each event to its
//! thread's current subscriber without asking it first whether it is enabled (a recorder would
//! answer what it answered for the callsite: about 70 instructions an event saved); where any
//! says otherwise, the callsite is "sometimes" and each event's current subscriber decides.

use std::sync::OnceLock;

use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Dispatch, Event, Metadata, Subscriber};

/// Registers, once per process, the subscriber that keeps the callsites `wanted` accepts
/// (what a recorder takes) wanted.
pub(super) fn keep_recorded_callsites_wanted(wanted: fn(&Metadata<'_>) -> bool) {
    static KEPT: OnceLock<Dispatch> = OnceLock::new();
    KEPT.get_or_init(|| Dispatch::new(RecordedCallsites { wanted }));
}

/// Wants what a recorder takes, as a recorder does; takes nothing itself (it is no thread's
/// subscriber, so nothing is offered to it).
struct RecordedCallsites {
    wanted: fn(&Metadata<'_>) -> bool,
}

impl Subscriber for RecordedCallsites {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if (self.wanted)(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, _: &Metadata<'_>) -> bool {
        false
    }

    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }

    fn record(&self, _: &Id, _: &Record<'_>) {}

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, _: &Id) {}

    fn exit(&self, _: &Id) {}
}
