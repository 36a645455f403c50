//! Roles as the v0.1 and v0.3 JSON schemas spell them, `"user"` and `"agent"`: both
//! dialects share the spelling, so they share these functions (v1.0 spells `ROLE_USER`).

use crate::codec::DecodeError;
use crate::json::Obj;
use crate::model::Role;

/// The name a role is written as.
pub(crate) fn role_name(role: &Role) -> &str {
    match role {
        Role::User => "user",
        Role::Agent => "agent",
        Role::Unknown(name) => name,
    }
}

/// The role a name spells, if the schema defines it.
pub(crate) fn role_from(name: &str) -> Option<Role> {
    match name {
        "user" => Some(Role::User),
        "agent" => Some(Role::Agent),
        _ => None,
    }
}

/// A role outside the schema is kept as [`Role::Unknown`].
pub(crate) fn decode_role(message: &Obj<'_>) -> Result<Role, DecodeError> {
    let name = message.str("role")?;
    Ok(role_from(&name).unwrap_or(Role::Unknown(name)))
}
