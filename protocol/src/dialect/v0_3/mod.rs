//! The v0.3 dialect: `message/send`, `message/stream`, `tasks/resubscribe`, `tasks/get`,
//! `tasks/cancel`; objects carry a `kind` discriminator, status events a `final` flag,
//! states are lowercase. Shapes follow `spec/a2a-v0.3.0.schema.json`.

mod card;
mod codec;
mod message;
mod task;

pub(crate) use codec::V0_3;
pub(crate) use message::unknown_part_kind;
pub(crate) use task::state_from;

use crate::codec::Dialect;

const D: Dialect = Dialect::V0_3;
