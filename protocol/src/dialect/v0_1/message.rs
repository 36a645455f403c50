//! v0.1 messages (no ids of their own) and their parts, discriminated by `type`.

use crate::codec::{DecodeError, EncodeError};
use crate::dialect::lowercase_role::{decode_role, role_name};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::{Map, Value};

/// A message outside a send (history, status): its ids have nowhere to go.
pub(super) fn encode_message(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    enc.lose_if(message.message_id.is_some(), "message.message_id");
    enc.lose_if(message.task_id.is_some(), "message.task_id");
    enc.lose_if(message.context_id.is_some(), "message.context_id");
    encode_message_body(enc, message)
}

pub(super) fn encode_message_body(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("metadata", message.metadata.clone())
        .build())
}

pub(super) fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    Ok(Message {
        message_id: None,
        role: decode_role(message)?,
        parts: message.array("parts", |value, path| {
            decode_part(&message.nested(value, path)?)
        })?,
        task_id: None,
        context_id: None,
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
        PartContent::Text(text) => out.put("type", "text").put("text", text.as_str()),
        PartContent::Data(data) => {
            if !data.is_object() {
                return Err(enc.fail("a data part whose data is not a JSON object"));
            }
            out.put("type", "data").put("data", data.clone())
        }
        PartContent::File(file) => {
            let file = Out::new()
                .put_opt("name", file.name.clone())
                .put_opt("mimeType", file.media_type.clone())
                .put_opt("bytes", file.bytes.clone())
                .put_opt("uri", file.uri.clone())
                .build();
            out.put("type", "file").put("file", file)
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The part kinds the schema defines.
const PART_KINDS: [&str; 3] = ["text", "file", "data"];

/// The kind of a part outside the schema (`"type": "video"`), if it is one.
pub(crate) fn unknown_part_kind(part: &Map<String, Value>) -> Option<&str> {
    part.get("type")
        .and_then(Value::as_str)
        .filter(|kind| !PART_KINDS.contains(kind))
}

/// A part of a kind outside the schema is kept as [`PartContent::Unknown`].
pub(super) fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    let kind = match part.opt_str("type")? {
        Some(kind) => kind,
        None => PART_KINDS
            .into_iter()
            .find(|key| part.has(key))
            .ok_or_else(|| part.error("type", "required field is missing"))?
            .to_string(),
    };
    let content = match kind.as_str() {
        "text" => PartContent::Text(part.str("text")?),
        "data" => PartContent::Data(
            part.opt_value("data")
                .ok_or_else(|| part.error("data", "required field is missing"))?,
        ),
        "file" => {
            let file = part.obj("file")?;
            PartContent::File(FileContent {
                name: file.opt_str("name")?,
                media_type: file.opt_str("mimeType")?,
                bytes: file.opt_str("bytes")?,
                uri: file.opt_str("uri")?,
            })
        }
        _ => PartContent::Unknown(UnknownPart {
            kind,
            as_sent: part.as_sent(),
        }),
    };
    Ok(Part {
        content,
        metadata: part.opt_value("metadata"),
    })
}
