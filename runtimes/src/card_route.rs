//! The Agent Card's route: the Card ([`crate::card`]) for the address the client used, in
//! the dialect the request asks for where the personality shapes it by the `A2A-Version`
//! header, with HTTP caching ([`crate::card_cache`]), as late as the personality's
//! `card_delay_ms` says. A Card's text depends only on the personality, the dialects and
//! the address, so each thread writes it once for those ([`ThreadMemo`]): every run of a
//! sweep fetches the Card of the same few runtimes.

use crate::card::agent_card;
use crate::card_cache::{self, Tagged};
use crate::endpoint;
use crate::headers::Headers;
use crate::json_text::json_text;
use crate::personality::Personality;
use crate::store::Host;
use crate::thread_memo::{ThreadMemo, recall_or};
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Response, StatusCode, header};
use meshsim_protocol::{AgentInterface, Dialect};
use std::cell::RefCell;
use std::sync::Arc;

/// Card texts a thread keeps: a sweep's runtimes in each dialect they serve.
const CAPACITY: usize = 32;

thread_local! {
    static WRITTEN: RefCell<ThreadMemo<CardOf, Result<Tagged, String>>> =
        const { RefCell::new(ThreadMemo::new(CAPACITY)) };
}

/// What a Card's text depends on.
struct CardOf {
    personality: Personality,
    /// The dialect the instance runs.
    dialect: Dialect,
    /// The dialect the Card is written in (the request's, under the v0.3 compatibility
    /// layer).
    served: Dialect,
    url: String,
}

