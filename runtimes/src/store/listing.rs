//! Reading tasks out of the store: `GetTask`'s history trimming and `ListTasks`' filters
//! and paging.

use meshsim_protocol::{ErrorCode, ListTasksParams, RpcError, Task, TaskList};

/// A stored task and when its status last changed, in the store's update order.
pub(crate) struct Listed<'a> {
    pub(crate) task: &'a Task,
    pub(crate) updated: u64,
}

/// `ListTasks` (v1.0): the most recently updated first (a MUST of the v1.0 spec), paged by a
/// cursor (the last listed task's `updated`), so a task updated between two pages moves to
/// the front instead of shifting the rest.
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
    let mut entries: Vec<Listed<'a>> = stored
        .filter(|listed| {
            params
                .context_id
                .as_ref()
                .is_none_or(|ctx| listed.task.context_id.as_ref() == Some(ctx))
                && params
                    .status
                    .is_none_or(|state| listed.task.status.state == state)
        })
        .collect();
    let total = entries.len();
    entries.retain(|listed| cursor.is_none_or(|cursor| listed.updated < cursor));
    entries.sort_by_key(|listed| std::cmp::Reverse(listed.updated));
    let more = entries.len() > page_size as usize;
    entries.truncate(page_size as usize);
    let next_page_token = match (more, entries.last()) {
        (true, Some(last)) => last.updated.to_string(),
        _ => String::new(),
    };
    let tasks = entries
        .iter()
        .map(|listed| trimmed(listed.task.clone(), params.history_length))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(TaskList {
        tasks,
        next_page_token,
        page_size,
        total_size: i32::try_from(total).unwrap_or(i32::MAX),
    })
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
