//! An event's and a span's fields as the trace needs them: [`write_fields`] writes an
//! event's fields into its canonical line ([`InOrder`] straight as they are visited,
//! [`CanonicalFields`] through a buffer when they must be sorted first), [`FieldMap`] collects
//! a user's event's fields as JSON values for its log line.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::ops::Range;

use meshsim_protocol::digits::{push_decimal, push_signed};
use serde_json::{Number, Value};
use tracing::Event;
use tracing::field::{Field, Visit};

use super::canonical::{write_debug_str, write_str};
use super::layout::{FieldKey, LineLayout};

/// Collects a user's event's fields as JSON values, by name.
#[derive(Default)]
pub(super) struct FieldMap(pub(super) BTreeMap<&'static str, Value>);

impl Visit for FieldMap {
    fn record_f64(&mut self, field: &Field, value: f64) {
        let json =
            Number::from_f64(value).map_or_else(|| Value::String(value.to_string()), Value::Number);
        self.0.insert(field.name(), json);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name(), value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name(), value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.into());
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.insert(field.name(), value.to_string().into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}").into());
    }
}

/// Appends `event`'s fields to `line` as the inside of a canonical JSON object: straight as
/// they are visited when its callsite declares them in the line's order ([`InOrder`]), else
/// through `sorted`, whose buffers are kept from event to event.
pub(super) fn write_fields(
    event: &Event<'_>,
    layout: &LineLayout,
    sorted: &mut CanonicalFields,
    line: &mut String,
) {
    if layout.in_order {
        let start = line.len();
        let mut direct = InOrder {
            keys: &layout.keys,
            line,
            next: 0,
            in_order: true,
        };
        event.record(&mut Json(&mut direct));
        if direct.in_order {
            return;
        }
        line.truncate(start);
    }
    sorted.reset(event.metadata().fields().len());
    event.record(&mut Json(&mut *sorted));
    sorted.write_into(&layout.keys, line);
}

/// Where a visitor of an event's fields puts each value it writes as JSON.
trait FieldSink {
    /// Writes one value of `field` with `write`.
    fn add(&mut self, field: &Field, write: impl FnOnce(&mut String));
}

/// Visits an event's fields, writing each value as the canonical line has it into a
/// [`FieldSink`].
struct Json<'a, S>(&'a mut S);

/// Writes the fields of a callsite that [declares them in order](LineLayout::in_order)
/// straight into the line, key and value, as they are visited: most events' fields take no
/// copy between their value and the line. A field visited out of that order (an event not
/// made by its callsite's macro) clears `in_order`, and the line is written again by
/// [`CanonicalFields`].
struct InOrder<'a> {
    /// The callsite's keys, one per field, in the order of the fields' indices.
    keys: &'a [FieldKey],
    line: &'a mut String,
    /// The least field index that may come next: one past the index last written.
    next: usize,
    in_order: bool,
}

impl FieldSink for InOrder<'_> {
    fn add(&mut self, field: &Field, write: impl FnOnce(&mut String)) {
        let index = field.index();
        let key = self
            .keys
            .get(index)
            .filter(|_| self.in_order && index >= self.next);
        let Some(key) = key else {
            self.in_order = false;
            return;
        };
        // The key's text starts with the comma that separates it from the field before; none
        // is written while `next` is 0.
        self.line.push_str(&key.text[usize::from(self.next == 0)..]);
        write(self.line);
        self.next = index + 1;
    }
}

/// The fields of one event, each already written as JSON in the order they were visited, to
/// be written in the line's order: for the events whose callsite does not declare its fields
/// in that order. Building a JSON value per field first was a measurable share of a run's
/// allocations; the recorder keeps one of these and reuses its buffers from event to event
/// ([`CanonicalFields::reset`]).
#[derive(Default)]
pub(super) struct CanonicalFields {
    /// Every value's JSON text, one after another.
    text: String,
    /// By the field's index in its callsite's field set, the value visited for it.
    slots: Vec<Option<Visited>>,
    /// How many values were visited.
    visits: usize,
}

/// Where a field's value sits in [`CanonicalFields::text`], and how many values were
/// visited before it.
#[derive(Clone)]
struct Visited {
    range: Range<usize>,
    order: usize,
}

impl CanonicalFields {
    /// Empties the fields for an event of a callsite with `field_count` fields, keeping the
    /// buffers' room.
    pub(super) fn reset(&mut self, field_count: usize) {
        self.text.clear();
        self.slots.clear();
        self.slots.resize(field_count, None);
        self.visits = 0;
    }

    /// Appends the fields to `out` as the inside of a canonical JSON object, in the order of
    /// `keys` (sorted by name), and for a name given twice, its value visited last (as a map
    /// of the fields would keep it).
    pub(super) fn write_into(&self, keys: &[FieldKey], out: &mut String) {
        let mut first = true;
        for key in keys {
            let visited = key
                .indices
                .iter()
                .filter_map(|index| self.slots.get(*index)?.as_ref())
                .max_by_key(|visited| visited.order);
            let Some(visited) = visited else {
                continue;
            };
            // The key's text starts with the comma that separates it from the field before.
            out.push_str(&key.text[usize::from(first)..]);
            first = false;
            out.push_str(&self.text[visited.range.clone()]);
        }
    }
}

