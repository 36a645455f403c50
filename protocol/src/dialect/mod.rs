//! The three dialect codecs behind [`crate::Dialect::codec`], and the JSON-RPC envelope
//! they share.

mod envelope;
pub(crate) mod lowercase_role;
pub(crate) mod v0_1;
pub(crate) mod v0_3;
pub(crate) mod v1_0;

use crate::codec::{Codec, Dialect};
pub(crate) use v0_1::V0_1;
pub(crate) use v0_3::V0_3;
pub(crate) use v1_0::V1_0;

impl Dialect {
    /// This dialect's codec. (It lives beside the codecs, so that the model of a dialect
    /// does not depend on their implementations.)
    pub fn codec(self) -> &'static dyn Codec {
        match self {
            Dialect::V0_1 => &V0_1,
            Dialect::V0_3 => &V0_3,
            Dialect::V1_0 => &V1_0,
        }
    }
}

#[cfg(test)]
mod tests;
