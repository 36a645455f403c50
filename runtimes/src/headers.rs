//! [`Headers`]: a handler's request headers, moved out of the request instead of cloned,
//! with an `A2A-Version` given as a query parameter read as the header.
//!
//! axum's `HeaderMap` extractor clones the map (its entries, its index table and every
//! value's handle) for every request, and the request drops the original right after. The
//! runtime's handlers only read the headers, so they take them.
//!
//! The v1.0 specification (section 3.6.1) lets clients give the version as a request
//! parameter instead of a header (`GET /tasks/task-123?A2A-Version=1.0`); a header, when
//! there is one, wins.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue};
use meshsim_protocol::version;
use std::convert::Infallible;

/// The request's headers, taken: an extractor after this one sees none, so it goes after
/// any that reads them (none of the runtime's do: `State`, `Path`, `Query` and the body).
pub(crate) struct Headers(pub(crate) HeaderMap);

impl<S: Send + Sync> FromRequestParts<S> for Headers {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        let mut headers = std::mem::take(&mut parts.headers);
        if let Some(query) = parts.uri.query()
            && !headers.contains_key(version::HEADER)
            && let Some(value) = version_parameter(query)
        {
            headers.insert(version::HEADER, value);
        }
        Ok(Headers(headers))
    }
}

/// The `A2A-Version` parameter of a query string, if it has a usable one (a version is
/// digits and dots, which a query carries as they are).
fn version_parameter(query: &str) -> Option<HeaderValue> {
    query.split('&').find_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        if !name.eq_ignore_ascii_case(version::HEADER) {
            return None;
        }
        HeaderValue::from_str(value).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_version_parameter_is_read_from_a_query() {
        let read =
            |query| version_parameter(query).map(|value| value.to_str().unwrap().to_string());
        assert_eq!(read("A2A-Version=1.0").as_deref(), Some("1.0"));
        assert_eq!(
            read("historyLength=2&a2a-version=0.3").as_deref(),
            Some("0.3")
        );
        assert_eq!(read("historyLength=2"), None);
        assert_eq!(read("A2A-Version"), None);
    }
}
