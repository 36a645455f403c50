//! How an agent reads `ListTasks`' `status` filter when it holds a value outside the proto:
//! @a2a-js/sdk 1.3's client sends `"status": "UNRECOGNIZED"` for a list without a filter.
//! Each count is the number of tasks a raw v1.0 `ListTasks` returns.

use super::decoding::raw_post;
use serde_json::{Value, json};

/// The number of tasks `ListTasks` with `params` lists at `base`.
fn listed(base: &str, params: Value) -> usize {
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "ListTasks", "params": params});
    let answer = raw_post(base, &[("A2A-Version", "1.0")], &request);
    answer["result"]["tasks"]
        .as_array()
        .unwrap_or_else(|| panic!("ListTasks {params} at {base}: {answer}"))
        .len()
}

/// The counts for: no filter, `"UNRECOGNIZED"`, `TASK_STATE_UNSPECIFIED`, and the number 99.
pub fn status_filter_counts(base: &str) -> [usize; 4] {
    [
        listed(base, json!({})),
        listed(base, json!({"status": "UNRECOGNIZED"})),
        listed(base, json!({"status": "TASK_STATE_UNSPECIFIED"})),
        listed(base, json!({"status": 99})),
    ]
}

/// Starts one task at `base` (it completes at once: the TCK's `tck-complete-task` prefix,
/// which every personality honours), so a list has something to show.
pub fn one_task(base: &str) {
    let request = json!({"jsonrpc": "2.0", "id": 8, "method": "SendMessage", "params": {
        "message": {"messageId": "tck-complete-task-1", "role": "ROLE_USER",
            "parts": [{"text": "hello"}]}}});
    let answer = raw_post(base, &[("A2A-Version", "1.0")], &request);
    assert!(
        answer.get("result").is_some(),
        "SendMessage at {base}: {answer}"
    );
}
