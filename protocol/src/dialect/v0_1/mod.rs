//! The v0.1 dialect, the origin note's vocabulary: `tasks/send`, `tasks/sendSubscribe`,
//! `tasks/resubscribe`, `tasks/get`, `tasks/cancel`, the Card at `/.well-known/agent.json`.
//! The client chooses the task id (`params.id`) and the session (`sessionId`); messages have
//! no ids; parts are discriminated by `type`; stream events name their task `id`, status
//! events carry `final`, and artifact chunks carry `append`/`lastChunk` inside the artifact.
//! There is no `rejected` or `auth-required` state, no ListTasks, no task snapshot on a
//! stream. Shapes follow `spec/a2a-v0.1.0.schema.json`.

mod card;
mod codec;
mod message;
mod task;

pub(crate) use codec::V0_1;
pub(crate) use message::unknown_part_kind;
pub(crate) use task::state_from;

use crate::codec::Dialect;

const D: Dialect = Dialect::V0_1;
