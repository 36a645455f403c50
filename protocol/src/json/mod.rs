//! Path-aware JSON reading and the small writing helpers the codecs share.
//!
//! Every read names the JSON path it looked at, so a [`DecodeError`] says exactly which field
//! is missing or malformed (`params.message.parts[0].kind`). Absent and `null` read the same.

pub(crate) mod tree;

use crate::codec::{DecodeError, Dialect, EncodeError, Loss};
use crate::digits::push_padded;
use serde_json::{Map, Value};
use std::borrow::Cow;
use tree::{Json, member, members_to_map};

/// An object's members as parsed.
pub(crate) type Members<'a> = [(Cow<'a, str>, Json<'a>)];

/// `path.key`, or `key` at the root. (Written by hand: every child object a decoder opens
/// builds its path, and `format!` costs several times the copying.)
pub(crate) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        return key.to_string();
    }
    let mut joined = String::with_capacity(path.len() + 1 + key.len());
    joined.push_str(path);
    joined.push('.');
    joined.push_str(key);
    joined
}

/// `path[index]`, the path of an array's element. (Digits written by hand: every element a
/// decoder opens builds its path, and `write!` cost several times the rest.)
fn element(path: &str, index: usize) -> String {
    let mut joined = String::with_capacity(path.len() + 8);
    joined.push_str(path);
    joined.push('[');
    push_padded(&mut joined, index as u64, 1);
    joined.push(']');
    joined
}

/// What kind of JSON value this is, for error messages.
pub(crate) fn type_name(value: &Json<'_>) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// Whether `candidate` is the snake_case spelling of the camelCase `key` (`history_length`
/// of `historyLength`), compared without building the spelling: a decoder asks for every
/// optional field it knows, so most lookups miss and each miss would allocate it.
fn is_snake_case_of(candidate: &str, key: &str) -> bool {
    let mut candidate = candidate.bytes();
    for byte in key.bytes() {
        if byte.is_ascii_uppercase() {
            if candidate.next() != Some(b'_') || candidate.next() != Some(byte.to_ascii_lowercase())
            {
                return false;
            }
        } else if candidate.next() != Some(byte) {
            return false;
        }
    }
    candidate.next().is_none()
}

/// A JSON object being decoded, with its path and dialect.
pub(crate) struct Obj<'a> {
    dialect: Dialect,
    path: String,
    members: &'a Members<'a>,
    /// Also accept the snake_case spelling of each camelCase key (ProtoJSON parsers do).
    snake_aliases: bool,
}

impl<'a> Obj<'a> {
    /// `value` as an object, or an error naming `path`.
    pub(crate) fn new(
        dialect: Dialect,
        value: &'a Json<'a>,
        path: impl Into<String>,
    ) -> Result<Self, DecodeError> {
        let path = path.into();
        match value {
            Json::Object(members) => Ok(Obj::of_members(dialect, members, path)),
            other => Err(DecodeError {
                dialect,
                field: if path.is_empty() {
                    "(document)".to_string()
                } else {
                    path
                },
                problem: format!("expected an object, found {}", type_name(other)),
            }),
        }
    }

    /// An object given by its members.
    pub(crate) fn of_members(dialect: Dialect, members: &'a Members<'a>, path: String) -> Self {
        Obj {
            dialect,
            path,
            members,
            snake_aliases: false,
        }
    }

    /// Also accept snake_case aliases of camelCase keys, here and in child objects.
    pub(crate) fn with_snake_aliases(mut self) -> Self {
        self.snake_aliases = true;
        self
    }

    /// An error about `key` of this object.
    pub(crate) fn error(&self, key: &str, problem: impl Into<String>) -> DecodeError {
        DecodeError {
            dialect: self.dialect,
            field: join(&self.path, key),
            problem: problem.into(),
        }
    }

    /// Whether `key` is present and not null.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The object as it was sent, for keeping what the reader does not understand.
    pub(crate) fn as_sent(&self) -> Value {
        Value::Object(members_to_map(self.members))
    }

