//! Finding a peer: its Card fetched from `/.well-known/agent-card.json`, then
//! `/.well-known/agent.json`, the dialect the Card speaks and the interface to use: the
//! first of its `supportedInterfaces` whose binding the client speaks in that dialect, as
//! the v1.0 specification's section 8.3.2 says clients MUST choose ("select the first
//! supported transport"; the order is the agent's preference). Every built-in Card lists
//! JSON-RPC first, so a Card that offers both is spoken to over JSON-RPC.

use super::http;
use super::{A2aClient, ClientConfig, ClientError, Connector};
use ::http::{Method as HttpMethod, StatusCode, Uri};
use meshsim_protocol::{AgentCard, Binding, Dialect, detect};
use meshsim_trace::TraceEvent;
use std::sync::atomic::AtomicI64;

impl<C: Connector> A2aClient<C> {
    /// Fetches the peer's Card from `base` (`/.well-known/agent-card.json`, then
    /// `/.well-known/agent.json`), picks the dialect the Card speaks and the first interface
    /// it lists whose binding the client speaks.
    pub async fn discover(
        connector: C,
        base: &str,
        config: ClientConfig,
    ) -> Result<Self, ClientError> {
        let base_uri = parse_http_uri(base)?;
        let mut problems = Vec::new();
        for path in ["/.well-known/agent-card.json", "/.well-known/agent.json"] {
            let url = http::under(&base_uri, path)?;
            match fetch_card(&connector, &url, &config).await {
                Ok((card, dialect)) => {
                    let (binding, endpoint) = chosen_interface(&card, dialect)
                        .unwrap_or_else(|| (Binding::JsonRpc, base_uri.clone()));
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
                        binding,
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
    let request = http::request(HttpMethod::GET, url, "application/json", None, Some("1.0"))?;
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

/// The first interface the client speaks, with its URL (when a usable absolute http URL);
/// a Card naming none (e.g. only gRPC) is tried over JSON-RPC at its first interface.
fn chosen_interface(card: &AgentCard, dialect: Dialect) -> Option<(Binding, Uri)> {
    let spoken = card.interfaces.iter().find_map(|interface| {
        let binding = Binding::from_name(&interface.protocol_binding)?;
        binding
            .exists_in(dialect)
            .then_some((binding, &interface.url))
    });
    let (binding, url) =
        spoken.or_else(|| Some((Binding::JsonRpc, &card.interfaces.first()?.url)))?;
    Some((binding, parse_http_uri(url).ok()?))
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
            http::under(&base, "/.well-known/agent.json")
                .unwrap()
                .to_string(),
            "http://agent:9000/a2a/.well-known/agent.json"
        );
    }
}
