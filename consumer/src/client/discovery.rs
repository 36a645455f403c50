//! Finding a peer: its Card fetched from `/.well-known/agent-card.json`, then
//! `/.well-known/agent.json`, the dialect the Card speaks and the JSON-RPC endpoint it names.

use super::http;
use super::{A2aClient, ClientConfig, ClientError, Connector};
use ::http::{Method as HttpMethod, StatusCode, Uri};
use meshsim_protocol::{AgentCard, Dialect, detect, version};
use meshsim_trace::TraceEvent;
use std::sync::atomic::AtomicI64;

impl<C: Connector> A2aClient<C> {
    /// Fetches the peer's Card from `base` (`/.well-known/agent-card.json`, then
    /// `/.well-known/agent.json`), picks the dialect the Card speaks and the JSON-RPC
    /// endpoint it names.
    pub async fn discover(
        connector: C,
        base: &str,
        config: ClientConfig,
    ) -> Result<Self, ClientError> {
        let base_uri = parse_http_uri(base)?;
        let mut problems = Vec::new();
        for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
            let url = join(&base_uri, path)?;
            match fetch_card(&connector, &url, &config).await {
                Ok((card, dialect)) => {
                    let endpoint = card_endpoint(&card).unwrap_or_else(|| base_uri.clone());
                    TraceEvent::Card {
                        path: path.into(),
                        dialect: dialect.name().into(),
                        version: card.version.as_str().into(),
                        streaming: card.capabilities.streaming,
                    }
                    .emit();
                    return Ok(A2aClient {
                        connector,
                        config,
                        card,
                        card_url: url.to_string(),
                        dialect,
                        endpoint,
                        next_id: AtomicI64::new(1),
                    });
                }
                Err(error @ (ClientError::Connect { .. } | ClientError::Timeout { .. })) => {
                    return Err(error);
                }
                Err(error) => problems.push(format!("{path}: {error}")),
            }
        }
        Err(ClientError::NoCard {
            base: base.to_string(),
            problem: problems.join("; "),
        })
    }
}

async fn fetch_card<C: Connector>(
    connector: &C,
    url: &Uri,
    config: &ClientConfig,
) -> Result<(AgentCard, Dialect), ClientError> {
    // Ask for the newest shape: a2a-js serves a 0.3 Card without this header.
    let headers = [(version::HEADER, "1.0")];
    let request = http::request(HttpMethod::GET, url, "application/json", None, &headers)?;
    let exchange = http::exchange(connector, request, config.request_timeout).await?;
    let status = exchange.response.status();
    if status != StatusCode::OK {
        return Err(ClientError::Http {
            status: status.as_u16(),
            url: url.to_string(),
        });
    }
    let bytes = http::read_body(exchange, config.max_body_bytes, config.request_timeout).await?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|error| ClientError::Malformed(format!("Card is not JSON: {error}")))?;
    let dialect = detect::detect_card(&json)
        .map(|detection| detection.dialect)
        .or_else(|| detect::from_card_path(url.path()))
        .ok_or_else(|| ClientError::Malformed("the Card's dialect cannot be told".to_string()))?;
    let card = dialect
        .codec()
        .decode_card(&json)
        .map_err(ClientError::Decode)?;
    Ok((card, dialect))
}

/// The Card's JSON-RPC interface URL, when it is a usable absolute http URL.
fn card_endpoint(card: &AgentCard) -> Option<Uri> {
    let interface = card
        .interfaces
        .iter()
        .find(|interface| interface.protocol_binding.eq_ignore_ascii_case("JSONRPC"))
        .or_else(|| card.interfaces.first())?;
    parse_http_uri(&interface.url).ok()
}

fn parse_http_uri(url: &str) -> Result<Uri, ClientError> {
    let bad = |problem: &str| ClientError::Url {
        url: url.to_string(),
        problem: problem.to_string(),
    };
    let uri: Uri = url
        .parse()
        .map_err(|error: ::http::uri::InvalidUri| bad(&error.to_string()))?;
    match uri.scheme_str() {
        Some("http") => {}
        Some(other) => {
            return Err(bad(&format!(
                "scheme `{other}` is not supported (only http)"
            )));
        }
        None => return Err(bad("not an absolute URL (http://host:port/...)")),
    }
    if uri.host().is_none() {
        return Err(bad("no host"));
    }
    Ok(uri)
}

fn join(base: &Uri, path: &str) -> Result<Uri, ClientError> {
    let prefix = base.path().trim_end_matches('/');
    let authority = http::authority(base)?;
    format!("http://{authority}{prefix}{path}")
        .parse()
        .map_err(|error: ::http::uri::InvalidUri| ClientError::Url {
            url: format!("{base}{path}"),
            problem: error.to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked_before_any_connection() {
        assert!(matches!(
            parse_http_uri("https://x/"),
            Err(ClientError::Url { .. })
        ));
        assert!(matches!(
            parse_http_uri("not a url"),
            Err(ClientError::Url { .. })
        ));
        assert!(matches!(
            parse_http_uri("/relative"),
            Err(ClientError::Url { .. })
        ));
        let base = parse_http_uri("http://agent:9000/a2a/").unwrap();
        assert_eq!(
            join(&base, "/.well-known/agent.json").unwrap().to_string(),
            "http://agent:9000/a2a/.well-known/agent.json"
        );
    }
}
