//! [`LineLayout`]: the parts of a canonical line that depend only on where its event was
//! emitted, not on the values: the field names in the line's order, written as JSON keys,
//! and the level and target around the host and the time.
//!
//! An event's metadata is static, one per callsite, and a run records its events from a few
//! dozen callsites. Sorting an event's fields by name and escaping each name again for
//! every event was the largest part of writing a line, so each thread lays out a callsite
//! once, the first time one of its events is recorded, and keeps the layout for every later
//! run (as a runtime's routes are kept: `runtimes/src/routes.rs`). A layout holds nothing of
//! a run.

use std::cell::RefCell;
use std::rc::Rc;

use tracing::Metadata;
use tracing::field::Field;

use super::canonical::write_str;

thread_local! {
    /// The layouts built on this thread, by the address of their callsite's static metadata,
    /// sorted by it: the lookup is made for every event, and a binary search of a few dozen
    /// addresses costs less than a `BTreeMap`'s entry did.
    static LAID_OUT: RefCell<Vec<(usize, Rc<LineLayout>)>> = const { RefCell::new(Vec::new()) };
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
    /// The layout of `meta`'s events, built on this thread's first use of the callsite.
    pub(super) fn of(meta: &'static Metadata<'static>) -> Rc<LineLayout> {
        let callsite = std::ptr::from_ref(meta).addr();
        LAID_OUT.with(|laid_out| {
            let mut laid_out = laid_out.borrow_mut();
            let at = match laid_out.binary_search_by_key(&callsite, |(known, _)| *known) {
                Ok(at) => at,
                Err(at) => {
                    laid_out.insert(at, (callsite, Rc::new(LineLayout::build(meta))));
                    at
                }
            };
            laid_out[at].1.clone()
        })
    }

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
