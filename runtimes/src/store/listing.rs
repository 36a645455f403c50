//! Reading tasks out of the store: `GetTask`'s history trimming and `ListTasks`' filters
//! and paging.

use meshsim_protocol::clock::parse_rfc3339;
use meshsim_protocol::{ErrorCode, ListTasksParams, RpcError, Task, TaskList};
use std::time::Duration;

/// The most a page's tasks may take, written out as JSON: a page ends before the task that
/// would take it past this (the v1.0 spec lets a page hold fewer tasks than `pageSize`),
/// always holding at least one, so that an answer is bounded by it and one task rather
/// than by a hundred tasks of megabyte histories.
pub(crate) const PAGE_BYTES: usize = 4 << 20;

/// A stored task and when its status last changed, in the store's update order.
pub(crate) struct Listed<'a> {
    pub(crate) task: &'a Task,
    pub(crate) updated: u64,
}

/// `ListTasks` (v1.0): the most recently updated first (a MUST of the v1.0 spec), paged by a
/// cursor (the last listed task's `updated`), so a task updated between two pages moves to
/// the front instead of shifting the rest. An empty `contextId` is no filter (proto3's
/// default); `statusTimestampAfter` keeps the tasks whose status is stamped at or after it;
/// artifacts are left out unless `includeArtifacts` (the spec's MUST); a page holds at
/// most [`PAGE_BYTES`] of tasks.
pub(crate) fn list<'a>(
    stored: impl Iterator<Item = Listed<'a>>,
    params: &ListTasksParams,
) -> Result<TaskList, RpcError> {
    let page_size = params.page_size.unwrap_or(50);
    if !(1..=100).contains(&page_size) {
        return Err(RpcError::new(
            ErrorCode::InvalidParams,
            "pageSize must be between 1 and 100",
        ));
    }
    let cursor = match params.page_token.as_deref() {
        None | Some("") => None,
        Some(token) => Some(token.parse::<u64>().map_err(|_| {
            RpcError::new(ErrorCode::InvalidParams, format!("bad pageToken `{token}`"))
        })?),
    };
    let after = match params.status_timestamp_after.as_deref() {
        None | Some("") => None,
        Some(text) => Some(parse_rfc3339(text).ok_or_else(|| {
            RpcError::new(
                ErrorCode::InvalidParams,
                format!("statusTimestampAfter `{text}` is not an RFC 3339 timestamp"),
            )
        })?),
    };
    let context = params.context_id.as_deref().filter(|ctx| !ctx.is_empty());
    let mut entries: Vec<Listed<'a>> = stored
        .filter(|listed| {
            context.is_none_or(|ctx| listed.task.context_id.as_deref() == Some(ctx))
                && params
                    .status
                    .is_none_or(|state| listed.task.status.state == state)
                && after.is_none_or(|after| stamped_at_or_after(listed.task, after))
        })
        .collect();
    let total = entries.len();
    entries.retain(|listed| cursor.is_none_or(|cursor| listed.updated < cursor));
    entries.sort_by_key(|listed| std::cmp::Reverse(listed.updated));
    let mut tasks = Vec::new();
    let mut bytes = 0;
    for listed in entries.iter().take(page_size as usize) {
        let mut task = trimmed(listed.task.clone(), params.history_length)?;
        if params.include_artifacts != Some(true) {
            task.artifacts.clear();
        }
        bytes += serde_json::to_vec(&task).map_or(0, |written| written.len());
        if bytes > PAGE_BYTES && !tasks.is_empty() {
            break;
        }
        tasks.push(task);
    }
    let next_page_token = match entries.get(tasks.len()) {
        Some(_) => entries[tasks.len() - 1].updated.to_string(),
        None => String::new(),
    };
    Ok(TaskList {
        tasks,
        next_page_token,
        page_size,
        total_size: i32::try_from(total).unwrap_or(i32::MAX),
    })
}

/// Whether `task`'s status is stamped at or after `after` (an unstamped status is not).
fn stamped_at_or_after(task: &Task, after: Duration) -> bool {
    task.status
        .timestamp
        .as_deref()
        .and_then(parse_rfc3339)
        .is_some_and(|stamped| stamped >= after)
}

/// Keeps the last `history_length` messages; a negative length is invalid.
pub(crate) fn trimmed(mut task: Task, history_length: Option<i32>) -> Result<Task, RpcError> {
    match history_length {
        None => Ok(task),
        Some(length) if length < 0 => Err(RpcError::new(
            ErrorCode::InvalidParams,
            format!("historyLength {length} is negative"),
        )),
        Some(length) => {
            let keep = length as usize;
            let skip = task.history.len().saturating_sub(keep);
            task.history.drain(..skip);
            Ok(task)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meshsim_protocol::{Message, Role, TaskState, TaskStatus};

    /// A task whose history holds one message of `bytes` letters.
    fn task(id: &str, bytes: usize) -> Task {
        Task {
            id: id.to_string(),
            context_id: Some("c-1".to_string()),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: None,
                unrecognised_state: None,
            },
            history: vec![Message::text(Role::User, None, "x".repeat(bytes))],
            artifacts: Vec::new(),
            metadata: None,
        }
    }

    #[test]
    fn a_page_of_large_tasks_ends_at_its_byte_budget_and_the_next_page_goes_on() {
        let tasks: Vec<Task> = (0..10).map(|n| task(&format!("t-{n}"), 1 << 20)).collect();
        let stored = || {
            tasks.iter().enumerate().map(|(n, task)| Listed {
                task,
                updated: n as u64 + 1,
            })
        };
        let first = list(stored(), &ListTasksParams::default()).unwrap();
        assert_eq!(
            first.tasks.len(),
            3,
            "three tasks of a MiB fit in 4 MiB, four do not"
        );
        assert_eq!(first.total_size, 10);
        let mut seen = first.tasks.len();
        let mut token = first.next_page_token;
        while !token.is_empty() {
            let params = ListTasksParams {
                page_token: Some(token),
                ..Default::default()
            };
            let page = list(stored(), &params).unwrap();
            seen += page.tasks.len();
            token = page.next_page_token;
        }
        assert_eq!(seen, 10, "every task is listed once");
        // One task larger than the budget is still listed, alone.
        let huge = [task("huge", 5 << 20)];
        let alone = huge.iter().map(|task| Listed { task, updated: 1 });
        assert_eq!(
            list(alone, &ListTasksParams::default())
                .unwrap()
                .tasks
                .len(),
            1
        );
    }
}
