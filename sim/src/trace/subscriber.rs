//! The `tracing` subscriber a [`Recorder`] installs: it turns every `meshsim*` event into one
//! canonical line and prints the user's own events that `MESHSIM_LOG` enables.
//!
//! The host is turmoil's current host ([`Hosts`]), or [`SIM_HOST`] outside any host. Time is
//! the simulation's elapsed time as turmoil gives it while hosts are being stepped, and the
//! runner's published time otherwise. Install it on the thread that runs the simulation
//! (turmoil runs every host there).

use std::fmt::Write as _;
use std::sync::{Mutex, MutexGuard};

use meshsim_protocol::digits::push_decimal;
use serde_json::Value;
use tracing::dispatcher::{self, DefaultGuard, Dispatch};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing::{Event, Metadata, Subscriber};
use tracing_core::span::Current;

use super::SIM_HOST;
use super::fields::{CanonicalFields, FieldMap, write_fields};
use super::hosts::{Hosts, OnHost};
use super::interest::keep_recorded_callsites_wanted;
use super::layout::Layouts;
use super::recorder::Recorder;
use super::user_log::UserLog;

thread_local! {
    /// This thread's recorder subscriber, made on its first [`Recorder::install`] and
    /// pointed at each recorder installed after. Making a `Dispatch` registers it with every
    /// callsite, and tracing rebuilds every callsite's interest for it: about 10,000
    /// instructions, once per run when each run made its own.
    static INSTALLED: Dispatch = Dispatch::new(RecorderSubscriber::recording(None));
}

impl Recorder {
    /// Makes this thread's recorder subscriber, recording into this recorder, the thread's
    /// default until the guard drops.
    pub fn install(&self) -> Installed {
        keep_recorded_callsites_wanted(is_wanted);
        INSTALLED.with(|dispatch| {
            let previous = RecorderSubscriber::of(dispatch)
                .map(|subscriber| subscriber.state().replace_recorder(Some(self.clone())));
            Installed {
                _default: dispatcher::set_default(dispatch),
                dispatch: dispatch.clone(),
                previous: previous.flatten(),
            }
        })
    }
}

/// Keeps a recorder installed on its thread ([`Recorder::install`]); dropping it gives the
/// thread back the recorder and the default subscriber it had before.
#[must_use = "the recorder records only while the guard lives"]
pub struct Installed {
    /// Held for its drop, which gives the thread back its default subscriber.
    _default: DefaultGuard,
    dispatch: Dispatch,
    previous: Option<Recorder>,
}

impl Drop for Installed {
    fn drop(&mut self) {
        if let Some(subscriber) = RecorderSubscriber::of(&self.dispatch) {
            subscriber.state().replace_recorder(self.previous.take());
        }
    }
}

/// The subscriber a [`Recorder`] installs. It tracks only what a span needs (which are live
/// and which entered), as a general-purpose span registry made that a measurable share of a
/// run's cost, and turns turmoil's `node` spans off: it asks turmoil for the host instead.
pub(crate) struct RecorderSubscriber {
    /// Behind one lock, taken once per event: a lock each for the recorder, the spans and
    /// the buffers, and the event's host cloned out of the spans', cost about 110
    /// instructions an event more.
    state: Mutex<State>,
}

/// What the subscriber keeps between calls.
struct State {
    /// Where lines go: the recorder installed (none on a thread's subscriber between runs).
    recorder: Option<Recorder>,
    hosts: Hosts,
    spans: Spans,
    /// The fields of an event whose callsite does not declare them in the line's order, its
    /// buffers kept for the next such event's.
    sorted: CanonicalFields,
    layouts: Layouts,
}

/// The live spans, and the stack of those entered on the simulation's thread.
#[derive(Default)]
struct Spans {
    last_id: u64,
    /// By id, ascending (ids only grow, so a new span goes last). A few are live at a time: a
    /// vector keeps its room where a map allocated and freed a node each time it went from
    /// empty to one span and back.
    live: Vec<(u64, LiveSpan)>,
    entered: Vec<u64>,
}

