//! The v1.0 dialect: the ProtoJSON form of `spec/a2a-v1.0.1.proto` over JSON-RPC.
//! PascalCase methods (`SendMessage`, `SubscribeToTask`, `ListTasks`, ...), `TASK_STATE_*`
//! and `ROLE_*` enums, flattened parts (`text` | `raw` | `url` | `data`), results wrapped by
//! payload (`{"task": ..}`, `{"statusUpdate": ..}`), `supportedInterfaces` on the Card, and
//! `google.rpc.ErrorInfo` objects in `error.data`. There is no `final` flag and no
//! `stateTransitionHistory` capability. Decoders accept the proto's snake_case field names
//! as well as camelCase, and enum numbers as well as names, as ProtoJSON parsers do.

mod card;
mod codec;
mod enums;
mod message;
mod result;
mod task;

pub(crate) use codec::V1_0;
pub(crate) use enums::{role_from, state_from};
pub(crate) use message::unknown_part_kind;

use crate::codec::Dialect;

const D: Dialect = Dialect::V1_0;
