//! [`Json`]: a JSON document read from its text into a tree that borrows the text's strings.
//!
//! The codecs' hot callers (a runtime reading a request, a consumer reading an answer or a
//! stream event) used to parse each message into a `serde_json::Value` and decode that.
//! A `Value` owns a `String` for every key and string and a `BTreeMap` for every object, so
//! parsing, walking and dropping it was about 8.5% of a simulated run. A `Json` keeps each
//! unescaped string as a slice of the text and each object as its members in order, and
//! reads the same as a `Value` would: a key sent twice reads as its last value, numbers keep
//! serde_json's [`Number`], and [`Json::to_value`] gives back exactly the `Value` that
//! parsing the text would have given (for what a decoder keeps as sent, and for messages).

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::borrow::Cow;
use std::fmt;

/// The members an object's list is made room for before the first is read.
const OBJECT_MEMBERS: usize = 8;

/// One JSON value, borrowing its strings from the text it was parsed from where it can.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    /// The members as sent, duplicates and all; lookups read the last of a key.
    Object(Vec<(Cow<'a, str>, Json<'a>)>),
}

impl<'a> Json<'a> {
    /// Parses a document, with serde_json's own errors for text that is not JSON.
    pub fn parse(text: &'a [u8]) -> Result<Self, serde_json::Error> {
        serde_json::from_slice(text)
    }

    /// Parses a document already known to be UTF-8 (an SSE event's data), which spares
    /// checking each string again.
    pub fn parse_str(text: &'a str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The same document over a `Value` already in hand (its strings borrowed).
    pub fn of(value: &'a Value) -> Self {
        match value {
            Value::Null => Json::Null,
            Value::Bool(flag) => Json::Bool(*flag),
            Value::Number(number) => Json::Number(number.clone()),
            Value::String(text) => Json::String(Cow::Borrowed(text)),
            Value::Array(items) => Json::Array(items.iter().map(Json::of).collect()),
            Value::Object(map) => Json::Object(
                map.iter()
                    .map(|(key, value)| (Cow::Borrowed(key.as_str()), Json::of(value)))
                    .collect(),
            ),
        }
    }

    /// The `Value` parsing the same text gives.
    pub fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(flag) => Value::Bool(*flag),
            Json::Number(number) => Value::Number(number.clone()),
            Json::String(text) => Value::String(text.to_string()),
            Json::Array(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Object(members) => Value::Object(members_to_map(members)),
        }
    }

    /// The value at `key` of an object (the last one sent under it), like `Value::get`.
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(members) => member(members, key),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Json::Object(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(text) => Some(text),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Json::Bool(flag) => Some(*flag),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(number) => number.as_i64(),
            _ => None,
        }
    }
}

/// The value of the last member named `key`: what a `Value`'s map keeps of a repeated key.
pub(crate) fn member<'j, 'a>(
    members: &'j [(Cow<'a, str>, Json<'a>)],
    key: &str,
) -> Option<&'j Json<'a>> {
    members
        .iter()
        .rev()
        .find(|(name, _)| name == key)
        .map(|(_, value)| value)
}

/// The members as a `Value`'s map holds them (sorted, the last of a repeated key kept).
pub(crate) fn members_to_map(members: &[(Cow<'_, str>, Json<'_>)]) -> Map<String, Value> {
    let mut map = Map::new();
    for (key, value) in members {
        map.insert(key.to_string(), value.to_value());
    }
    map
}

/// Written as the `Value` of the same text is (compact JSON).
impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.to_value(), f)
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, flag: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(flag))
    }

    fn visit_i64<E>(self, number: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(number.into()))
    }

    fn visit_u64<E>(self, number: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(number.into()))
    }

    /// A float JSON cannot hold reads as null, as in `Value`.
    fn visit_f64<E>(self, number: f64) -> Result<Json<'de>, E> {
        Ok(Number::from_f64(number).map_or(Json::Null, Json::Number))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(text.to_string())))
    }

    fn visit_string<E>(self, text: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(text)))
    }

    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Json<'de>, D::Error> {
        Deserialize::deserialize(deserializer)
    }

    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        // Room for the members of most of A2A's objects at once: growing from empty
        // reallocates and copies at the fifth member (a task, a message).
        let mut members = Vec::with_capacity(OBJECT_MEMBERS);
        while let Some(Key(key)) = map.next_key()? {
            members.push((key, map.next_value()?));
        }
        Ok(Json::Object(members))
    }
}

/// An object's key, borrowed from the text when it has no escapes. (Serde's own `Cow<str>`
/// always copies.)
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string key")
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(text)))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(text.to_string())))
    }

    fn visit_string<E>(self, text: String) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(text)))
    }
}
