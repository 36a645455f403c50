//! The same `serve` on a real loopback listener: answers over HTTP/1.1 without a `Date`
//! header and reports the exchange to the recorder.

use axum::Router;
use axum::routing::get;
use bytes::Bytes;
use http::Request;
use http::header::{DATE, HOST};
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use meshsim_sim::Recorder;
use meshsim_sim::SimTime;
use meshsim_sim::serve;
use meshsim_trace::TraceEvent;

#[tokio::test]
async fn serve_answers_on_real_tcp_without_a_date_header() {
    let recorder = Recorder::new(SimTime::new());
    let _guard = recorder.install();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = Router::new().route("/hello", get(|| async { "hi" }));
    let server = tokio::spawn(async move { match serve(listener, router).await {} });

    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    let connection = tokio::spawn(connection);
    let request = Request::get("/hello")
        .header(HOST, addr.to_string())
        .body(Empty::<Bytes>::new())
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers().get(DATE).is_none(),
        "{:?}",
        response.headers()
    );
    let body = response.into_body().collect().await.unwrap().to_bytes();
    assert_eq!(body, "hi");

    drop(sender);
    connection.await.unwrap().unwrap();
    server.abort();
    let events = recorder.trace().events();
    let request = events
        .iter()
        .find(|line| matches!(line.event, TraceEvent::Request { .. }))
        .expect("a request event");
    assert!(
        matches!(&request.event, TraceEvent::Request { path, .. } if path == "/hello"),
        "{request:?}"
    );
    assert_eq!(request.host, "sim");
    assert!(
        events
            .iter()
            .any(|line| matches!(line.event, TraceEvent::Response { status: 200, .. }))
    );
}
