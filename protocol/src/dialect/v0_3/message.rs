//! v0.3 messages and their parts, discriminated by `kind`.

use crate::codec::{DecodeError, EncodeError};
use crate::dialect::lowercase_role::{decode_role, role_name};
use crate::json::{Enc, Obj, Out};
use crate::model::*;
use serde_json::{Map, Value};

pub(super) fn encode_message(enc: &mut Enc, message: &Message) -> Result<Value, EncodeError> {
    Ok(Out::new()
        .put("kind", "message")
        .put(
            "messageId",
            enc.need(message.message_id.as_deref(), "messageId")?,
        )
        .put("role", role_name(&message.role))
        .put("parts", encode_parts(enc, &message.parts)?)
        .put_opt("taskId", message.task_id.clone())
        .put_opt("contextId", message.context_id.clone())
        .put_opt("metadata", message.metadata.clone())
        .build())
}

pub(super) fn decode_message(message: &Obj<'_>) -> Result<Message, DecodeError> {
    if let Some(kind) = message.opt_str("kind")?
        && kind != "message"
    {
        return Err(message.error("kind", format!("expected `message`, found `{kind}`")));
    }
    Ok(Message {
        message_id: Some(message.str("messageId")?),
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
        PartContent::Text(text) => out.put("kind", "text").put("text", text.as_str()),
        PartContent::Data(data) => {
            if !data.is_object() {
                return Err(enc.fail("a data part whose data is not a JSON object"));
            }
            out.put("kind", "data").put("data", data.clone())
        }
        PartContent::File(file) => {
            if file.bytes.is_none() && file.uri.is_none() {
                return Err(enc.fail("a file part with neither bytes nor uri"));
            }
            let file = Out::new()
                .put_opt("name", file.name.clone())
                .put_opt("mimeType", file.media_type.clone())
                .put_opt("bytes", file.bytes.clone())
                .put_opt("uri", file.uri.clone())
                .build();
            out.put("kind", "file").put("file", file)
        }
    };
    Ok(out.put_opt("metadata", part.metadata.clone()).build())
}

/// The part kinds the schema defines.
const PART_KINDS: [&str; 3] = ["text", "file", "data"];

/// The kind of a part outside the schema (`"kind": "video"`), if it is one.
pub(crate) fn unknown_part_kind(part: &Map<String, Value>) -> Option<&str> {
    part.get("kind")
        .and_then(Value::as_str)
        .filter(|kind| !PART_KINDS.contains(kind))
}

/// A part of a kind outside the schema is kept as [`PartContent::Unknown`].
pub(super) fn decode_part(part: &Obj<'_>) -> Result<Part, DecodeError> {
    let kind = match part.opt_str("kind")? {
        Some(kind) => kind,
        None => PART_KINDS
            .into_iter()
            .find(|key| part.has(key))
            .ok_or_else(|| part.error("kind", "required field is missing"))?
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
