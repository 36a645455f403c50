//! `meshsim serve` against bad input, slow clients, too many streams, a full task store,
//! missing or foreign bearer tokens, and SIGTERM: each answer is asserted here and
//! rendered into the `serve-bad-inputs` table of docs/hardening.md, which must match
//! (`MESHSIM_BLESS=1` rewrites it).

use crate::hardening::{
    Reply, cell, check_doc_table, connect, exchange, post, read_reply, scratch, serve,
};
use std::io::Write;

const V1: &str = "A2A-Version: 1.0\r\n";

/// A personality whose work steps take 4 s, so streams stay open while the test looks.
fn slow_personality() -> &'static str {
    std::fs::write(
        scratch().join("slow.json"),
        r#"{"name": "slow-worker", "work": {"min_ms": 4000, "max_ms": 4000}}"#,
    )
    .expect("write personality");
    "slow.json"
}

fn rpc(method: &str, params: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":7,"method":"{method}","params":{params}}}"#).into_bytes()
}

fn send_params(text: &str, extra: &str) -> String {
    format!(
        r#"{{"message":{{"messageId":"m-{text}","role":"ROLE_USER","parts":[{{"text":"{text}"}}]}}{extra}}}"#
    )
}

/// Task ids are seeded UUIDs; the table shows `<task>` instead.
fn mask_ids(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            let hex = word.trim_matches(|c: char| !c.is_ascii_hexdigit() && c != '-');
            let shape: Vec<usize> = hex.split('-').map(str::len).collect();
            if shape == [8, 4, 4, 4, 12] {
                word.replace(hex, "<task>")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

struct Table(Vec<String>);

impl Table {
    /// Asserts `reply` answered with `status` and JSON-RPC `code` (`None`: no error body)
    /// and adds its row.
    fn row(&mut self, input: &str, reply: &Reply, status: Option<u16>, code: Option<i64>) {
        let error = reply.rpc_error();
        assert!(!reply.timed_out, "{input}: the server hung: {reply:?}");
        assert_eq!(reply.status, status, "{input}: {reply:?}");
        assert_eq!(
            error.as_ref().map(|(code, _)| *code),
            code,
            "{input}: {reply:?}"
        );
        let http = match reply.status {
            Some(status) => status.to_string(),
            None => "connection closed, no answer".to_string(),
        };
        let message = match error {
            Some((_, message)) => mask_ids(&message),
            None if reply.status.is_none() => String::new(),
            None if reply.body.trim().is_empty() => "(empty body)".to_string(),
            None => format!("(body: {})", reply.body.trim()),
        };
        let code = code.map_or("-".to_string(), |code| code.to_string());
        self.0.push(format!(
            "| {} | {http} | {code} | {} |",
            cell(input),
            cell(&message)
        ));
    }

    fn render(&self) -> String {
        let mut table =
            String::from("| Bad input | HTTP | JSON-RPC code | Message |\n|---|---|---|---|\n");
        for row in &self.0 {
            table.push_str(row);
            table.push('\n');
        }
        table
    }
}

#[test]
fn bad_input_gets_the_documented_answer() {
    let open = serve(&[
        "--runtime",
        slow_personality(),
        "--seed",
        "3",
        "--max-body-bytes",
        "4096",
        "--body-timeout-ms",
        "300",
        "--header-timeout-ms",
        "300",
        "--max-streams",
        "2",
        "--max-tasks",
        "2",
    ]);
    let addr = open.addr;
    let mut table = Table(Vec::new());
    let mut t = |input: &str, raw: Vec<u8>, status: Option<u16>, code: Option<i64>| {
        let reply = exchange(addr, &raw);
        table.row(input, &reply, status, code);
    };

    // JSON-RPC and A2A errors: HTTP 200 with an error body.
    t(
        "malformed JSON `{bad`",
        post(b"{bad", V1),
        Some(200),
        Some(-32700),
    );
    t("empty body", post(b"", V1), Some(200), Some(-32700));
    t(
        "body not UTF-8 (`{\"a\":\"\\xff\"}`)",
        post(b"{\"a\":\"\xff\"}", V1),
        Some(200),
        Some(-32700),
    );
    let deep = "[".repeat(4000);
    t(
        "JSON nested 4,000 deep",
        post(deep.as_bytes(), V1),
        Some(200),
        Some(-32700),
    );
    t(
        "id is a number beyond f64 (`1e999999`)",
        post(br#"{"jsonrpc":"2.0","id":1e999999,"method":"GetTask"}"#, V1),
        Some(200),
        Some(-32700),
    );
    t("batch `[]`", post(b"[]", V1), Some(200), Some(-32600));
    t(
        "batch of one valid request",
        post(
            format!(
                "[{}]",
                String::from_utf8(rpc("GetTask", r#"{"id":"x"}"#)).unwrap()
            )
            .as_bytes(),
            V1,
        ),
        Some(200),
        Some(-32600),
    );
    t(
        "a JSON string, not an object",
        post(b"\"hello\"", V1),
        Some(200),
        Some(-32600),
    );
    t(
        "`\"jsonrpc\": \"1.0\"`",
        post(
            br#"{"jsonrpc":"1.0","id":1,"method":"GetTask","params":{"id":"x"}}"#,
            V1,
        ),
        Some(200),
        Some(-32600),
    );
    t(
        "no `jsonrpc` member",
        post(br#"{"id":1,"method":"GetTask","params":{"id":"x"}}"#, V1),
        Some(200),
        Some(-32600),
    );
    t(
        "`method` is a number",
        post(br#"{"jsonrpc":"2.0","id":1,"method":5}"#, V1),
        Some(200),
        Some(-32600),
    );
    t(
        "`id` is an object",
        post(
            br#"{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"x"}}"#,
            V1,
        ),
        Some(200),
        Some(-32600),
    );
    t(
        "unknown method `Nope`",
        post(&rpc("Nope", "{}"), V1),
        Some(200),
        Some(-32601),
    );
    t(
        "v0.3 method `message/send` on a v1.0 server (`A2A-Version: 1.0`)",
        post(&rpc("message/send", "{}"), V1),
        Some(200),
        Some(-32601),
    );
    t(
        "v1.0 method without `A2A-Version` (read as 0.3)",
        post(&rpc("GetTask", r#"{"id":"x"}"#), ""),
        Some(200),
        Some(-32009),
    );
    t(
        "`A2A-Version: 2.0`",
        post(&rpc("GetTask", r#"{"id":"x"}"#), "A2A-Version: 2.0\r\n"),
        Some(200),
        Some(-32009),
    );
    t(
        "GetTask without `params.id`",
        post(&rpc("GetTask", "{}"), V1),
        Some(200),
        Some(-32602),
    );
    t(
        "GetTask with `params.id` a number",
        post(&rpc("GetTask", r#"{"id":5}"#), V1),
        Some(200),
        Some(-32602),
    );
    t(
        "SendMessage with `parts` a string",
        post(
            &rpc(
                "SendMessage",
                r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":"hi"}}"#,
            ),
            V1,
        ),
        Some(200),
        Some(-32602),
    );
    t(
        "SendMessage with role `ROLE_ROBOT`",
        post(
            &rpc(
                "SendMessage",
                r#"{"message":{"messageId":"m","role":"ROLE_ROBOT","parts":[]}}"#,
            ),
            V1,
        ),
        Some(200),
        Some(-32602),
    );
    t(
        "ListTasks with `pageSize` -1",
        post(&rpc("ListTasks", r#"{"pageSize":-1}"#), V1),
        Some(200),
        Some(-32602),
    );
    t(
        "GetTask of an unknown task",
        post(&rpc("GetTask", r#"{"id":"no-such-task"}"#), V1),
        Some(200),
        Some(-32001),
    );

    // HTTP-level refusals.
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{{"id":"{}"}}}}"#,
        "x".repeat(5000)
    );
    let over = format!(
        "body of {} bytes over `--max-body-bytes 4096` (Content-Length)",
        big.len()
    );
    t(&over, post(big.as_bytes(), V1), Some(413), Some(-32600));
    let mut chunked = b"POST / HTTP/1.1\r\nHost: agent.test\r\nA2A-Version: 1.0\r\nTransfer-Encoding: chunked\r\n\r\n".to_vec();
    for _ in 0..5 {
        chunked.extend_from_slice(format!("400\r\n{}\r\n", " ".repeat(0x400)).as_bytes());
    }
    chunked.extend_from_slice(b"0\r\n\r\n");
    t(
        "chunked body growing past 4096 bytes (no Content-Length)",
        chunked,
        Some(413),
        Some(-32600),
    );
    t(
        "`Content-Length: 100` then only 10 bytes (slow body, `--body-timeout-ms 300`)",
        b"POST / HTTP/1.1\r\nHost: agent.test\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"".to_vec(),
        Some(408),
        Some(-32600),
    );
    t(
        "request head never finished (slowloris, `--header-timeout-ms 300`)",
        b"POST / HTTP/1.1\r\nHost: agent.test\r\nX-Slow: ".to_vec(),
        None,
        None,
    );
    t(
        "GET `/` (JSON-RPC needs POST)",
        b"GET / HTTP/1.1\r\nHost: agent.test\r\n\r\n".to_vec(),
        Some(405),
        None,
    );
    t(
        "POST to `/nope`",
        b"POST /nope HTTP/1.1\r\nHost: agent.test\r\nContent-Length: 2\r\n\r\n{}".to_vec(),
        Some(404),
        None,
    );
    t(
        "not HTTP at all (`hello\\r\\n\\r\\n`)",
        b"hello\r\n\r\n".to_vec(),
        Some(400),
        None,
    );

    // An idle keep-alive connection is closed after the header timeout.
    let mut idle = connect(addr);
    idle.write_all(&post(&rpc("GetTask", r#"{"id":"x"}"#), V1))
        .unwrap();
    let first = read_reply(&mut idle);
    assert_eq!(first.status, Some(200));
    // Closed by the server, not given up on by the client (`Table::row` checks that too).
    let after_idle = read_reply(&mut idle);
    assert!(
        after_idle.closed && !after_idle.timed_out && after_idle.status.is_none(),
        "{after_idle:?}"
    );
    table.row(
        "keep-alive connection left idle past `--header-timeout-ms 300`",
        &after_idle,
        None,
        None,
    );

    // Two streams held open (4 s work steps), a third refused.
    let stream = |text: &str| {
        let mut connection = connect(addr);
        connection
            .write_all(&post(
                &rpc("SendStreamingMessage", &send_params(text, "")),
                V1,
            ))
            .unwrap();
        let mut head = [0u8; 12];
        std::io::Read::read_exact(&mut connection, &mut head).unwrap();
        assert_eq!(&head, b"HTTP/1.1 200");
        connection
    };
    let held = [stream("one"), stream("two")];
    let third = exchange(
        addr,
        &post(&rpc("SendStreamingMessage", &send_params("three", "")), V1),
    );
    assert_eq!(third.header("retry-after"), Some("1"));
    table.row(
        "a third stream while `--max-streams 2` are open",
        &third,
        Some(503),
        Some(-32603),
    );
    // The two streaming tasks fill `--max-tasks 2`, and neither has finished.
    let full = exchange(
        addr,
        &post(
            &rpc(
                "SendMessage",
                &send_params("three", r#","configuration":{"returnImmediately":true}"#),
            ),
            V1,
        ),
    );
    table.row(
        "a new task while `--max-tasks 2` tasks are all unfinished",
        &full,
        Some(200),
        Some(-32603),
    );
    drop(held);

    // Bearer tokens.
    let secured = serve(&[
        "--runtime",
        "python-correct",
        "--seed",
        "3",
        "--token",
        "alpha",
        "--token",
        "beta",
    ]);
    let addr = secured.addr;
    let alpha = "Authorization: Bearer alpha\r\nA2A-Version: 1.0\r\n";
    let beta = "Authorization: Bearer beta\r\nA2A-Version: 1.0\r\n";
    let missing = exchange(addr, &post(&rpc("GetTask", r#"{"id":"x"}"#), V1));
    assert_eq!(
        missing.header("www-authenticate"),
        Some("Bearer realm=\"meshsim\"")
    );
    table.row(
        "no `Authorization` header (server run with `--token`)",
        &missing,
        Some(401),
        Some(-32600),
    );
    let wrong = exchange(
        addr,
        &post(
            &rpc("GetTask", r#"{"id":"x"}"#),
            "Authorization: Bearer gamma\r\nA2A-Version: 1.0\r\n",
        ),
    );
    table.row("unknown bearer token", &wrong, Some(401), Some(-32600));
    let basic = exchange(
        addr,
        &post(
            &rpc("GetTask", r#"{"id":"x"}"#),
            "Authorization: Basic YWxwaGE=\r\nA2A-Version: 1.0\r\n",
        ),
    );
    table.row(
        "`Authorization: Basic …` instead of Bearer",
        &basic,
        Some(401),
        Some(-32600),
    );
    let created = exchange(
        addr,
        &post(
            &rpc(
                "SendMessage",
                &send_params("plan", r#","configuration":{"returnImmediately":true}"#),
            ),
            alpha,
        ),
    );
    let task: serde_json::Value = serde_json::from_str(&created.body).expect(&created.body);
    let id = task["result"]["task"]["id"]
        .as_str()
        .expect(&created.body)
        .to_string();
    let own = exchange(
        addr,
        &post(&rpc("GetTask", &format!(r#"{{"id":"{id}"}}"#)), alpha),
    );
    assert!(own.rpc_error().is_none(), "{own:?}");
    let lower = exchange(
        addr,
        &post(
            &rpc("GetTask", &format!(r#"{{"id":"{id}"}}"#)),
            "Authorization: bearer alpha\r\nA2A-Version: 1.0\r\n",
        ),
    );
    assert!(
        lower.rpc_error().is_none(),
        "the scheme is case-insensitive: {lower:?}"
    );
    let foreign = exchange(
        addr,
        &post(&rpc("GetTask", &format!(r#"{{"id":"{id}"}}"#)), beta),
    );
    table.row(
        "token `beta` reads a task of token `alpha`",
        &foreign,
        Some(200),
        Some(-32001),
    );
    let cancel = exchange(
        addr,
        &post(&rpc("CancelTask", &format!(r#"{{"id":"{id}"}}"#)), beta),
    );
    table.row(
        "token `beta` cancels a task of token `alpha`",
        &cancel,
        Some(200),
        Some(-32001),
    );
    let subscribe = exchange(
        addr,
        &post(
            &rpc("SubscribeToTask", &format!(r#"{{"id":"{id}"}}"#)),
            beta,
        ),
    );
    table.row(
        "token `beta` subscribes to a task of token `alpha`",
        &subscribe,
        Some(200),
        Some(-32001),
    );
    let still = exchange(
        addr,
        &post(&rpc("GetTask", &format!(r#"{{"id":"{id}"}}"#)), alpha),
    );
    assert!(
        still.rpc_error().is_none(),
        "alpha's task survived beta's cancel: {still:?}"
    );

    check_doc_table("serve-bad-inputs", &table.render());
}

#[test]
fn the_card_declares_the_bearer_scheme_in_each_dialect() {
    for (dialect, pointer, expected) in [
        (
            "v1.0",
            "/securitySchemes/bearer/httpAuthSecurityScheme/scheme",
            "Bearer",
        ),
        ("v0.3", "/securitySchemes/bearer/scheme", "bearer"),
        ("v0.1", "/authentication/schemes/0", "Bearer"),
    ] {
        let served = serve(&[
            "--runtime",
            "python-correct",
            "--dialect",
            dialect,
            "--token",
            "alpha",
        ]);
        let path = if dialect == "v0.1" {
            "agent.json"
        } else {
            "agent-card.json"
        };
        let reply = exchange(
            served.addr,
            format!("GET /.well-known/{path} HTTP/1.1\r\nHost: agent.test\r\n\r\n").as_bytes(),
        );
        assert_eq!(reply.status, Some(200), "{reply:?}");
        let card: serde_json::Value = serde_json::from_str(&reply.body).expect(&reply.body);
        assert_eq!(
            card.pointer(pointer).and_then(|v| v.as_str()),
            Some(expected),
            "{dialect}: {card}"
        );
        // Without --token the Card declares nothing.
        let open = serve(&["--runtime", "python-correct", "--dialect", dialect]);
        let reply = exchange(
            open.addr,
            format!("GET /.well-known/{path} HTTP/1.1\r\nHost: agent.test\r\n\r\n").as_bytes(),
        );
        let card: serde_json::Value = serde_json::from_str(&reply.body).expect(&reply.body);
        assert!(card.pointer(pointer).is_none(), "{dialect}: {card}");
    }
}

#[test]
fn sigterm_ends_open_streams_cleanly_and_exits_0() {
    let mut served = serve(&["--runtime", slow_personality(), "--seed", "3"]);
    let mut stream = connect(served.addr);
    stream
        .write_all(&post(
            &rpc("SendStreamingMessage", &send_params("plan", "")),
            V1,
        ))
        .unwrap();
    let mut received = Vec::new();
    let mut chunk = [0u8; 4096];
    // The first event (the submitted task) arrives before the 4 s work step ends.
    while !String::from_utf8_lossy(&received).contains("data:") {
        let n = std::io::Read::read(&mut stream, &mut chunk).expect("first event");
        assert!(n > 0, "closed early");
        received.extend_from_slice(&chunk[..n]);
    }
    let status = std::process::Command::new("kill")
        .args(["-TERM", &served.child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    // Each read waits at most `READ_TIMEOUT`: a server that held the stream open until its
    // 4 s work step ended would still answer in time, so the stream's content says whether
    // it ended at SIGTERM: no work step finished, so nothing after the submitted task.
    loop {
        match std::io::Read::read(&mut stream, &mut chunk) {
            Ok(0) => break,
            Ok(n) => received.extend_from_slice(&chunk[..n]),
            Err(error) => panic!("stream broke instead of ending: {error}"),
        }
    }
    let text = String::from_utf8_lossy(&received);
    assert!(
        !text.contains("TASK_STATE_WORKING") && !text.contains("TASK_STATE_COMPLETED"),
        "the stream ran on past SIGTERM: {text}"
    );
    // The chunked body's terminating chunk: a clean end, not a reset.
    assert!(
        received.ends_with(b"0\r\n\r\n"),
        "{}",
        String::from_utf8_lossy(&received)
    );
    let exit = served.child.wait().expect("exits");
    assert_eq!(exit.code(), Some(0));
    let tail = served.stdout_tail();
    assert!(
        tail.contains("SIGTERM: stopped (1 requests or streams open, 0 cut)"),
        "{tail}"
    );
}

#[test]
fn a_non_loopback_address_needs_the_explicit_flag() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_meshsim"))
        .args([
            "serve",
            "--runtime",
            "python-correct",
            "--addr",
            "0.0.0.0:0",
        ])
        .output()
        .expect("runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--allow-non-loopback"), "{stderr}");
    let served = serve(&[
        "--runtime",
        "python-correct",
        "--addr",
        "0.0.0.0:0",
        "--allow-non-loopback",
    ]);
    assert!(served.addr.ip().is_unspecified());
}

/// A client that sends a 4 MiB body whole before reading (as Python's `http.client` does,
/// without `Expect: 100-continue`) reads the 413 and its JSON-RPC error: the server drains
/// the refused body (within its bound) instead of resetting the connection under the sender.
#[test]
fn a_4_mib_body_sent_without_waiting_gets_the_413_and_its_error() {
    let served = serve(&["--runtime", "a2a-python-1.3", "--dialect", "v1.0"]);
    let padding = "x".repeat(4 << 20);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{{"id":"t","pad":"{padding}"}}}}"#
    );
    let mut stream = connect(served.addr);
    let sent = stream.write_all(&post(body.as_bytes(), V1));
    let reply = read_reply(&mut stream);
    assert!(sent.is_ok(), "the whole body could not be sent: {sent:?}");
    assert_eq!(reply.status, Some(413), "{reply:?}");
    let (code, message) = reply.rpc_error().expect("a JSON-RPC error body");
    assert_eq!(code, -32600);
    assert!(
        message.contains("over the limit of 1048576 bytes"),
        "{message}"
    );
    assert_eq!(reply.header("connection"), Some("close"));
}
