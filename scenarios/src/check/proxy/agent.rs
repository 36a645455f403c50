//! One agent behind the proxy: the runtime instance that answers now, the exchange's
//! counters, the run's triggers, and the restart that replaces the instance with a fresh one.

use super::super::faults::{Strike, Trigger};
use super::exchange_log::ProxyLog;
use crate::lock::lock;
use axum::Router;
use meshsim_runtimes::Runtime;
use meshsim_sim::JsonStrings;
use std::io;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// One agent behind the proxy.
pub struct Agent {
    pub(super) host: String,
    pub(super) runtime: Runtime,
    /// `None` once stopped.
    pub(super) instance: Mutex<Option<Instance>>,
    pub(super) triggers: Vec<Trigger>,
    pub(super) counters: Mutex<Counters>,
    pub(super) log: ProxyLog,
    /// Bumped on every restart: the streams of earlier instances watch it and end.
    pub(super) generation: watch::Sender<u64>,
}

/// A runtime instance: its router and the tokio runtime its tasks run on, shut down in
/// the background when the instance goes (a runtime dropped on another runtime's thread, as
/// when a stopped check drops its runs, would panic).
pub(super) struct Instance {
    pub(super) router: Router,
    executor: Option<tokio::runtime::Runtime>,
}

impl Drop for Instance {
    fn drop(&mut self) {
        if let Some(executor) = self.executor.take() {
            executor.shutdown_background();
        }
    }
}

impl Instance {
    /// The handle of the runtime the instance's tasks run on.
    pub(super) fn handle(&self) -> Option<&tokio::runtime::Handle> {
        self.executor.as_ref().map(tokio::runtime::Runtime::handle)
    }

    fn start(runtime: &Runtime) -> io::Result<Instance> {
        let executor = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("meshsim-check-runtime")
            .enable_all()
            .build()?;
        // The router's Host starts its instance (and may start timers) when built.
        let router = {
            let _entered = executor.enter();
            runtime.router()
        };
        Ok(Instance {
            router,
            executor: Some(executor),
        })
    }
}

#[derive(Debug, Default)]
pub(super) struct Counters {
    pub(super) requests: u32,
    pub(super) streams: u32,
    pub(super) events: u32,
}

impl Agent {
    /// Starts the first instance of `runtime` (named `host` in strikes) behind a proxy
    /// that fires `triggers` and logs their strikes and every call to `log`.
    pub fn start(
        host: &str,
        runtime: Runtime,
        triggers: Vec<Trigger>,
        log: ProxyLog,
    ) -> io::Result<Arc<Agent>> {
        let instance = Instance::start(&runtime)?;
        Ok(Arc::new(Agent {
            host: host.to_string(),
            runtime,
            instance: Mutex::new(Some(instance)),
            triggers,
            counters: Mutex::default(),
            log,
            generation: watch::Sender::new(0),
        }))
    }
    /// Shuts the current instance down, once the run is judged: its streams end and
    /// later requests are cut short.
    pub fn stop(&self) {
        self.generation.send_modify(|generation| *generation += 1);
        drop(lock(&self.instance).take());
    }

    pub(super) fn strike(&self, trigger: Trigger, request: u32, event: Option<u32>) {
        self.log.push(Strike {
            agent: self.host.clone(),
            trigger,
            request,
            event,
        });
    }

    /// A crash and a restart with an empty store: every stream of the old instance ends.
    pub(super) fn restart(&self) {
        self.generation.send_modify(|generation| *generation += 1);
        match Instance::start(&self.runtime) {
            Ok(instance) => {
                let old = lock(&self.instance).replace(instance);
                drop(old);
            }
            Err(error) => tracing::warn!(
                target: "meshsim::check",
                host = %self.host,
                %error,
                "the runtime could not be restarted"
            ),
        }
    }

    /// `bytes` went out to `job`'s program in the answer to `call`: the ids of this host's
    /// tasks among the JSON strings `reader` finds in them are logged as delivered to it.
    pub(super) fn relayed(&self, reader: &mut JsonStrings, bytes: &[u8], job: &str, call: u32) {
        let mut strings = Vec::new();
        reader.feed(bytes, &mut strings);
        let truth = self.runtime.truth();
        for string in strings {
            if truth.knows(&string) {
                self.log.delivered(&self.host, string, job, Some(call));
            }
        }
    }

    pub(super) fn fires(&self, wanted: impl Fn(&Trigger) -> bool) -> Option<Trigger> {
        self.triggers
            .iter()
            .copied()
            .find(|trigger| wanted(trigger))
    }
}
