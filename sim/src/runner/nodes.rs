//! The nodes of a run: each host and client registered with turmoil under supervision,
//! which records how it ends (in its report and the trace) without stopping the others.

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;

use super::record::{NodeOutcome, NodeReport, Reports, Role};
use super::runner::{HostResult, LocalFuture, Software};
use meshsim_trace::{ErrorKind, TraceEvent};

/// Registers every node under supervision; returns the names in registration order.
pub(super) fn register_nodes(
    sim: &mut turmoil::Sim<'_>,
    reports: &Reports,
    hosts: Vec<(String, Software)>,
    clients: Vec<(String, LocalFuture)>,
) -> Vec<String> {
    let mut nodes = Vec::new();
    for (name, software) in hosts {
        register(reports, &name, Role::Host);
        let (reports, node) = (reports.clone(), name.clone());
        sim.host(name.as_str(), move || {
            supervise(software(), reports.clone(), node.clone())
        });
        nodes.push(name);
    }
    for (name, future) in clients {
        register(reports, &name, Role::Client);
        sim.client(
            name.as_str(),
            supervise(future, reports.clone(), name.clone()),
        );
        nodes.push(name);
    }
    nodes
}

fn register(reports: &Reports, name: &str, role: Role) {
    reports.borrow_mut().insert(
        name.to_string(),
        NodeReport {
            role,
            outcome: NodeOutcome::Unfinished,
            starts: 0,
            crashes: 0,
        },
    );
}

/// Runs `software`, recording how it ends; always `Ok` to turmoil so that one failing node
/// does not stop the simulation.
async fn supervise(software: LocalFuture, reports: Reports, name: String) -> HostResult {
    if let Some(report) = reports.borrow_mut().get_mut(&name) {
        report.starts += 1;
        report.outcome = NodeOutcome::Unfinished;
    }
    // The report keeps the error's text; the trace names only its kind.
    let (outcome, kind) = match AssertUnwindSafe(software).catch_unwind().await {
        Ok(Ok(())) => (NodeOutcome::Ok, None),
        Ok(Err(err)) => (
            NodeOutcome::Err {
                error: err.to_string(),
            },
            Some(ErrorKind::of(err.as_ref())),
        ),
        Err(panic) => (
            NodeOutcome::Err {
                error: format!("panicked: {}", panic_message(panic.as_ref())),
            },
            Some(ErrorKind::Panicked),
        ),
    };
    TraceEvent::Exit {
        node: name.as_str().into(),
        error: kind,
    }
    .emit();
    if let Some(report) = reports.borrow_mut().get_mut(&name) {
        report.outcome = outcome;
    }
    Ok(())
}

pub(super) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message.clone()
    } else {
        "non-string panic payload".to_string()
    }
}