    /// The object's members, for the checks that look at raw JSON as well as decoded objects.
    pub(crate) fn members(&self) -> &'a Members<'a> {
        self.members
    }

    /// The value at `key`; absent and null both read as `None`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Json<'a>> {
        let found = member(self.members, key).or_else(|| {
            let has_alias = self.snake_aliases && key.bytes().any(|byte| byte.is_ascii_uppercase());
            if !has_alias {
                return None;
            }
            self.members
                .iter()
                .rev()
                .find(|(name, _)| is_snake_case_of(name, key))
                .map(|(_, value)| value)
        });
        found.filter(|value| !value.is_null())
    }

    fn required(&self, key: &str) -> Result<&'a Json<'a>, DecodeError> {
        self.get(key)
            .ok_or_else(|| self.error(key, "required field is missing"))
    }

    fn wrong_type(&self, key: &str, expected: &str, found: &Json<'_>) -> DecodeError {
        self.error(
            key,
            format!("expected {expected}, found {}", type_name(found)),
        )
    }

    pub(crate) fn str(&self, key: &str) -> Result<String, DecodeError> {
        let value = self.required(key)?;
        value
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| self.wrong_type(key, "a string", value))
    }

    pub(crate) fn opt_str(&self, key: &str) -> Result<Option<String>, DecodeError> {
        self.get(key)
            .map(|value| {
                value
                    .as_str()
                    .map(str::to_string)
                    .ok_or_else(|| self.wrong_type(key, "a string", value))
            })
            .transpose()
    }

    pub(crate) fn opt_bool(&self, key: &str) -> Result<Option<bool>, DecodeError> {
        self.get(key)
            .map(|value| {
                value
                    .as_bool()
                    .ok_or_else(|| self.wrong_type(key, "a boolean", value))
            })
            .transpose()
    }

    pub(crate) fn opt_i32(&self, key: &str) -> Result<Option<i32>, DecodeError> {
        self.get(key)
            .map(|value| {
                // ProtoJSON may quote integers.
                let number = match value {
                    Json::String(text) => text.parse::<i64>().ok(),
                    other => other.as_i64(),
                };
                number
                    .and_then(|n| i32::try_from(n).ok())
                    .ok_or_else(|| self.wrong_type(key, "a 32-bit integer", value))
            })
            .transpose()
    }

    /// Any JSON value, kept as sent.
    pub(crate) fn opt_value(&self, key: &str) -> Option<Value> {
        self.get(key).map(Json::to_value)
    }

    pub(crate) fn obj(&self, key: &str) -> Result<Obj<'a>, DecodeError> {
        let value = self.required(key)?;
        self.child(key, value)
    }

    pub(crate) fn opt_obj(&self, key: &str) -> Result<Option<Obj<'a>>, DecodeError> {
        self.get(key)
            .map(|value| self.child(key, value))
            .transpose()
    }

    fn child(&self, key: &str, value: &'a Json<'a>) -> Result<Obj<'a>, DecodeError> {
        let child = Obj::new(self.dialect, value, join(&self.path, key))?;
        Ok(Obj {
            snake_aliases: self.snake_aliases,
            ..child
        })
    }

    /// The elements of a required array, each decoded by `item` with its own path.
    pub(crate) fn array<T>(
        &self,
        key: &str,
        item: impl FnMut(&'a Json<'a>, String) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        self.required(key)?;
        self.opt_array(key, item)
    }

    /// Like [`Obj::array`], with absent or null reading as empty.
    pub(crate) fn opt_array<T>(
        &self,
        key: &str,
        mut item: impl FnMut(&'a Json<'a>, String) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let Some(value) = self.get(key) else {
            return Ok(Vec::new());
        };
        let Json::Array(items) = value else {
            return Err(self.wrong_type(key, "an array", value));
        };
        let base = join(&self.path, key);
        items
            .iter()
            .enumerate()
            .map(|(i, value)| item(value, element(&base, i)))
            .collect()
    }

    /// An optional array of strings; absent reads as empty.
    pub(crate) fn strings(&self, key: &str) -> Result<Vec<String>, DecodeError> {
        let dialect = self.dialect;
        self.opt_array(key, |value, path| {
            value
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| DecodeError {
                    dialect,
                    field: path,
                    problem: format!("expected a string, found {}", type_name(value)),
                })
        })
    }

    /// The keys of an optional object at `key` (e.g. the names in `securitySchemes`).
    pub(crate) fn keys(&self, key: &str) -> Result<Vec<String>, DecodeError> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Json::Object(members)) => Ok(members_to_map(members).keys().cloned().collect()),
            Some(other) => Err(self.wrong_type(key, "an object", other)),
        }
    }

    /// A child object at `value` (an array element), inheriting the alias setting.
    pub(crate) fn nested(&self, value: &'a Json<'a>, path: String) -> Result<Obj<'a>, DecodeError> {
        let child = Obj::new(self.dialect, value, path)?;
        Ok(Obj {
            snake_aliases: self.snake_aliases,
            ..child
        })
    }
}

