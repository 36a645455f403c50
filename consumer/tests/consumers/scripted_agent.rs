//! A v1.0 JSON-RPC agent on real loopback TCP whose every answer a test scripts, down to the
//! bytes and pauses of a stream: for what no personality does (a heartbeat that never ends
//! the turn, a malformed event, an error after a snapshot, a task answered under another id).

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// One piece of a scripted stream.
#[derive(Clone)]
pub enum Piece {
    /// An SSE event carrying this JSON-RPC result.
    Event(Value),
    /// These bytes, as they are.
    Raw(&'static str),
    /// This event every period, for good.
    Every(Duration, Value),
    /// Nothing more, with the stream left open.
    Hold,
}

/// How the agent answers one call.
pub enum Answer {
    /// A plain JSON-RPC result.
    Result(Value),
    /// This whole body, as it is (the envelope included).
    Body(Value),
    /// An SSE stream, then the connection closed (unless a piece never ends).
    Stream(Vec<Piece>),
}

/// What the script is asked: the call's method and params.
pub type Script = dyn Fn(&str, &Value) -> Answer + Send + Sync;

/// Serves the script on 127.0.0.1 and returns the agent's base URL.
pub async fn serve(script: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = card(&base);
    let script: Arc<Script> = Arc::new(script);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (script, card) = (script.clone(), card.clone());
            tokio::spawn(async move { answer(stream, &card, &*script).await });
        }
    });
    base
}

fn card(base: &str) -> Value {
    json!({
        "name": "scripted", "version": "1.0.0", "description": "a scripted agent",
        "supportedInterfaces": [
            {"url": format!("{base}/"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    })
}

async fn answer(stream: TcpStream, card: &Value, script: &Script) {
    let mut reader = BufReader::new(stream);
    let mut request_line = String::new();
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
            return;
        }
        if request_line.is_empty() {
            request_line = line.clone();
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).await.is_err() {
        return;
    }
    let mut stream = reader.into_inner();
    if request_line.starts_with("GET ") {
        let card = card.to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            card.len()
        );
        let _ = stream.write_all((head + &card).as_bytes()).await;
        return;
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let method = request["method"].as_str().unwrap_or_default();
    let id = request["id"].clone();
    let plain = match script(method, &request["params"]) {
        Answer::Result(result) => Some(reply(&id, &result)),
        Answer::Body(body) => Some(body),
        Answer::Stream(pieces) => {
            stream_answer(&mut stream, pieces, &id).await;
            None
        }
    };
    if let Some(body) = plain {
        let body = body.to_string();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all((head + &body).as_bytes()).await;
    }
}

/// Writes a scripted stream: its head, then each piece as the script says.
async fn stream_answer(stream: &mut TcpStream, pieces: Vec<Piece>, id: &Value) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if stream.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    let event = |result: &Value| format!("data: {}\n\n", reply(id, result));
    for piece in pieces {
        let written = match piece {
            Piece::Event(result) => stream.write_all(event(&result).as_bytes()).await,
            Piece::Raw(bytes) => stream.write_all(bytes.as_bytes()).await,
            Piece::Every(period, result) => loop {
                if stream.write_all(event(&result).as_bytes()).await.is_err() {
                    return;
                }
                meshsim_time::sleep(period).await;
            },
            Piece::Hold => {
                std::future::pending::<()>().await;
                return;
            }
        };
        if written.is_err() {
            return;
        }
    }
}

/// The JSON-RPC reply to the request of `id` carrying `result`.
fn reply(id: &Value, result: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A v1.0 status update of `task` into `state` (`TASK_STATE_...`).
pub fn status(task: &str, state: &str) -> Value {
    json!({"statusUpdate": {"taskId": task, "contextId": "c-1", "status": {"state": state}}})
}

/// A v1.0 task of id `task` in `state`, as `GetTask` answers it.
pub fn task(task: &str, state: &str) -> Value {
    json!({"id": task, "contextId": "c-1", "status": {"state": state}})
}

/// A v1.0 stream event carrying a snapshot of `task` in `state`.
pub fn snapshot(task_id: &str, state: &str) -> Value {
    json!({"task": task(task_id, state)})
}

/// The opening of a well-behaved first turn: the task, then `working`.
pub fn opening(task_id: &str) -> Vec<Piece> {
    vec![
        Piece::Event(snapshot(task_id, "TASK_STATE_SUBMITTED")),
        Piece::Event(status(task_id, "TASK_STATE_WORKING")),
    ]
}
