//! An official client as a witness: what it parsed through a whole lifecycle (the JSON
//! report `interop/python/client.py` and `interop/js/client.mjs` print) checked against what
//! the personality's knobs say it does and against what `meshsim serve` answers for the same
//! tasks, read without any client library.
//!
//! The lifecycle: a streamed first turn that ends in `input-required`, a streamed follow-up
//! answering it, `get_task` of the task the follow-up answered, `list_tasks`, a second task
//! canceled while it waits, and `get_task` of a task that does not exist.

use super::decoding::raw_post;
use super::process::{official_client, official_client_over, start_mock};
use super::{ClientErrors, Sdk};
use meshsim_protocol::Dialect;
use meshsim_runtimes::Personality;
use meshsim_runtimes::Reaping;
use serde_json::{Value, json};

/// Runs `sdk`'s official client against every built-in personality served in each dialect
/// the client speaks (v1.0, and v0.3 through its compatibility layer, chosen from the Card),
/// and asserts what it saw with [`assert_witnessed`].
///
/// A case is half a second of CPU (the interpreter importing the SDK) and a second or two of
/// waiting on the personality's real timers, so each dialect's cases, each with a server of
/// its own, run side by side.
pub fn witness_every_personality(sdk: Sdk) {
    for dialect in [Dialect::V1_0, Dialect::V0_3] {
        for_every_builtin(|personality| {
            let (_mock, url) = start_mock(&personality.name, dialect.name());
            let seen = official_client(sdk, &url);
            assert_witnessed(personality, dialect, &url, &seen, sdk.client_errors());
        });
    }
}

/// Runs the Python client, allowed only the HTTP+JSON binding, against every built-in
/// personality served in v1.0, and asserts what it saw as [`witness_every_personality`] does
/// (the read-back compared with what JSON-RPC serves for the same tasks: one store).
pub fn witness_every_personality_over_http_json() {
    for_every_builtin(|personality| {
        let (_mock, url) = start_mock(&personality.name, Dialect::V1_0.name());
        let seen = official_client_over(Sdk::Python, &url, "HTTP+JSON");
        assert_witnessed(
            personality,
            Dialect::V1_0,
            &url,
            &seen,
            Sdk::Python.client_errors(),
        );
    });
}

/// Runs `case` for every built-in personality, each on a thread of its own; a case that
/// panics fails the test once every case has ended.
fn for_every_builtin(case: impl Fn(&Personality) + Sync) {
    let personalities = meshsim_runtimes::builtins();
    std::thread::scope(|cases| {
        for personality in &personalities {
            let case = &case;
            cases.spawn(move || case(personality));
        }
    });
}