/// The state of one encoding: the dialect and the losses so far.
pub(crate) struct Enc {
    pub(crate) dialect: Dialect,
    pub(crate) losses: Vec<Loss>,
}

impl Enc {
    pub(crate) fn new(dialect: Dialect) -> Self {
        Enc {
            dialect,
            losses: Vec::new(),
        }
    }

    /// Records that `field` (the model's name) was dropped.
    pub(crate) fn lose(&mut self, field: &str) {
        if !self.losses.iter().any(|loss| loss.field == field) {
            self.losses.push(Loss {
                dialect: self.dialect,
                field: field.to_string(),
            });
        }
    }

    /// Records `field` as lost when `present`.
    pub(crate) fn lose_if(&mut self, present: bool, field: &str) {
        if present {
            self.lose(field);
        }
    }

    /// An error: the dialect cannot express `what`.
    pub(crate) fn fail(&self, what: impl Into<String>) -> EncodeError {
        EncodeError {
            dialect: self.dialect,
            what: what.into(),
        }
    }

    /// `value`, or an error saying the dialect requires `what`.
    pub(crate) fn need<'v, T: ?Sized>(
        &self,
        value: Option<&'v T>,
        what: &str,
    ) -> Result<&'v T, EncodeError> {
        value.ok_or_else(|| self.fail(format!("a missing {what} (the dialect requires it)")))
    }
}

/// An object under construction.
#[derive(Default)]
pub(crate) struct Out(Map<String, Value>);

impl Out {
    pub(crate) fn new() -> Self {
        Out(Map::new())
    }

    pub(crate) fn put(&mut self, key: &str, value: impl Into<Value>) -> &mut Self {
        self.0.insert(key.to_string(), value.into());
        self
    }

    pub(crate) fn put_opt<T: Into<Value>>(&mut self, key: &str, value: Option<T>) -> &mut Self {
        if let Some(value) = value {
            self.put(key, value);
        }
        self
    }

    /// Puts a list unless it is empty.
    pub(crate) fn put_list(&mut self, key: &str, values: Vec<Value>) -> &mut Self {
        if !values.is_empty() {
            self.put(key, Value::Array(values));
        }
        self
    }

    /// Puts a list of strings unless it is empty.
    pub(crate) fn put_strings(&mut self, key: &str, values: &[String]) -> &mut Self {
        self.put_list(key, strings(values))
    }

    pub(crate) fn build(&mut self) -> Value {
        Value::Object(std::mem::take(&mut self.0))
    }
}

/// Strings as JSON values.
pub(crate) fn strings(values: &[String]) -> Vec<Value> {
    values
        .iter()
        .map(|value| Value::String(value.clone()))
        .collect()
}

#[cfg(test)]
mod tests;
