//! The `tenant` knob: a v1.0 runtime behind an endpoint shared by several agents declares
//! its tenant on every interface of its Card, and serves only the requests that carry it:
//! JSON-RPC in `params.tenant` (any other, or none, is -32602), HTTP+JSON under
//! `/{tenant}/` (the unprefixed routes do not exist). v0.1 and v0.3 have no tenant, and a
//! runtime speaking them serves as if the knob were absent.

use crate::support::{v1_0_answer, v1_0_text_answer};
use axum::Router;
use http::Method as HttpMethod;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Personality, Runtime, builtin};
use serde_json::{Value, json};
use std::time::Duration;

fn router(dialect: Dialect) -> Router {
    let personality = Personality {
        tenant: Some("acme".to_string()),
        ..builtin("python-correct").unwrap()
    };
    Runtime::new(personality, dialect, Clock::fixed(Duration::ZERO), 7).router()
}

fn get_task(params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": params})
}

#[tokio::test]
async fn every_v1_0_interface_declares_the_tenant_and_no_v0_3_one_does() {
    let v1_0 = router(Dialect::V1_0);
    let (_, card) = v1_0_answer(
        &v1_0,
        HttpMethod::GET,
        Dialect::V1_0.card_path(),
        Value::Null,
    )
    .await;
    let tenants: Vec<&Value> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|interface| &interface["tenant"])
        .collect();
    assert_eq!(tenants, [&json!("acme"), &json!("acme")], "{card}");
    let v0_3 = router(Dialect::V0_3);
    let (_, card) = v1_0_answer(
        &v0_3,
        HttpMethod::GET,
        Dialect::V0_3.card_path(),
        Value::Null,
    )
    .await;
    assert!(!card.to_string().contains("acme"), "{card}");
}

#[tokio::test]
async fn a_json_rpc_request_without_the_tenant_reaches_no_agent() {
    let router = router(Dialect::V1_0);
    for (params, named) in [
        (json!({"id": "t-9"}), "named no tenant"),
        (
            json!({"id": "t-9", "tenant": "globex"}),
            "named tenant `globex`",
        ),
    ] {
        let (status, body) = v1_0_answer(&router, HttpMethod::POST, "/", get_task(params)).await;
        assert_eq!(status, 200);
        assert_eq!(body["error"]["code"], -32602, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("tenant `acme`") && message.contains(named),
            "{message}"
        );
        assert_eq!(body["id"], 1, "the refusal answers the request's id");
    }
    // With it, the request reaches the agent: an unknown task is -32001.
    let with = get_task(json!({"id": "t-9", "tenant": "acme"}));
    let (_, body) = v1_0_answer(&router, HttpMethod::POST, "/", with).await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
}

#[tokio::test]
async fn http_json_is_served_under_the_tenant_only() {
    let router = router(Dialect::V1_0);
    let (status, body) =
        v1_0_answer(&router, HttpMethod::GET, "/acme/tasks/t-9", Value::Null).await;
    assert_eq!(
        (status, body["error"]["status"].as_str()),
        (404, Some("NOT_FOUND"))
    );
    // Without the tenant, or under another, there is no route, and the answer says where
    // the agent is served.
    for path in ["/tasks/t-9", "/globex/tasks/t-9"] {
        let (status, text) = v1_0_text_answer(&router, HttpMethod::GET, path, Value::Null).await;
        assert_eq!(status, 404, "{text}");
        assert!(
            text.contains(&format!("no route for `GET {path}`"))
                && text.contains("HTTP+JSON under `/acme`"),
            "{text}"
        );
    }
    let send = json!({"message": {"messageId": "m-1", "role": "ROLE_USER",
        "parts": [{"text": "book a table for two"}]}});
    let (status, body) = v1_0_answer(&router, HttpMethod::POST, "/acme/message:send", send).await;
    assert_eq!(status, 200, "{body}");
    assert!(body["task"]["id"].is_string(), "{body}");
}

#[tokio::test]
async fn before_v1_0_the_knob_changes_nothing() {
    let router = router(Dialect::V0_3);
    let request =
        json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"id": "t-9"}});
    let (_, body) = v1_0_answer(&router, HttpMethod::POST, "/", request).await;
    assert_eq!(body["error"]["code"], -32001, "{body}");
}
