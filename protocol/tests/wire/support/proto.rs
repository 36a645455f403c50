//! Just enough of a `.proto` reader to check ProtoJSON documents against
//! `a2a-v1.0.1.proto`: message fields (with their JSON names) and enum values.

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A field of a message.
#[derive(Debug, Clone)]
pub struct Field {
    pub type_name: String,
    pub repeated: bool,
    pub map: bool,
}

/// The messages and enums of a proto file.
#[derive(Debug, Default)]
pub struct Proto {
    /// Message name -> JSON field name -> field.
    pub messages: BTreeMap<String, BTreeMap<String, Field>>,
    /// Enum name -> value names.
    pub enums: BTreeMap<String, BTreeSet<String>>,
}

/// `history_length` -> `historyLength`, ProtoJSON's field naming.
pub fn json_name(field: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in field.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

impl Proto {
    /// Parses the top-level `message` and `enum` blocks of `text`.
    pub fn parse(text: &str) -> Proto {
        let mut proto = Proto::default();
        let lines: Vec<&str> = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or("").trim())
            .collect();
        let mut i = 0;
        while i < lines.len() {
            let words: Vec<&str> = lines[i].split_whitespace().collect();
            if let ["message" | "enum", name, "{"] = words.as_slice() {
                let is_enum = words[0] == "enum";
                let name = name.to_string();
                let mut depth = 1;
                i += 1;
                while depth > 0 && i < lines.len() {
                    let line = lines[i];
                    depth += line.matches('{').count();
                    depth -= line.matches('}').count();
                    if is_enum {
                        if let Some((value, _)) = line.split_once('=') {
                            proto
                                .enums
                                .entry(name.clone())
                                .or_default()
                                .insert(value.trim().to_string());
                        }
                    } else if let Some(field) = parse_field(line) {
                        proto
                            .messages
                            .entry(name.clone())
                            .or_default()
                            .insert(field.0, field.1);
                    }
                    i += 1;
                }
            } else {
                i += 1;
            }
        }
        proto
    }

    /// Checks `value` as a ProtoJSON `message`; returns every problem found.
    pub fn check(&self, message: &str, value: &Value, path: &str) -> Vec<String> {
        let mut problems = Vec::new();
        self.check_message(message, value, path, &mut problems);
        problems
    }

    fn check_message(&self, message: &str, value: &Value, path: &str, problems: &mut Vec<String>) {
        let Some(fields) = self.messages.get(message) else {
            problems.push(format!("{path}: no message {message} in the proto"));
            return;
        };
        let Some(object) = value.as_object() else {
            problems.push(format!("{path}: {message} must be an object"));
            return;
        };
        for (key, element) in object {
            let here = format!("{path}.{key}");
            let Some(field) = fields.get(key) else {
                problems.push(format!("{here}: {message} has no field `{key}`"));
                continue;
            };
            if field.map {
                if !element.is_object() {
                    problems.push(format!("{here}: a map must be an object"));
                }
            } else if field.repeated {
                match element.as_array() {
                    Some(items) => {
                        for (n, item) in items.iter().enumerate() {
                            self.check_value(
                                &field.type_name,
                                item,
                                &format!("{here}[{n}]"),
                                problems,
                            );
                        }
                    }
                    None => problems.push(format!("{here}: a repeated field must be an array")),
                }
            } else {
                self.check_value(&field.type_name, element, &here, problems);
            }
        }
    }

    fn check_value(&self, type_name: &str, value: &Value, path: &str, problems: &mut Vec<String>) {
        let ok = match type_name {
            "string" | "bytes" | "google.protobuf.Timestamp" => value.is_string(),
            "bool" => value.is_boolean(),
            "int32" | "int64" | "uint32" | "uint64" => {
                value.is_i64() || value.is_u64() || value.is_string()
            }
            "google.protobuf.Struct" => value.is_object(),
            "google.protobuf.Value" => true,
            other if self.enums.contains_key(other) => {
                let known = value
                    .as_str()
                    .is_some_and(|name| self.enums[other].contains(name));
                if !known {
                    problems.push(format!("{path}: {value} is not a value of enum {other}"));
                }
                true
            }
            other => {
                self.check_message(other, value, path, problems);
                true
            }
        };
        if !ok {
            problems.push(format!("{path}: {value} is not a {type_name}"));
        }
    }
}

/// The problems of a v1.0 JSON-RPC response: its envelope, then its result as the proto
/// `message` the method returns, or its error.
pub fn response_problems(proto: &Proto, message: &str, document: &Value) -> Vec<String> {
    let mut problems = envelope_problems(document, &["jsonrpc", "id", "result", "error"]);
    match (document.get("result"), document.get("error")) {
        (Some(result), None) => problems.extend(proto.check(message, result, "result")),
        (None, Some(error)) => problems.extend(error_problems(error)),
        _ => problems.push("a response has exactly one of result and error".to_string()),
    }
    problems
}

/// Keys of a JSON-RPC envelope outside `allowed`, and a `jsonrpc` other than "2.0".
pub fn envelope_problems(document: &Value, allowed: &[&str]) -> Vec<String> {
    let mut problems = Vec::new();
    for key in document
        .as_object()
        .into_iter()
        .flat_map(|object| object.keys())
    {
        if !allowed.contains(&key.as_str()) {
            problems.push(format!("envelope has `{key}`"));
        }
    }
    if document["jsonrpc"] != "2.0" {
        problems.push("jsonrpc is not 2.0".to_string());
    }
    problems
}

/// A v1.0 error object: an integer code, a message, and `data` as a list of typed details
/// (`google.rpc.ErrorInfo` with only its own fields).
pub fn error_problems(error: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if !error["code"].is_i64() || !error["message"].is_string() {
        problems.push("error needs an integer code and a message".to_string());
    }
    match error["data"].as_array() {
        Some(details) => {
            for detail in details {
                if !detail["@type"].is_string() {
                    problems.push(format!("error detail without @type: {detail}"));
                }
                if detail["@type"] == "type.googleapis.com/google.rpc.ErrorInfo" {
                    for key in detail.as_object().into_iter().flat_map(|o| o.keys()) {
                        if !["@type", "reason", "domain", "metadata"].contains(&key.as_str()) {
                            problems.push(format!("ErrorInfo has no field `{key}`"));
                        }
                    }
                }
            }
        }
        None => problems.push("error.data must be a list of typed details".to_string()),
    }
    problems
}

/// `[repeated|optional] Type name = N [...];` or `map<K, V> name = N;` inside a message.
fn parse_field(line: &str) -> Option<(String, Field)> {
    let (declaration, _) = line.split_once('=')?;
    let declaration = declaration.trim();
    if let Some(rest) = declaration.strip_prefix("map<") {
        let (types, name) = rest.split_once('>')?;
        let value_type = types.split(',').nth(1)?.trim().to_string();
        return Some((
            json_name(name.trim()),
            Field {
                type_name: value_type,
                repeated: false,
                map: true,
            },
        ));
    }
    let words: Vec<&str> = declaration.split_whitespace().collect();
    let (repeated, type_name, name) = match words.as_slice() {
        ["repeated", type_name, name] => (true, *type_name, *name),
        ["optional", type_name, name] => (false, *type_name, *name),
        [type_name, name] => (false, *type_name, *name),
        _ => return None,
    };
    if matches!(type_name, "option" | "reserved") {
        return None;
    }
    Some((
        json_name(name),
        Field {
            type_name: type_name.to_string(),
            repeated,
            map: false,
        },
    ))
}
