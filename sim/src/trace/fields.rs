//! An event's and a span's fields as the trace needs them: [`FieldMap`] collects an event's
//! fields as JSON values by name (bytewise order, as canonical JSON wants them), [`NameField`]
//! reads a span's `name`.

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Number, Value};
use tracing::field::{Field, Visit};

/// Collects an event's fields as JSON values, by name (bytewise order, as canonical JSON
/// wants them).
#[derive(Default)]
pub(super) struct FieldMap(pub(super) BTreeMap<&'static str, Value>);

/// Reads the `name` field of a span.
pub(super) struct NameField(pub(super) Option<String>);

impl Visit for NameField {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "name" {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "name" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

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
