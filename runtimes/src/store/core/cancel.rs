//! Cancel: what `tasks/cancel` / `CancelTask` does to a live or a terminal task.

use super::{Core, Effect, Outcome, error, not_found};
use crate::personality::{CancelOutcome, TerminalCancel};
use meshsim_protocol::{ErrorCode, RpcError, Task, TaskState};
use std::time::Duration;

impl Core {
    /// `tasks/cancel` / `CancelTask` at `now`: the task as answered.
    pub(crate) fn cancel(&mut self, now: Duration, id: &str) -> Outcome<Result<Task, RpcError>> {
        self.begin(now);
        let reply = self.decide_cancel(id);
        self.finish(reply)
    }

    fn decide_cancel(&mut self, id: &str) -> Result<Task, RpcError> {
        let entry = self.tasks.get_mut(id).ok_or_else(|| not_found(id))?;
        let view = entry.view();
        let state = view.state;
        let refused = || {
            error(
                ErrorCode::TaskNotCancelable,
                format!("task {id} is {state} and cannot be canceled"),
            )
        };
        if state.is_terminal() {
            return match self.behaviour.terminal_cancel(&self.personality, &view) {
                TerminalCancel::NotCancelable => Err(refused()),
                TerminalCancel::ReturnTask => Ok(entry.task.clone()),
                TerminalCancel::ReturnCanceled if state == TaskState::Canceled => {
                    Ok(entry.task.clone())
                }
                TerminalCancel::ReturnCanceled => Err(refused()),
            };
        }
        match self.behaviour.cancel(&self.personality, &view) {
            CancelOutcome::NotCancelable => {
                let refusal = Err(refused());
                self.effect(Effect::CancelRefused {
                    task: id.to_string(),
                });
                refusal
            }
            CancelOutcome::Ignore => {
                let task = entry.task.clone();
                self.effect(Effect::CancelRefused {
                    task: id.to_string(),
                });
                Ok(task)
            }
            CancelOutcome::Cancel => {
                entry.epoch += 1;
                self.set_status(id, TaskState::Canceled, None, Task::clone)
                    .ok_or_else(|| not_found(id))
            }
        }
    }
}
