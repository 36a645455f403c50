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
                    let (binding, endpoint, tenant) =
                        chosen_interface(&card, dialect).map_err(|problem| {
                            ClientError::NoCard {
                                base: base.to_string(),
                                problem: format!("{path}: {problem}"),
                            }
                        })?;
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
                        tenant,
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
    let bytes = http::read_body(exchange, config.max_body_bytes).await?;
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

/// The first interface whose binding the client speaks in `dialect`, at an absolute http
/// URL, with that URL and the tenant it declares; otherwise why the Card offers none (the
/// client never guesses an endpoint the Card does not name: the specification's section
/// 8.3.2 has clients use the URL given for the transport they chose, and send the tenant
/// that interface declares in every request).
fn chosen_interface(
    card: &AgentCard,
    dialect: Dialect,
) -> Result<(Binding, Uri, Option<String>), String> {
    let mut passed_over = Vec::new();
    for interface in &card.interfaces {
        let named = format!("{} at `{}`", interface.protocol_binding, interface.url);
        let Some(binding) = Binding::from_name(&interface.protocol_binding)
            .filter(|binding| binding.exists_in(dialect))
        else {
            passed_over.push(format!(
                "{named}: a binding meshsim does not speak in {dialect}"
            ));
            continue;
        };
        match parse_http_uri(&interface.url) {
            Ok(url) => return Ok((binding, url, interface.tenant.clone())),
            Err(error) => passed_over.push(format!("{named}: {error}")),
        }
    }
    Err(if passed_over.is_empty() {
        "the Card lists no interface".to_string()
    } else {
        format!(
            "the Card offers no interface meshsim can reach ({})",
            passed_over.join("; ")
        )
    })
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
    use meshsim_protocol::AgentInterface;

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

    #[test]
    fn the_endpoint_and_tenant_are_the_first_reachable_interfaces_never_a_guess() {
        let card = |interfaces: &[(&str, &str)]| AgentCard {
            name: "agent".to_string(),
            description: None,
            version: "1.0.0".to_string(),
            interfaces: interfaces
                .iter()
                .map(|(binding, url)| AgentInterface {
                    url: url.to_string(),
                    protocol_binding: binding.to_string(),
                    protocol_version: Some("1.0".to_string()),
                    tenant: Some(format!("{}-tenant", binding.to_lowercase())),
                })
                .collect(),
            capabilities: Default::default(),
            default_input_modes: Vec::new(),
            default_output_modes: Vec::new(),
            skills: Vec::new(),
            security_schemes: Vec::new(),
        };
        let chosen = chosen_interface(
            &card(&[
                ("GRPC", "http://agent:9001/"),
                ("HTTP+JSON", "https://agent:9443/"),
                ("JSONRPC", "http://agent:9000/rpc"),
            ]),
            Dialect::V1_0,
        )
        .unwrap();
        assert_eq!(
            (chosen.0, chosen.1.to_string(), chosen.2.as_deref()),
            (
                Binding::JsonRpc,
                "http://agent:9000/rpc".to_string(),
                Some("jsonrpc-tenant")
            )
        );
        for (interfaces, expected) in [
            (
                &[("HTTP+JSON", "https://agent:9443/")][..],
                "scheme `https`",
            ),
            (&[("JSONRPC", "/a2a")][..], "not an absolute URL"),
            (
                &[("GRPC", "http://agent:9001/")][..],
                "does not speak in v1.0",
            ),
            (&[][..], "lists no interface"),
        ] {
            let problem = chosen_interface(&card(interfaces), Dialect::V1_0).unwrap_err();
            assert!(problem.contains(expected), "{problem}");
        }
    }
}
