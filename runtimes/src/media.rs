//! Media types a runtime accepts: the input modes its Card declares. A message part that
//! states a media type outside them is refused with `ContentTypeNotSupportedError`
//! (-32005): "A Media Type provided in the request's message parts ... is not supported by
//! the agent" (v1.0 specification, section 3.3.2). Text and data parts state none in the model, so only file
//! parts are checked. Some runtimes also answer -32005 to a request body declared as
//! anything but JSON ([`check_content_type`]).

use axum::http::{HeaderMap, header};
use meshsim_protocol::{ErrorCode, Message, PartContent, RpcError};

/// Refuses `message` if one of its parts states a media type `accepted` does not cover.
pub(crate) fn check(message: &Message, accepted: &[&str]) -> Result<(), RpcError> {
    let refused = message.parts.iter().find_map(|part| match &part.content {
        PartContent::File(file) => file
            .media_type
            .as_deref()
            .filter(|media| !accepted.iter().any(|mode| covers(mode, media))),
        PartContent::Text(_) | PartContent::Data(_) | PartContent::Unknown(_) => None,
    });
    match refused {
        None => Ok(()),
        Some(media) => Err(RpcError::new(
            ErrorCode::ContentTypeNotSupported,
            format!(
                "media type `{media}` is not accepted; the agent accepts {}",
                accepted.join(", ")
            ),
        )),
    }
}

/// Refuses a request whose `Content-Type` names anything but JSON (`application/json` or a
/// `+json` type such as `application/a2a+json`); a request without the header is read.
pub(crate) fn check_content_type(headers: &HeaderMap) -> Result<(), RpcError> {
    let Some(value) = headers.get(header::CONTENT_TYPE) else {
        return Ok(());
    };
    let declared = value.to_str().unwrap_or("");
    let essence = declared
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
    {
        return Ok(());
    }
    Err(RpcError::new(
        ErrorCode::ContentTypeNotSupported,
        format!("Content-Type `{declared}` is not supported; send application/json"),
    ))
}

/// Whether the input mode `mode` (`type/subtype`, `type/*` or `*/*`) covers `media`;
/// parameters are ignored, names compared without case.
fn covers(mode: &str, media: &str) -> bool {
    let essence = |value: &str| {
        let bare = value
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        match bare.split_once('/') {
            Some((kind, sub)) => (kind.to_string(), sub.to_string()),
            None => (bare, String::new()),
        }
    };
    let (mode_type, mode_sub) = essence(mode);
    let (media_type, media_sub) = essence(media);
    mode_type == "*" || (mode_type == media_type && (mode_sub == "*" || mode_sub == media_sub))
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::{FileContent, Part, Role};

    fn with_file(media: Option<&str>) -> Message {
        let mut message = Message::text(Role::User, None, "see attached");
        message.parts.push(Part {
            content: PartContent::File(FileContent {
                name: None,
                media_type: media.map(str::to_string),
                bytes: Some("dGNr".to_string()),
                uri: None,
            }),
            metadata: None,
        });
        message
    }

    #[test]
    fn a_file_outside_the_input_modes_is_content_type_not_supported() {
        let accepted = ["text/plain"];
        let error = check(
            &with_file(Some("application/x-unsupported-tck-type")),
            &accepted,
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::ContentTypeNotSupported);
        assert!(error.message.contains("application/x-unsupported-tck-type"));
        assert!(check(&with_file(Some("Text/Plain; charset=utf-8")), &accepted).is_ok());
        assert!(check(&with_file(None), &accepted).is_ok());
        assert!(check(&Message::text(Role::User, None, "hi"), &accepted).is_ok());
    }

    #[test]
    fn only_json_request_bodies_pass_the_content_type_check() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, value.parse().unwrap());
            check_content_type(&headers)
        };
        assert!(with("application/json; charset=utf-8").is_ok());
        assert!(with("application/a2a+json").is_ok());
        assert_eq!(
            with("text/plain").unwrap_err().code,
            ErrorCode::ContentTypeNotSupported
        );
        assert!(check_content_type(&HeaderMap::new()).is_ok());
    }

    #[test]
    fn wildcards_cover_their_range() {
        assert!(covers("image/*", "image/png"));
        assert!(covers("*/*", "application/pdf"));
        assert!(!covers("image/*", "text/plain"));
    }
}
