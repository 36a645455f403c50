//! Reading a request body within the size limit and the deadline, and draining one that is
//! refused.

use super::limits::{BodyDrain, ServeLimits};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::BodyExt;

/// A body the guard will not pass on: the HTTP status and the message to answer with.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct RefusedBody {
    pub(super) status: StatusCode,
    pub(super) message: String,
}

/// Reads a request body within the size limit and the deadline, or refuses it: a declared
/// length over the limit before a byte is read, a longer body as soon as it passes the limit,
/// a late one at the deadline. A body refused as too large is drained (within
/// [`ServeLimits::drain`]) before the refusal is answered: a client that sends its whole
/// body before reading (most do, without `Expect: 100-continue`) would otherwise find the
/// connection reset under it and never read the 413. A late body is answered at once.
pub(super) async fn read_body(
    limits: &ServeLimits,
    headers: &HeaderMap,
    body: &mut Body,
) -> Result<Bytes, RefusedBody> {
    let limit = limits.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let timeout = limits.body_timeout;
    let refused = match declared {
        Some(size) if size > limit as u64 => Unread::TooLarge(Some(size)),
        _ => match meshsim_time::timeout(timeout, collect_within(body, limit)).await {
            Ok(Ok(bytes)) => return Ok(bytes),
            Ok(Err(unread)) => unread,
            Err(_) => Unread::Late,
        },
    };
    // A client that waits for `100 Continue` sends nothing more unless the body is read;
    // one whose body came late is not sending it now, and waiting for the rest would only
    // make the 408 later than the deadline it names.
    let waits_to_continue = headers
        .get(header::EXPECT)
        .is_some_and(|value| value.as_bytes().eq_ignore_ascii_case(b"100-continue"));
    if matches!(refused, Unread::TooLarge(_)) && !waits_to_continue {
        drain(body, limits.drain).await;
    }
    let (status, message) = match refused {
        Unread::TooLarge(declared) => {
            let size = declared.map_or(String::new(), |size| format!(" ({size} bytes)"));
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the request body{size} is over the limit of {limit} bytes (--max-body-bytes)"
                ),
            )
        }
        Unread::Late => (
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} ms (--body-timeout-ms)",
                timeout.as_millis()
            ),
        ),
        Unread::Broken(error) => (
            StatusCode::BAD_REQUEST,
            format!("the request body could not be read: {error}"),
        ),
    };
    Err(RefusedBody { status, message })
}

/// Why a body was not read whole.
enum Unread {
    /// Over the limit: declared so (`Content-Length`), or found so while reading.
    TooLarge(Option<u64>),
    /// Not whole by the deadline.
    Late,
    /// The connection broke or the framing was invalid.
    Broken(String),
}

/// Reads a body whole, or stops as soon as it passes `limit` bytes.
async fn collect_within(body: &mut Body, limit: usize) -> Result<Bytes, Unread> {
    let mut collected = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|error| Unread::Broken(error.to_string()))?;
        if let Ok(data) = frame.into_data() {
            if collected.len() + data.len() > limit {
                return Err(Unread::TooLarge(None));
            }
            collected.extend_from_slice(&data);
        }
    }
    Ok(Bytes::from(collected))
}

/// Reads and drops the rest of a refused body, until it ends, `bound.bytes` have been
/// dropped, or `bound.time` has passed, whichever is first.
async fn drain(body: &mut Body, bound: BodyDrain) {
    let dropping = async {
        let mut left = bound.bytes;
        while let Some(Ok(frame)) = body.frame().await {
            let Ok(data) = frame.into_data() else {
                continue;
            };
            match left.checked_sub(data.len() as u64) {
                Some(rest) => left = rest,
                None => return,
            }
        }
    };
    let _ = meshsim_time::timeout(bound.time, dropping).await;
}
