//! [`Headers`]: a handler's request headers, moved out of the request instead of cloned.
//!
//! axum's `HeaderMap` extractor clones the map (its entries, its index table and every
//! value's handle) for every request, and the request drops the original right after. The
//! runtime's handlers only read the headers, so they take them.

use axum::extract::FromRequestParts;
use axum::http::HeaderMap;
use axum::http::request::Parts;
use std::convert::Infallible;

/// The request's headers, taken: an extractor after this one sees none, so it goes after
/// any that reads them (none of the runtime's do: `State`, `Path`, `Query` and the body).
pub(crate) struct Headers(pub(crate) HeaderMap);

impl<S: Send + Sync> FromRequestParts<S> for Headers {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Headers(std::mem::take(&mut parts.headers)))
    }
}