struct LiveSpan {
    handles: usize,
    metadata: &'static Metadata<'static>,
}

impl Spans {
    fn position(&self, id: u64) -> Option<usize> {
        self.live.binary_search_by_key(&id, |(live, _)| *live).ok()
    }

    fn get(&self, id: u64) -> Option<&LiveSpan> {
        self.position(id).map(|at| &self.live[at].1)
    }

    fn get_mut(&mut self, id: u64) -> Option<&mut LiveSpan> {
        self.position(id).map(|at| &mut self.live[at].1)
    }
}

/// What follows the fields of a line outside any host up to its level, as
/// [`Host`](super::hosts::Host) keeps it for a host's lines: [`SIM_HOST`] as a JSON string (it
/// needs no escaping).
const SIM_AFTER_FIELDS: &str = "},\"host\":\"sim\"";

fn is_recorded(meta: &Metadata<'_>) -> bool {
    meta.target().starts_with("meshsim")
}

/// What the subscriber takes: events and spans it records, and a user's events it prints.
fn is_wanted(meta: &Metadata<'_>) -> bool {
    is_recorded(meta) || is_user_logged(meta)
}

/// A user's event that [`UserLog`] prints (never recorded).
fn is_user_logged(meta: &Metadata<'_>) -> bool {
    meta.is_event() && !meta.target().starts_with("meshsim") && UserLog::from_env().enables(meta)
}

impl State {
    /// Installs `recorder` in place of the one installed, which it returns. A recorder records
    /// one simulation, whose hosts' addresses are its own.
    fn replace_recorder(&mut self, recorder: Option<Recorder>) -> Option<Recorder> {
        self.hosts.forget_addresses();
        std::mem::replace(&mut self.recorder, recorder)
    }
}

impl RecorderSubscriber {
    fn recording(recorder: Option<Recorder>) -> Self {
        RecorderSubscriber {
            state: Mutex::new(State {
                recorder,
                hosts: Hosts::default(),
                spans: Spans::default(),
                sorted: CanonicalFields::default(),
                layouts: Layouts::default(),
            }),
        }
    }

    /// The recorder subscriber `dispatch` holds, if it holds one.
    fn of(dispatch: &Dispatch) -> Option<&RecorderSubscriber> {
        dispatch.downcast_ref::<RecorderSubscriber>()
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The simulated time of an event on `on_host`, or outside any host.
    fn elapsed(recorder: &Recorder, on_host: Option<&OnHost<'_>>) -> std::time::Duration {
        let time = recorder.time();
        match on_host {
            Some(on_host) if time.is_stepping() => on_host.sim_elapsed,
            _ => time.elapsed(),
        }
    }

    /// A user's event as a log line: `[  330.000 ms consumer] INFO target: message k=v`.
    fn user_line(recorder: &Recorder, event: &Event<'_>, on_host: Option<&OnHost<'_>>) -> String {
        let meta = event.metadata();
        let mut fields = FieldMap::default();
        event.record(&mut fields);
        let millis = Self::elapsed(recorder, on_host).as_secs_f64() * 1000.0;
        let mut line = format!(
            "[{millis:>10.3} ms {}] {:>5} {}:",
            on_host.map_or(SIM_HOST, |on_host| &on_host.host.name),
            meta.level(),
            meta.target()
        );
        if let Some(Value::String(message)) = fields.0.remove("message") {
            let _ = write!(line, " {message}");
        }
        for (name, value) in &fields.0 {
            match value {
                Value::String(text) => {
                    let _ = write!(line, " {name}={text}");
                }
                other => {
                    let _ = write!(line, " {name}={other}");
                }
            }
        }
        line
    }

    /// Records `event`'s canonical line as its callsite's layout in `layouts` has it, its
    /// fields sorted in `sorted` if need be.
    fn record_line(
        recorder: &Recorder,
        layouts: &mut Layouts,
        sorted: &mut CanonicalFields,
        event: &Event<'_>,
        on_host: Option<&OnHost<'_>>,
    ) {
        let layout = layouts.of(event.metadata());
        let elapsed = Self::elapsed(recorder, on_host);
        let host = on_host.map(|on_host| on_host.host);
        // The canonical line: keys in bytewise order at both levels.
        recorder.push_line(|line| {
            line.push_str("{\"fields\":{");
            write_fields(event, layout, sorted, line);
            line.push_str(host.map_or(SIM_AFTER_FIELDS, |host| &host.after_fields));
            line.push_str(&layout.level);
            push_decimal(line, u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX));
            line.push_str(&layout.target);
        });
    }
}