impl FieldSink for CanonicalFields {
    /// Writes one value with `write` and files it under `field`.
    fn add(&mut self, field: &Field, write: impl FnOnce(&mut String)) {
        let start = self.text.len();
        write(&mut self.text);
        let index = field.index();
        if index >= self.slots.len() {
            self.slots.resize(index + 1, None);
        }
        self.slots[index] = Some(Visited {
            range: start..self.text.len(),
            order: self.visits,
        });
        self.visits += 1;
    }
}

impl<S: FieldSink> Visit for Json<'_, S> {
    fn record_f64(&mut self, field: &Field, value: f64) {
        // serde_json has no JSON number for NaN or the infinities: those become strings.
        self.0.add(field, |out| match Number::from_f64(value) {
            Some(number) => {
                let _ = write!(out, "{number}");
            }
            None => write_str(&value.to_string(), out),
        });
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.add(field, |out| push_signed(out, value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.add(field, |out| push_decimal(out, value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.add(field, |out| {
            out.push_str(if value { "true" } else { "false" })
        });
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.add(field, |out| write_str(value, out));
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.add(field, |out| write_str(&value.to_string(), out));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.add(field, |out| write_debug_str(value, out));
    }
}

#[cfg(test)]
mod tests {
    use crate::sim_time::SimTime;
    use crate::trace::{Recorder, to_canonical_json};
    use serde_json::json;
    use tracing::field::{Field, Value};
    use tracing::{Callsite as _, Event};

    #[test]
    fn fields_are_written_as_canonical_json_of_their_values() {
        // A name given twice keeps the value visited last, a field left empty is not written.
        let recorder = Recorder::new(SimTime::new());
        {
            let _guard = recorder.install();
            tracing::info!(
                target: "meshsim::test",
                zeta = -3i64, alpha = 1.5f64, not_a_number = f64::NAN, big = u64::MAX,
                text = "q\"\n\u{1}é", listed = ?vec![1, 2], no = false, error = "late",
                twice = 1u64, absent = tracing::field::Empty, twice = 2u64, quoted = ?"a\"b"
            );
        }
        let expected = to_canonical_json(&json!({
            "zeta": -3, "alpha": 1.5, "not_a_number": "NaN", "big": u64::MAX,
            "text": "q\"\n\u{1}é", "listed": "[1, 2]", "no": false, "error": "late",
            "twice": 2, "quoted": "\"a\\\"b\""
        }));
        assert_eq!(fields_of_the_line(&recorder), expected);
    }

    #[test]
    fn fields_declared_in_order_are_written_as_canonical_json_of_their_values() {
        // Written as they are visited; the fields left empty, first among them, are not.
        let recorder = Recorder::new(SimTime::new());
        {
            let _guard = recorder.install();
            tracing::info!(
                target: "meshsim::test",
                absent = tracing::field::Empty, big = u64::MAX, debug = ?"a\"b",
                empty = tracing::field::Empty, message = "q\"\n\u{1}é", n = -3i64, yes = true
            );
        }
        let expected = to_canonical_json(&json!({
            "big": u64::MAX, "debug": "\"a\\\"b\"", "message": "q\"\n\u{1}é", "n": -3,
            "yes": true
        }));
        assert_eq!(fields_of_the_line(&recorder), expected);
    }

    #[test]
    fn fields_visited_out_of_their_declared_order_are_sorted() {
        // Not from a macro, which visits the fields in their order: written the general way.
        let callsite = tracing::callsite!(
            name: "out of order", kind: tracing::metadata::Kind::EVENT,
            target: "meshsim::test", level: tracing::Level::INFO, fields: a, b, c
        );
        let meta = callsite.metadata();
        let [a, b, c] = ["a", "b", "c"].map(|name| meta.fields().field(name).expect(name));
        let recorder = Recorder::new(SimTime::new());
        {
            let _guard = recorder.install();
            let values: [(&Field, Option<&dyn Value>); 3] =
                [(&a, Some(&1u64)), (&c, Some(&"z")), (&b, Some(&true))];
            Event::dispatch(meta, &meta.fields().value_set(&values));
        }
        assert_eq!(fields_of_the_line(&recorder), r#"{"a":1,"b":true,"c":"z"}"#);
    }

    /// The fields of the recorder's only line, as the line has them.
    fn fields_of_the_line(recorder: &Recorder) -> String {
        let trace = recorder.trace();
        let line = trace.lines().next().expect("one line");
        let fields = line
            .strip_prefix("{\"fields\":")
            .and_then(|rest| rest.split_once(",\"host\":"))
            .map(|(fields, _)| fields);
        fields.expect("a recorded line").to_string()
    }

    /// Logs an event of its own when it is formatted.
    struct Noisy;

    impl std::fmt::Debug for Noisy {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            tracing::info!(target: "meshsim::test", inner = 1u64);
            f.write_str("noisy")
        }
    }

    #[test]
    fn a_value_that_logs_while_it_is_recorded_leaves_the_line_whole() {
        // tracing does not dispatch an event raised inside the dispatch of another, so the
        // inner event is dropped; the outer line keeps every field.
        let recorder = Recorder::new(SimTime::new());
        {
            let _guard = recorder.install();
            tracing::info!(target: "meshsim::test", first = "a", value = ?Noisy, last = 2u64);
        }
        let fields: Vec<String> = recorder
            .trace()
            .lines()
            .filter_map(|line| {
                line.split_once(",\"host\"")
                    .map(|(fields, _)| fields.to_string())
            })
            .collect();
        assert_eq!(
            fields,
            [r#"{"fields":{"first":"a","last":2,"value":"noisy"}"#]
        );
    }
}
