//! A runtime's routes: the Agent Card at the dialect's well-known path and the routes of the
//! bindings it serves (HTTP+JSON's under the tenant, when it has one), without the instance
//! they serve.
//!
//! They depend only on the dialect, the bindings served and the tenant, and building them (inserting
//! every path into axum's route tree) cost about 7% of a simulated run, where runtimes
//! start and restart several times. So each thread builds them once per dialect and set of
//! bindings, and every instance gets a copy with its own state.

use crate::store::Host;
use crate::{card_route, endpoint, http_json};
use axum::Router;
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
    router
}
