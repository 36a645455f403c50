//! A client a user already has, unchanged in the simulation: hyper-util's pooled client over
//! `TurmoilConnector` talks to a router served under turmoil, and reuses its connection.

use axum::Router;
use axum::routing::get;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioIo};
use meshsim_sim::{SimListener, TurmoilConnector, serve};
use std::time::Duration;
use tower::ServiceExt;

#[test]
fn hyper_utils_client_runs_over_the_simulations_connector() {
    let mut sim = turmoil::Builder::new()
        .rng_seed(7)
        .max_message_latency(Duration::from_millis(5))
        .build();
    sim.host("agent", || async {
        let router = Router::new().route("/hello", get(|| async { "hello from agent" }));
        match serve(SimListener::bind(80).await?, router).await {}
    });
    sim.client("consumer", async {
        let connector =
            TurmoilConnector::new(Duration::from_millis(500)).map_response(TokioIo::new);
        let client: Client<_, Empty<Bytes>> =
            Client::builder(TokioExecutor::new()).build(connector);
        for _ in 0..2 {
            let response = client.get("http://agent:80/hello".parse()?).await?;
            assert_eq!(response.status(), http::StatusCode::OK);
            let body = response.into_body().collect().await?.to_bytes();
            assert_eq!(body, Bytes::from_static(b"hello from agent"));
        }
        let refused = client.get("http://nobody:80/hello".parse()?).await;
        assert!(
            refused.is_err(),
            "an unknown host must fail, got {refused:?}"
        );
        Ok(())
    });
    sim.run().unwrap();
}
