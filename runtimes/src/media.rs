//! Media types a runtime accepts: the input modes its Card declares. A message part that
//! states a media type outside them is refused with `ContentTypeNotSupportedError`
//! (-32005): "A Media Type provided in the request's message parts ... is not supported by
//! the agent" (v1.0 §3.3.2). Text and data parts state none in the model, so only file
//! parts are checked.

use meshsim_protocol::{ErrorCode, Message, PartContent, RpcError};

/// Refuses `message` if one of its parts states a media type `accepted` does not cover.
pub(crate) fn check(message: &Message, accepted: &[String]) -> Result<(), RpcError> {
    let refused = message.parts.iter().find_map(|part| match &part.content {
        PartContent::File(file) => file
            .media_type
            .as_deref()
            .filter(|media| !accepted.iter().any(|mode| covers(mode, media))),
        PartContent::Text(_) | PartContent::Data(_) => None,
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
        let accepted = vec!["text/plain".to_string()];
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
    fn wildcards_cover_their_range() {
        assert!(covers("image/*", "image/png"));
        assert!(covers("*/*", "application/pdf"));
        assert!(!covers("image/*", "text/plain"));
    }
}
