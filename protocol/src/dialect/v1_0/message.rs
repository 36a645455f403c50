//! v1.0 messages and their flattened parts (`text` | `raw` | `url` | `data`), with a part of a
//! kind outside the proto kept as it was sent.

use super::enums::{decode_role, role_name};
use crate::codec::{DecodeError, EncodeError};
use crate::json::tree::member;
use crate::json::{Enc, Members, Obj, Out};
use crate::model::*;
use serde_json::Value;

pub(super) fn encode_message(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put_opt("messageId", message.message_id.clone())
        .put_opt("contextId", message.context_id.clone())
        .put_opt("taskId", message.task_id.clone())
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("metadata", message.metadata.clone())
        .build())
}

pub(super) fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    Ok(Message {
        message_id: message.opt_str("messageId")?,
        role: decode_role(message)?,
        parts: message.array("parts", |value, path| {
            decode_part(&message.nested(value, path)?)
        })?,
        task_id: message.opt_str("taskId")?,
        context_id: message.opt_str("contextId")?,
        metadata: message.opt_value("metadata"),
    })
}

pub(super) fn encode_parts(enc: &mut Enc, parts: &[Part]) -> Result<Value, EncodeError> {
    Ok(Value::Array(
        parts
            .iter()
            .map(|part| encode_part(enc, part))
            .collect::<Result<_, _>>()?,
    ))
}

fn encode_part(enc: &mut Enc, part: &Part) -> Result<Value, EncodeError> {
    let mut out = Out::new();
    match &part.content {
        PartContent::Unknown(unknown) => return Ok(unknown.as_sent.clone()),
        PartContent::Text(text) => out.put("text", text.as_str()),
        PartContent::Data(Value::Null) => {
            return Err(enc.fail("a data part holding null (it reads as no content)"));
        }
        PartContent::Data(data) => out.put("data", data.clone()),
        PartContent::File(file) => {
            match (&file.bytes, &file.uri) {
                (Some(bytes), None) => out.put("raw", bytes.as_str()),
                (None, Some(uri)) => out.put("url", uri.as_str()),
                (Some(_), Some(_)) => {
                    return Err(enc.fail("a file part with both bytes and uri (one of raw | url)"));
                }
                (None, None) => return Err(enc.fail("a file part with neither bytes nor uri")),
            };
            out.put_opt("filename", file.name.clone())
                .put_opt("mediaType", file.media_type.clone())
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The members of `Part`'s `content` oneof.
const PART_CONTENT: [&str; 4] = ["text", "raw", "url", "data"];

/// `Part`'s other members (and their snake_case aliases).
const PART_FIELDS: [&str; 4] = ["metadata", "filename", "mediaType", "media_type"];

/// The kind of a part outside the proto: none of the `content` members is set, but another
/// member is, and it names the kind (`"video": {...}` is a `video` part).
pub(crate) fn unknown_part_kind<'a>(part: &'a Members<'a>) -> Option<&'a str> {
    let set = |key: &str| member(part, key).is_some_and(|value| !value.is_null());
    if PART_CONTENT.into_iter().any(set) {
        return None;
    }
    // The first such key in a JSON map's (sorted) order, whatever order it was sent in.
    part.iter()
        .map(|(key, _)| key.as_ref())
        .filter(|key| set(key) && !PART_FIELDS.contains(key))
        .min()
}

pub(super) fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    if let Some(kind) = unknown_part_kind(part.members()) {
        return Ok(Part {
            content: PartContent::Unknown(UnknownPart {
                kind: kind.to_string(),
                as_sent: part.as_sent(),
            }),
            metadata: part.opt_value("metadata"),
        });
    }
    let present: Vec<&str> = PART_CONTENT
        .into_iter()
        .filter(|key| part.has(key))
        .collect();
    let content = match present.as_slice() {
        [] => return Err(part.error("text", "a part needs one of text, raw, url or data")),
        [first, second, ..] => {
            return Err(part.error(
                second,
                format!(
                    "a part holds one of text, raw, url or data, found `{first}` and `{second}`"
                ),
            ));
        }
        ["data"] => PartContent::Data(part.opt_value("data").unwrap_or_default()),
        ["text"] => PartContent::Text(part.str("text")?),
        [file] => PartContent::File(FileContent {
            name: part.opt_str("filename")?,
            media_type: part.opt_str("mediaType")?,
            bytes: if *file == "raw" {
                Some(part.str("raw")?)
            } else {
                None
            },
            uri: if *file == "url" {
                Some(part.str("url")?)
            } else {
                None
            },
        }),
    };
    Ok(Part {
        content,
        metadata: part.opt_value("metadata"),
    })
}
