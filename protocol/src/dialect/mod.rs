//! The three dialect codecs behind [`crate::Dialect::codec`], and the JSON-RPC envelope
//! they share.

mod envelope;
pub(crate) mod v0_1;
pub(crate) mod v0_3;
pub(crate) mod v1_0;

pub(crate) use v0_1::V0_1;
pub(crate) use v0_3::V0_3;
pub(crate) use v1_0::V1_0;

#[cfg(test)]
mod tests;
