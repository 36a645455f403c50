//! Bearer tokens: which tenant a request's `Authorization` header names, the error a
//! request without one gets, and the scheme the Agent Card declares.

use axum::http::{HeaderMap, header};
use meshsim_protocol::{Dialect, ErrorCode, RpcError, detect};
use serde_json::{Value, json};
use subtle::ConstantTimeEq;

/// The value paired with the token `Authorization: Bearer TOKEN` presents, or `None` when
/// the header is missing, of another scheme, or presents no listed token.
pub(super) fn holder<'t, T>(tokens: &'t [(String, T)], headers: &HeaderMap) -> Option<&'t T> {
    // The scheme's name is case-insensitive (RFC 9110, section 11.1).
    let (scheme, presented) = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())?
        .trim()
        .split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("bearer") {
        return None;
    }
    let presented = presented.trim().as_bytes();
    // Every token is compared, each in constant time (`subtle`), so the time taken says
    // neither how much of a token matched nor which one did.
    let mut holder = None;
    for (token, value) in tokens {
        if bool::from(token.as_bytes().ct_eq(presented)) {
            holder = Some(value);
        }
    }
    holder
}

/// The error a request without a valid bearer token gets, pointing at where `dialect`'s
/// Card declares the scheme.
pub(super) fn unauthenticated(dialect: Dialect) -> RpcError {
    let declared = match dialect {
        Dialect::V0_1 => "authentication.schemes",
        Dialect::V0_3 | Dialect::V1_0 => "securitySchemes",
    };
    RpcError {
        code: ErrorCode::InvalidRequest,
        message: format!(
            "unauthenticated: send `Authorization: Bearer <token>` with a token this server \
             accepts (see the Card's {declared})"
        ),
        data: Some(json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "UNAUTHENTICATED",
            "domain": "a2a-protocol.org",
        }])),
    }
}

/// Adds the bearer scheme to a Card, as its dialect declares security: v1.0
/// `securitySchemes` + `securityRequirements`, v0.3 `securitySchemes` + `security`, v0.1
/// `authentication.schemes`.
pub(super) fn advertise_bearer(card: &mut Value) {
    let dialect = detect::detect_card(card).map(|detection| detection.dialect);
    let Some(object) = card.as_object_mut() else {
        return;
    };
    match dialect {
        Some(Dialect::V1_0) => {
            object.insert(
                "securitySchemes".into(),
                json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}),
            );
            object.insert(
                "securityRequirements".into(),
                json!([{"schemes": {"bearer": {"list": []}}}]),
            );
        }
        Some(Dialect::V0_3) => {
            object.insert(
                "securitySchemes".into(),
                json!({"bearer": {"type": "http", "scheme": "bearer"}}),
            );
            object.insert("security".into(), json!([{"bearer": []}]));
        }
        Some(Dialect::V0_1) | None => {
            object.insert("authentication".into(), json!({"schemes": ["Bearer"]}));
        }
    }
}