impl Subscriber for RecorderSubscriber {
    fn register_callsite(&self, meta: &'static Metadata<'static>) -> Interest {
        if is_wanted(meta) {
            Interest::always()
        } else {
            Interest::never()
        }
    }

    fn enabled(&self, meta: &Metadata<'_>) -> bool {
        is_wanted(meta)
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut state = self.state();
        let spans = &mut state.spans;
        spans.last_id += 1;
        let id = spans.last_id;
        spans.live.push((
            id,
            LiveSpan {
                handles: 1,
                metadata: attrs.metadata(),
            },
        ));
        Id::from_u64(id)
    }

    fn record(&self, _span: &Id, _values: &Record<'_>) {}

    fn record_follows_from(&self, _span: &Id, _follows: &Id) {}

    fn event(&self, event: &Event<'_>) {
        let recorded = event.metadata().target().starts_with("meshsim");
        if !recorded && !is_user_logged(event.metadata()) {
            return;
        }
        // Held while the event's values are visited: tracing does not dispatch an event (nor
        // a span's calls) raised while another event is dispatched on the thread.
        let mut state = self.state();
        let State {
            recorder,
            hosts,
            sorted,
            layouts,
            ..
        } = &mut *state;
        let Some(recorder) = recorder.as_ref() else {
            return;
        };
        let on_host = hosts.current();
        if recorded {
            Self::record_line(recorder, layouts, sorted, event, on_host.as_ref());
        } else {
            eprintln!("{}", Self::user_line(recorder, event, on_host.as_ref()));
        }
    }

    fn enter(&self, span: &Id) {
        self.state().spans.entered.push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut state = self.state();
        let spans = &mut state.spans;
        let id = span.into_u64();
        // Spans are almost always exited innermost first.
        if spans.entered.last() == Some(&id) {
            spans.entered.pop();
        } else if let Some(position) = spans.entered.iter().rposition(|entered| *entered == id) {
            spans.entered.remove(position);
        }
    }

    fn clone_span(&self, span: &Id) -> Id {
        if let Some(live) = self.state().spans.get_mut(span.into_u64()) {
            live.handles += 1;
        }
        span.clone()
    }

    fn try_close(&self, span: Id) -> bool {
        let mut state = self.state();
        let spans = &mut state.spans;
        let Some(at) = spans.position(span.into_u64()) else {
            return false;
        };
        let live = &mut spans.live[at].1;
        live.handles -= 1;
        if live.handles > 0 {
            return false;
        }
        // Mostly the newest span: the consumer's and the runtimes' spans close innermost first.
        if at + 1 == spans.live.len() {
            spans.live.pop();
        } else {
            spans.live.remove(at);
        }
        true
    }

    fn current_span(&self) -> Current {
        let state = self.state();
        let spans = &state.spans;
        spans
            .entered
            .last()
            .and_then(|id| spans.get(*id).map(|span| (*id, span.metadata)))
            .map_or_else(Current::none, |(id, metadata)| {
                Current::new(Id::from_u64(id), metadata)
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::write_str;

    #[test]
    fn lines_outside_hosts_name_the_sim_host() {
        let mut expected = String::from("},\"host\":");
        write_str(SIM_HOST, &mut expected);
        assert_eq!(SIM_AFTER_FIELDS, expected);
    }
}
