//! The `bindings` knob: a v1.0 runtime serves JSON-RPC, HTTP+JSON or both, its Card lists
//! exactly the bindings served, and the routes of one it does not serve answer `404` like
//! any unknown path (as the real a2a-sdk 1.3.0 app built without that binding's routes
//! does). v0.1 and v0.3 serve JSON-RPC whatever the knob says.

use crate::support::{v1_0_answer, v1_0_text_answer};
use axum::Router;
use http::Method as HttpMethod;
use meshsim_protocol::Dialect;
use meshsim_protocol::clock::Clock;
use meshsim_runtimes::{Bindings, Personality, Runtime, builtin};
use serde_json::{Value, json};
use std::time::Duration;

fn router(bindings: Bindings, dialect: Dialect) -> Router {
    let personality = Personality {
        bindings,
        ..builtin("python-correct").unwrap()
    };
    Runtime::new(personality, dialect, Clock::fixed(Duration::ZERO), 7).router()
}

/// The Card's `(protocolBinding, url)` pairs.
async fn card_interfaces(router: &Router, dialect: Dialect) -> Vec<(String, String)> {
    let (status, card) =
        v1_0_answer(router, HttpMethod::GET, dialect.card_path(), Value::Null).await;
    assert_eq!(status, 200);
    let (list, binding_field) = match dialect {
        Dialect::V1_0 => (card["supportedInterfaces"].clone(), "protocolBinding"),
        _ => (json!([card]), "preferredTransport"),
    };
    list.as_array()
        .unwrap()
        .iter()
        .map(|interface| {
            let binding = interface[binding_field].as_str().unwrap_or("JSONRPC");
            (
                binding.to_string(),
                interface["url"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// A `tasks/get` of an unknown task over each binding: served, it answers -32001 (HTTP 200
/// over JSON-RPC, 404 with the binding's error body over HTTP+JSON); not served, a bare 404.
async fn get_over_each_binding(router: &Router) -> (u16, Value, u16, Value) {
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "t-9"}});
    let (rpc_status, rpc_body) = v1_0_answer(router, HttpMethod::POST, "/", rpc).await;
    let (rest_status, rest_body) =
        v1_0_answer(router, HttpMethod::GET, "/tasks/t-9", Value::Null).await;
    (rpc_status, rpc_body, rest_status, rest_body)
}

#[tokio::test]
async fn a_v1_0_runtime_serves_and_lists_exactly_the_bindings_the_knob_names() {
    let jsonrpc = ("JSONRPC".to_string(), "http://agent.test/".to_string());
    let http_json = ("HTTP+JSON".to_string(), "http://agent.test".to_string());
    for (bindings, listed) in [
        (Bindings::Both, vec![jsonrpc.clone(), http_json.clone()]),
        (Bindings::JsonRpc, vec![jsonrpc.clone()]),
        (Bindings::HttpJson, vec![http_json.clone()]),
    ] {
        let router = router(bindings, Dialect::V1_0);
        assert_eq!(
            card_interfaces(&router, Dialect::V1_0).await,
            listed,
            "{bindings:?}"
        );
        let (rpc_status, rpc_body, rest_status, rest_body) = get_over_each_binding(&router).await;
        if bindings == Bindings::HttpJson {
            assert_eq!((rpc_status, &rpc_body), (404, &Value::Null), "{bindings:?}");
        } else {
            assert_eq!(rpc_status, 200, "{bindings:?}");
            assert_eq!(
                rpc_body["error"]["code"], -32001,
                "{bindings:?}: {rpc_body}"
            );
        }
        assert_eq!(rest_status, 404, "{bindings:?}");
        if bindings == Bindings::JsonRpc {
            assert_eq!(
                rest_body,
                Value::Null,
                "{bindings:?}: not the binding's error body"
            );
        } else {
            assert_eq!(
                rest_body["error"]["details"][0]["reason"], "TASK_NOT_FOUND",
                "{bindings:?}: {rest_body}"
            );
        }
    }
}

#[tokio::test]
async fn v0_1_and_v0_3_serve_json_rpc_whatever_the_knob_says() {
    for dialect in [Dialect::V0_1, Dialect::V0_3] {
        for bindings in Bindings::ALL {
            let router = router(bindings, dialect);
            let interfaces = card_interfaces(&router, dialect).await;
            assert_eq!(
                interfaces,
                [("JSONRPC".to_string(), "http://agent.test/".to_string())],
                "{dialect} {bindings:?}"
            );
            let (status, text) =
                v1_0_text_answer(&router, HttpMethod::GET, "/tasks/t-9", Value::Null).await;
            assert_eq!(status, 404, "{dialect} {bindings:?}: no HTTP+JSON routes");
            // The answer says what is served where, and names no HTTP+JSON.
            let served = format!(
                "this agent serves its Agent Card at `GET {}`, JSON-RPC at `POST /`\n",
                dialect.card_path()
            );
            assert!(text.ends_with(&served), "{dialect} {bindings:?}: {text}");
        }
    }
}

#[test]
fn the_knob_reads_from_a_personality_file_and_refuses_what_cannot_be_served() {
    let read = Personality::from_json(r#"{"bindings": "http-json"}"#, "inline").unwrap();
    assert_eq!(read.bindings, Bindings::HttpJson);
    assert_eq!(Personality::default().bindings, Bindings::Both);
    let unknown = Personality::from_json(r#"{"bindings": "grpc"}"#, "inline").unwrap_err();
    assert!(unknown.to_string().contains("bindings"), "{unknown}");
    let compat = r#"{"bindings": "http-json", "v0_3_compat": true}"#;
    let refused = Personality::from_json(compat, "inline").unwrap_err();
    assert!(
        refused.to_string().contains("v0_3_compat"),
        "the error names the clash: {refused}"
    );
}