/// Asserts that `seen`, the report of a client that names its errors as `errors`, against
/// `personality` served in `dialect` at `url`, is the documented lifecycle and equals what
/// the agent serves.
pub fn assert_witnessed(
    personality: &Personality,
    dialect: Dialect,
    url: &str,
    seen: &Value,
    errors: ClientErrors,
) {
    let not_found = errors.not_found;
    let context = format!("{} in {dialect}: the client saw {seen}", personality.name);
    let first = &seen["first_turn"];
    let follow_up = &seen["follow_up"];
    assert_eq!(last_state(first), "TASK_STATE_INPUT_REQUIRED", "{context}");

    if personality.reaping == Reaping::OnStreamClose {
        // Documented: the task is reaped when its stream closes (the client closes it at
        // input-required), so the follow-up starts a new task that asks again, and every
        // read-back of a task whose stream has closed finds nothing.
        assert_ne!(follow_up["task_id"], first["task_id"], "{context}");
        assert_eq!(
            last_state(follow_up),
            "TASK_STATE_INPUT_REQUIRED",
            "{context}"
        );
        assert_eq!(seen["get_task"]["error"], not_found, "{context}");
        if dialect == Dialect::V1_0 {
            assert_eq!(seen["list_tasks"]["ids"], json!([]), "{context}");
        }
        assert_eq!(seen["cancel_task"]["error"], not_found, "{context}");
    } else {
        assert_eq!(follow_up["task_id"], first["task_id"], "{context}");
        assert_eq!(last_state(follow_up), "TASK_STATE_COMPLETED", "{context}");
        let read = &seen["get_task"];
        assert_eq!(read["id"], follow_up["task_id"], "{context}");
        assert_eq!(read["state"], "TASK_STATE_COMPLETED", "{context}");
        let history = read["history"]
            .as_array()
            .unwrap_or_else(|| panic!("no parsed history: {context}"));
        let said = |role: &str, text: &str| {
            history
                .iter()
                .any(|message| message["role"] == role && message["text"] == text)
        };
        assert!(said("ROLE_USER", "markdown"), "{context}");
        assert!(
            history
                .iter()
                .any(|message| message["role"] == "ROLE_AGENT"),
            "{context}"
        );
        assert_eq!(count(&read["artifacts"]), 1, "{context}");
        if dialect == Dialect::V1_0 {
            let listed = seen["list_tasks"]["ids"]
                .as_array()
                .unwrap_or_else(|| panic!("no listed ids: {context}"));
            assert!(listed.contains(&read["id"]), "{context}");
        }
        assert_eq!(
            seen["cancel_task"]["id"], seen["waiting_task_id"],
            "{context}"
        );
        assert_eq!(
            seen["cancel_task"]["state"], "TASK_STATE_CANCELED",
            "{context}"
        );
    }
    assert_eq!(seen["unknown_task"]["error"], not_found, "{context}");
    if dialect != Dialect::V1_0 {
        // ListTasks is new in v1.0: the client refuses it itself, before sending anything.
        assert_eq!(
            seen["list_tasks"]["error"], errors.no_list_in_v0_3,
            "{context}"
        );
    }

    // Each task the client read back, as the agent serves it now.
    for (parsed, id) in [
        (&seen["get_task"], &follow_up["task_id"]),
        (&seen["cancel_task"], &seen["waiting_task_id"]),
    ] {
        let served = served_task(url, dialect, id);
        if served["error"]["code"] == -32001 {
            assert_eq!(parsed["error"], not_found, "{context}; served {served}");
            continue;
        }
        let task = &served["result"];
        assert_eq!(
            state_name(&task["status"]["state"]),
            parsed["state"],
            "{context}; served {served}"
        );
        assert_eq!(
            count(&task["history"]),
            count(&parsed["history"]),
            "{context}; served {served}"
        );
        assert_eq!(
            count(&task["artifacts"]),
            count(&parsed["artifacts"]),
            "{context}; served {served}"
        );
    }
}

/// The last state a streamed turn reported.
fn last_state(turn: &Value) -> &Value {
    turn["states"]
        .as_array()
        .and_then(|states| states.last())
        .unwrap_or(&Value::Null)
}

/// The length of a JSON array (0 when absent).
fn count(value: &Value) -> usize {
    value.as_array().map_or(0, Vec::len)
}

/// The task `id` as the agent serves it in `dialect`: the JSON-RPC answer to a get.
fn served_task(url: &str, dialect: Dialect, id: &Value) -> Value {
    match dialect {
        Dialect::V1_0 => {
            let get = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask",
                "params": {"id": id}});
            raw_post(url, &[("A2A-Version", "1.0")], &get)
        }
        Dialect::V0_1 | Dialect::V0_3 => {
            let get = json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/get",
                "params": {"id": id}});
            raw_post(url, &[], &get)
        }
    }
}

/// A served state in the client's spelling (the v1.0 proto enum name): v1.0 serves that
/// name, v0.3 its kebab-case value.
fn state_name(served: &Value) -> String {
    let state = served.as_str().unwrap_or_default();
    if state.starts_with("TASK_STATE_") {
        state.to_string()
    } else {
        format!("TASK_STATE_{}", state.replace('-', "_").to_uppercase())
    }
}
