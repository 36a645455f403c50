//! HTTP caching of the Agent Card (v1.0 specification, section 8.6): `Cache-Control` with a `max-age`, a strong
//! `ETag` over the encoded Card, `Last-Modified` at the instance's start (a Card does not
//! change while an instance lives), and `304 Not Modified` without a body when the
//! request's `If-None-Match` names the current ETag.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use meshsim_protocol::clock::http_date;
use std::time::Duration;

/// How long a client may reuse the Card without asking again.
const MAX_AGE: &str = "public, max-age=300";

/// A Card's encoded text with its ETag, hashed once for the text: a thread keeps one per
/// Card it serves, and every response shares its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tagged {
    text: Bytes,
    etag: String,
    /// `etag` as a header (`None` never happens: a quoted hex hash is a valid value).
    header: Option<HeaderValue>,
}

impl Tagged {
    pub(crate) fn new(text: String) -> Self {
        let etag = etag(text.as_bytes());
        let header = HeaderValue::from_str(&etag).ok();
        Tagged {
            text: Bytes::from(text),
            etag,
            header,
        }
    }
}

/// The Card response for `card`, or a 304 if the client holds it already.
pub(crate) fn respond(card: &Tagged, started: Duration, request: &HeaderMap) -> Response<Body> {
    let held = request
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| matches(tags, &card.etag));
    let mut response = match held {
        true => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            response
        }
        false => {
            let mut response = Response::new(Body::from(card.text.clone()));
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(MAX_AGE));
    if let Some(value) = &card.header {
        headers.insert(header::ETAG, value.clone());
    }
    if let Ok(value) = HeaderValue::from_str(&http_date(started)) {
        headers.insert(header::LAST_MODIFIED, value);
    }
    response
}

/// A strong entity tag: the quoted FNV-1a 64 hash of the body.
pub(crate) fn etag(body: &[u8]) -> String {
    let hash = body.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("\"{hash:016x}\"")
}

/// Whether an `If-None-Match` list names `etag` (weak comparison, as RFC 9110, section 13.1.2
/// asks), or is `*`.
pub(crate) fn matches(tags: &str, etag: &str) -> bool {
    tags.split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || tag.trim_start_matches("W/") == etag)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(if_none_match: Option<&str>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(tags) = if_none_match {
            headers.insert(header::IF_NONE_MATCH, HeaderValue::from_str(tags).unwrap());
        }
        headers
    }

    #[test]
    fn the_card_carries_cache_headers_and_a_held_etag_gets_304() {
        let started = Duration::from_secs(784_111_777);
        let first = respond(
            &Tagged::new("{\"name\":\"a\"}".to_string()),
            started,
            &request(None),
        );
        assert_eq!(first.status(), StatusCode::OK);
        let headers = first.headers();
        assert!(
            headers[header::CACHE_CONTROL]
                .to_str()
                .unwrap()
                .contains("max-age=")
        );
        assert_eq!(
            headers[header::LAST_MODIFIED],
            "Sun, 06 Nov 1994 08:49:37 GMT"
        );
        let etag = headers[header::ETAG].to_str().unwrap().to_string();
        assert!(etag.starts_with('"') && etag.ends_with('"'));

        let again = respond(
            &Tagged::new("{\"name\":\"a\"}".to_string()),
            started,
            &request(Some(&etag)),
        );
        assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(again.headers()[header::ETAG], etag.as_str());

        let weak = format!("\"other\", W/{etag}");
        let listed = respond(
            &Tagged::new("{\"name\":\"a\"}".to_string()),
            started,
            &request(Some(&weak)),
        );
        assert_eq!(listed.status(), StatusCode::NOT_MODIFIED);

        let changed = respond(
            &Tagged::new("{\"name\":\"b\"}".to_string()),
            started,
            &request(Some(&etag)),
        );
        assert_eq!(changed.status(), StatusCode::OK);
        assert_ne!(changed.headers()[header::ETAG], etag.as_str());
    }
}