/// The Agent Card, pointing at the address the client used to reach it, with caching
/// headers (`Last-Modified` when the instance began), after the personality's
/// `card_delay_ms`.
pub(crate) async fn serve(
    State(host): State<Arc<Host>>,
    Headers(headers): Headers,
) -> Response<Body> {
    if let Some(delay) = host.personality.card_delay() {
        meshsim_time::sleep(delay).await;
    }
    let authority = headers
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .unwrap_or("localhost");
    // A runtime with the v0.3 compatibility layer shapes its Card by the request's
    // `A2A-Version` (a2a-js 1.3: no header, a v0.3 Card), and says so in `Vary`.
    let served = endpoint::serving_dialect(&host, &headers);
    let url = format!("http://{authority}/");
    match card_text(&host, served, &url) {
        Ok(text) => {
            let mut response = card_cache::respond(&text, host.started, &headers);
            if host.personality.v0_3_compat {
                response
                    .headers_mut()
                    .insert(header::VARY, HeaderValue::from_static("A2A-Version"));
            }
            response
        }
        Err(problem) => {
            let mut response = Response::new(Body::from(problem));
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
    }
}

/// The Card's JSON text in the `served` dialect, for `url`, with its ETag; why it cannot be
/// written otherwise. Written and hashed once per thread for what it depends on
/// ([`CardOf`]).
fn card_text(host: &Host, served: Dialect, url: &str) -> Result<Tagged, String> {
    recall_or(
        &WRITTEN,
        |card: &CardOf| {
            card.served == served
                && card.dialect == host.dialect
                && card.url == url
                && card.personality == *host.personality
        },
        || CardOf {
            personality: Personality::clone(&host.personality),
            dialect: host.dialect,
            served,
            url: url.to_string(),
        },
        || written_card(host, served, url).map(Tagged::new),
    )
}

/// The Card's JSON text, written afresh.
fn written_card(host: &Host, served: Dialect, url: &str) -> Result<String, String> {
    let card = agent_card(&host.personality, served, url);
    let mut value = served
        .codec()
        .encode_card(&card)
        .map_err(|problem| problem.to_string())?
        .value;
    if served != host.dialect
        && let (Some(fields), Some(interfaces)) =
            (value.as_object_mut(), every_interface(host, url))
    {
        fields.insert("supportedInterfaces".to_string(), interfaces);
    }
    Ok(json_text(&value))
}

/// The `supportedInterfaces` a2a-js 1.3 puts in its v0.3-shaped Card beside the v0.3 fields:
/// the served dialect's interface and the v0.3 one, in the served dialect's encoding (so a
/// header-less v1.0 client, such as the A2A TCK, still finds its interface).
fn every_interface(host: &Host, url: &str) -> Option<serde_json::Value> {
    let mut card = agent_card(&host.personality, host.dialect, url);
    card.interfaces.push(AgentInterface {
        url: url.to_string(),
        protocol_binding: "JSONRPC".to_string(),
        protocol_version: Some("0.3".to_string()),
        tenant: None,
    });
    let encoded = host.dialect.codec().encode_card(&card).ok()?;
    encoded.value.get("supportedInterfaces").cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::behaviour::Knobs;
    use crate::builtin::builtin;
    use crate::truth::GroundTruth;
    use axum::http::HeaderMap;
    use http_body_util::BodyExt;
    use meshsim_protocol::Dialect;
    use meshsim_protocol::clock::Clock;
    use serde_json::Value;
    use std::time::Duration;

    async fn card_json(personality: &str, version_header: Option<&str>) -> Value {
        let host = Host::new(
            builtin(personality).unwrap(),
            Dialect::V1_0,
            Clock::fixed(Duration::ZERO),
            0,
            GroundTruth::new(),
            Arc::new(Knobs),
            None,
        );
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, HeaderValue::from_static("agent:9"));
        if let Some(value) = version_header {
            headers.insert("A2A-Version", HeaderValue::from_str(value).unwrap());
        }
        let response = serve(State(host), Headers(headers)).await;
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn a_remembered_card_is_the_freshly_written_one() {
        let host = |personality: Personality, dialect| {
            Host::new(
                personality,
                dialect,
                Clock::fixed(Duration::ZERO),
                0,
                GroundTruth::new(),
                Arc::new(Knobs),
                None,
            )
        };
        let python = builtin("python-correct").unwrap();
        let mut renamed = python.clone();
        renamed.card.name = "another agent".to_string();
        let hosts = [
            host(python.clone(), Dialect::V1_0),
            host(renamed, Dialect::V1_0),
            host(python, Dialect::V0_3),
            host(builtin("a2a-js-1.3").unwrap(), Dialect::V1_0),
        ];
        let url = "http://agent:9/";
        assert_ne!(
            written_card(&hosts[0], Dialect::V1_0, url),
            written_card(&hosts[1], Dialect::V1_0, url),
            "two personalities that differ only in the Card's name have different Cards"
        );
        for _asked_again in 0..2 {
            for host in &hosts {
                for served in [Dialect::V1_0, Dialect::V0_3] {
                    for url in [url, "http://agent-1:9/"] {
                        assert_eq!(
                            card_text(host, served, url),
                            written_card(host, served, url).map(Tagged::new),
                            "{} {served:?} {url}",
                            host.personality.name
                        );
                    }
                }
            }
        }
        assert_eq!(WRITTEN.with_borrow(ThreadMemo::len), 16);
    }

    /// @a2a-js/sdk 1.3.0, measured: its v0.3-shaped Card (no `A2A-Version`) still carries
    /// `supportedInterfaces` with the v1.0 and the v0.3 interface, which is how the A2A TCK,
    /// fetching the Card without the header, finds the v1.0 interface.
    #[tokio::test]
    async fn a_v0_3_shaped_card_still_lists_every_interface() {
        let legacy = card_json("a2a-js-1.3", None).await;
        assert_eq!(legacy["protocolVersion"], "0.3.0");
        let versions: Vec<&Value> = legacy["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|interface| &interface["protocolVersion"])
            .collect();
        // v1.0 over JSON-RPC and HTTP+JSON, then v0.3.
        assert_eq!(versions, ["1.0", "1.0", "0.3"]);
        assert_eq!(legacy["supportedInterfaces"][0]["url"], "http://agent:9/");
        let bindings = |card: &Value| -> Vec<Value> {
            card["supportedInterfaces"]
                .as_array()
                .unwrap()
                .iter()
                .map(|interface| interface["protocolBinding"].clone())
                .collect()
        };
        let modern = card_json("a2a-js-1.3", Some("1.0")).await;
        assert_eq!(bindings(&modern), ["JSONRPC", "HTTP+JSON"]);
        assert!(modern.get("protocolVersion").is_none());
        let plain = card_json("python-correct", None).await;
        assert_eq!(bindings(&plain), ["JSONRPC", "HTTP+JSON"]);
    }
}
