//! The v1.0 `A2A-Version` header rules. A v1.0 client sends `A2A-Version: 1.0`; a v1.0
//! server reads a missing or empty header as 0.3 (spec/a2a-v1.0.1-specification.md, section 3.6.2), compares only the major
//! version (as a2a-sdk 1.3.0 does), and answers anything else with -32009
//! VersionNotSupported carrying a `google.rpc.ErrorInfo`. v0.1 and v0.3 servers ignore it.

use crate::codec::Dialect;
use crate::rpc::{ErrorCode, RpcError};
use serde_json::Value;

/// The header's name.
pub const HEADER: &str = "A2A-Version";

/// What a missing or empty header means.
pub const ASSUMED_WHEN_MISSING: &str = "0.3";

/// The header a client of `dialect` sends, if any.
pub fn request_header_value(dialect: Dialect) -> Option<&'static str> {
    match dialect {
        Dialect::V1_0 => Some("1.0"),
        Dialect::V0_1 | Dialect::V0_3 => None,
    }
}

/// Whether a server speaking `dialect_served` accepts a request carrying `header_value`.
pub fn check_request_version(
    dialect_served: Dialect,
    header_value: Option<&str>,
) -> Result<(), RpcError> {
    if dialect_served != Dialect::V1_0 {
        return Ok(());
    }
    let given = header_value
        .map(str::trim)
        .filter(|value| !value.is_empty());
    let requested = given.unwrap_or(ASSUMED_WHEN_MISSING);
    if major(requested) == Some(1) {
        return Ok(());
    }
    let read_as = match given {
        Some(_) => String::new(),
        None => format!("no A2A-Version header (or parameter), which reads as {requested}: "),
    };
    Err(RpcError {
        code: ErrorCode::VersionNotSupported,
        message: format!(
            "{read_as}A2A protocol version {requested} is not supported; this agent speaks 1.0"
        ),
        data: Some(Value::Array(vec![
            ErrorCode::VersionNotSupported.error_info(),
        ])),
    })
}

/// The major version of `1`, `1.0` or `1.0.1`; `None` when it is not a number.
fn major(version: &str) -> Option<u64> {
    version.split('.').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v1_accepts_any_1_x_and_rejects_others() {
        for accepted in ["1.0", "1", "1.1", " 1.0.1 "] {
            assert!(
                check_request_version(Dialect::V1_0, Some(accepted)).is_ok(),
                "{accepted}"
            );
        }
        for rejected in ["0.3", "2.0", "one", "0.5"] {
            let error = check_request_version(Dialect::V1_0, Some(rejected)).unwrap_err();
            assert_eq!(error.code, ErrorCode::VersionNotSupported, "{rejected}");
        }
    }

    #[test]
    fn v1_reads_a_missing_or_empty_header_as_0_3() {
        for missing in [None, Some(""), Some("  ")] {
            let error = check_request_version(Dialect::V1_0, missing).unwrap_err();
            assert_eq!(error.code.code(), -32009);
            assert!(error.message.contains("0.3"), "{}", error.message);
            let info = &error.data.as_ref().unwrap()[0];
            assert_eq!(info["reason"], "VERSION_NOT_SUPPORTED");
            assert_eq!(info["domain"], "a2a-protocol.org");
            assert_eq!(info["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
        }
    }

    #[test]
    fn older_dialects_ignore_the_header() {
        for dialect in [Dialect::V0_1, Dialect::V0_3] {
            assert!(check_request_version(dialect, None).is_ok());
            assert!(check_request_version(dialect, Some("7.0")).is_ok());
        }
        assert_eq!(request_header_value(Dialect::V1_0), Some("1.0"));
        assert_eq!(request_header_value(Dialect::V0_3), None);
    }
}
