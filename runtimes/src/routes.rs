//! A runtime's routes: the Agent Card at the dialect's well-known path and the routes of the
//! bindings it serves (HTTP+JSON's under the tenant, when it has one), without the instance
//! they serve. A path none of them holds is answered 404 with a body saying what is served
//! where, so that a client with the wrong path, or without the tenant, reads why.
//!
//! They depend only on the dialect, the bindings served and the tenant, and building them (inserting
//! every path into axum's route tree) cost about 7% of a simulated run, where runtimes
//! start and restart several times. So each thread builds them once per dialect and set of
//! bindings, and every instance gets a copy with its own state.

use crate::store::Host;
use crate::{card_route, endpoint, http_json};
use axum::Router;
use axum::body::Body;
use axum::http::{HeaderValue, Method, Response, StatusCode, Uri, header};
use axum::routing::{get, post};
use meshsim_protocol::{Binding, Dialect};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Routes awaiting an instance's state.
type Routes = Router<Arc<Host>>;

/// What a runtime's routes depend on: its dialect, the bindings it serves and its tenant.
type Shape = (Dialect, Vec<Binding>, Option<String>);

thread_local! {
    static BUILT: RefCell<BTreeMap<Shape, Routes>> = const { RefCell::new(BTreeMap::new()) };
}

/// The routes of a runtime speaking `dialect` over `served` for `tenant`, awaiting an
/// instance.
pub(crate) fn routes(dialect: Dialect, served: Vec<Binding>, tenant: Option<String>) -> Routes {
    BUILT.with(|built| {
        built
            .borrow_mut()
            .entry((dialect, served, tenant))
            .or_insert_with_key(|(dialect, served, tenant)| {
                build(*dialect, served, tenant.as_deref())
            })
            .clone()
    })
}

/// JSON-RPC at `/` (the endpoint checks a tenant in each request's params); HTTP+JSON under
/// `/{tenant}` when there is one, so that its unprefixed routes are no routes at all.
fn build(dialect: Dialect, served: &[Binding], tenant: Option<&str>) -> Routes {
    let mut router = Router::new().route(dialect.card_path(), get(card_route::serve));
    for binding in served {
        router = match (binding, tenant) {
            (Binding::JsonRpc, _) => router.route("/", post(endpoint::handle)),
            (Binding::HttpJson, None) => router.merge(http_json::routes()),
            (Binding::HttpJson, Some(tenant)) => {
                router.nest(&format!("/{tenant}"), http_json::routes())
            }
        };
    }
    let served_where: Arc<str> = served_where(dialect, served, tenant).into();
    router.fallback(move |method: Method, uri: Uri| {
        let served_where = served_where.clone();
        async move { no_route(&method, &uri, &served_where) }
    })
}

/// What the runtime serves where, in words: the Card, then each binding.
fn served_where(dialect: Dialect, served: &[Binding], tenant: Option<&str>) -> String {
    let mut places = vec![format!("its Agent Card at `GET {}`", dialect.card_path())];
    for binding in served {
        places.push(match (binding, tenant) {
            (Binding::JsonRpc, _) => "JSON-RPC at `POST /`".to_string(),
            (Binding::HttpJson, None) => {
                "HTTP+JSON at `/message:send`, `/message:stream` and `/tasks`".to_string()
            }
            (Binding::HttpJson, Some(tenant)) => format!(
                "HTTP+JSON under `/{tenant}` (the tenant its Card's interfaces name), as `/{tenant}/message:send`"
            ),
        });
    }
    places.join(", ")
}

/// The 404 for a path no route holds, in plain text as the real SDKs' servers answer it. Not
/// in HTTP+JSON's error shape: a client reads a 404 there without an A2A error named as
/// `TaskNotFound`, and a wrong path has lost no task.
fn no_route(method: &Method, uri: &Uri, served_where: &str) -> Response<Body> {
    let message = format!(
        "no route for `{method} {}`: this agent serves {served_where}\n",
        uri.path()
    );
    let mut answer = Response::new(Body::from(message));
    *answer.status_mut() = StatusCode::NOT_FOUND;
    answer.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    answer
}
