//! SSE response bodies: a task's events, each encoded by the dialect's codec in one `data:`
//! line (a JSON-RPC response, or over HTTP+JSON the bare `StreamResponse`), with `: ping`
//! comments when the personality sends keep-alives.

use crate::json_text::json_text;
use crate::personality::Personality;
use crate::store::Subscription;
use axum::body::Body;
use axum::http::{HeaderValue, Response, header};
use bytes::Bytes;
use meshsim_protocol::{
    Dialect, ErrorCode, RequestId, RpcError, RpcResponse, RpcResult, StreamEvent, http_json, sse,
};
use meshsim_time::{Instant, Interval};
use meshsim_trace::TraceEvent;
use std::convert::Infallible;

/// How each event is framed.
pub(crate) enum Framing {
    /// In a JSON-RPC response to the request with this id.
    JsonRpc(RequestId),
    /// HTTP+JSON: the `StreamResponse` itself, an error as the binding's error body.
    Bare,
}

/// What a stream body needs between two events.
struct StreamState {
    subscription: Subscription,
    framing: Framing,
    dialect: Dialect,
    keep_alive: Option<Interval>,
}

enum Next {
    Event(Option<Box<StreamEvent>>),
    Ping,
}

/// An SSE response carrying the subscription's events until the store closes it.
pub(crate) fn response(
    subscription: Subscription,
    framing: Framing,
    dialect: Dialect,
    personality: &Personality,
) -> Response<Body> {
    let keep_alive = personality
        .keep_alive()
        .map(|period| Interval::delayed_at(Instant::now() + period, period)); // wall-clock-ok: meshsim_time::Instant, simulated time in a run
    let state = StreamState {
        subscription,
        framing,
        dialect,
        keep_alive,
    };
    let frames = futures_util::stream::unfold(state, |mut state| async move {
        let next = match &mut state.keep_alive {
            Some(interval) => tokio::select! {
                biased;
                event = state.subscription.events.recv() => Next::Event(event.map(Box::new)),
                _ = interval.tick() => Next::Ping,
            },
            None => Next::Event(state.subscription.events.recv().await.map(Box::new)),
        };
        let frame = match next {
            Next::Event(None) => return None,
            Next::Event(Some(event)) => event_frame(&state, *event),
            Next::Ping => sse::comment("ping"),
        };
        Some((Ok::<_, Infallible>(Bytes::from(frame)), state))
    });
    let mut response = Response::new(Body::from_stream(frames));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(sse::CONTENT_TYPE),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// One event as an SSE frame; an event the dialect cannot express becomes an internal
/// error response, so the client sees why rather than a gap.
fn event_frame(state: &StreamState, mut event: StreamEvent) -> String {
    // A v1.0 runtime's events carry no `final` flag; its v0.3 compatibility layer adds it.
    if let StreamEvent::StatusUpdate(update) = &mut event
        && update.is_final.is_none()
        && state.dialect != Dialect::V1_0
    {
        update.is_final = Some(state.subscription.closes_on(update.status.state));
    }
    let codec = state.dialect.codec();
    let request_id = match &state.framing {
        Framing::JsonRpc(id) => id.clone(),
        Framing::Bare => RequestId::Null,
    };
    let response = RpcResponse {
        id: request_id.clone(),
        outcome: Ok(RpcResult::Event(event)),
    };
    let payload = match codec.encode_response(&response) {
        Ok(mut encoded) => match state.framing {
            Framing::JsonRpc(_) => encoded.value,
            Framing::Bare => encoded.value["result"].take(),
        },
        Err(problem) => {
            TraceEvent::StreamErrorAnswered {
                task: state.subscription.task_id.as_str().into(),
                code: ErrorCode::InternalError.code(),
                problem: problem.to_string().into(),
            }
            .emit();
            let error = RpcError::new(ErrorCode::InternalError, problem.to_string());
            match state.framing {
                Framing::JsonRpc(_) => match codec.encode_response(&RpcResponse {
                    id: request_id,
                    outcome: Err(error),
                }) {
                    Ok(encoded) => encoded.value,
                    Err(problem) => return sse::comment(&format!("unencodable event: {problem}")),
                },
                Framing::Bare => http_json::error_body(&error),
            }
        }
    };
    sse::frame(&json_text(&payload))
}
