//! [`LineLayout`]: the parts of a canonical line that depend only on where its event was
//! emitted, not on the values: the field names in the line's order, written as JSON keys,
//! and the level and target around the host and the time.
//!
//! An event's metadata is static, one per callsite, and a run records its events from a few
//! dozen callsites. Sorting an event's fields by name and escaping each name again for
//! every event was the largest part of writing a line, so each recorder subscriber lays out a
//! callsite once, the first time one of its events is recorded, and keeps the layout for every
//! later run (a thread's subscriber outlives its runs, as a runtime's routes are kept:
//! `runtimes/src/routes.rs`). A layout holds nothing of a run.

use tracing::Metadata;
use tracing::field::Field;

use super::canonical::write_str;

/// The layouts a subscriber has built, by the address of their callsite's static metadata,
/// sorted by it: the lookup is made for every event, and a binary search of a few dozen
/// addresses costs less than a `BTreeMap`'s entry did. Kept with the subscriber's other state,
/// under its lock, rather than in a thread-local cell shared out by `Rc`, whose access, borrow
/// and count cost about 38 instructions an event more.
#[derive(Default)]
pub(super) struct Layouts(Vec<(usize, LineLayout)>);

impl Layouts {
    /// The layout of `meta`'s events, built on the first use of the callsite.
    pub(super) fn of(&mut self, meta: &'static Metadata<'static>) -> &LineLayout {
        let callsite = std::ptr::from_ref(meta).addr();
        let at = match self.0.binary_search_by_key(&callsite, |(known, _)| *known) {
            Ok(at) => at,
            Err(at) => {
                self.0.insert(at, (callsite, LineLayout::build(meta)));
                at
            }
        };
        &self.0[at].1
    }
}

/// How the events of one callsite are written.
pub(super) struct LineLayout {
    /// One key per distinct field name, in bytewise order of the names.
    pub(super) keys: Vec<FieldKey>,
    /// Whether the callsite declares its fields in that order, each name once: then the
    /// fields' indices are those of their keys, and the values can be written as they are
    /// visited (the events of `meshsim_trace` name their fields so).
    pub(super) in_order: bool,
    /// `,"level":"INFO","t_us":`, what follows the host up to the time.
    pub(super) level: String,
    /// `,"target":"meshsim::net"}`, what follows the time to the line's end.
    pub(super) target: String,
}

/// A field name as the line writes it.
pub(super) struct FieldKey {
    /// `,"name":`; the first field of a line is written without the comma.
    pub(super) text: String,
    /// The indices, in the callsite's field set, of the fields with this name: one but
    /// when an event names a field twice (the value visited last is the one written, as a
    /// map of the fields would keep it).
    pub(super) indices: Vec<usize>,
}

impl LineLayout {
    fn build(meta: &Metadata<'_>) -> LineLayout {
        let mut fields: Vec<_> = meta.fields().iter().collect();
        let in_order = fields.is_sorted_by(|one, next| one.name() < next.name());
        // Stable: the fields of one name stay in the order of their indices.
        fields.sort_by_key(|field| field.name());
        let keys = fields
            .chunk_by(|one, next| one.name() == next.name())
            .map(|named| FieldKey {
                text: format!(",{}:", quoted(named[0].name())),
                indices: named.iter().map(Field::index).collect(),
            })
            .collect();
        let level = format!(",\"level\":{},\"t_us\":", quoted(meta.level().as_str()));
        let target = format!(",\"target\":{}}}", quoted(meta.target()));
        LineLayout {
            keys,
            in_order,
            level,
            target,
        }
    }
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut out = String::new();
    write_str(text, &mut out);
    out
}
