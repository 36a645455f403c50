//! A runtime's routes: the Agent Card at the dialect's well-known path and the routes of the
//! bindings it serves, without the instance they serve.
//!
//! They depend only on the dialect and the bindings served, and building them (inserting
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

thread_local! {
    static BUILT: RefCell<BTreeMap<(Dialect, Vec<Binding>), Routes>> =
        const { RefCell::new(BTreeMap::new()) };
}

/// The routes of a runtime speaking `dialect` over `served`, awaiting an instance.
pub(crate) fn routes(dialect: Dialect, served: Vec<Binding>) -> Routes {
    BUILT.with(|built| {
        built
            .borrow_mut()
            .entry((dialect, served))
            .or_insert_with_key(|(dialect, served)| build(*dialect, served))
            .clone()
    })
}

fn build(dialect: Dialect, served: &[Binding]) -> Routes {
    let mut router = Router::new().route(dialect.card_path(), get(card_route::serve));
    for binding in served {
        router = match binding {
            Binding::JsonRpc => router.route("/", post(endpoint::handle)),
            Binding::HttpJson => router.merge(http_json::routes()),
        };
    }
    router
}
