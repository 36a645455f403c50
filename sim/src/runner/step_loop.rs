//! Carrying out a run: [`Runner::run`]'s step loop, which applies the faults, heals,
//! runs the safety check, fast-forwards idle stretches and ends the run.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::panic::AssertUnwindSafe;
use std::rc::Rc;
use std::time::Duration;

use super::apply::World;
use super::config::RunConfig;
use super::fast_forward::{Upcoming, hosts_to_tick, idle_steps};
use super::nodes::{panic_message, register_nodes};
use super::record::{Reports, Run, RunRecord};
use super::runner::{CheckPoint, Phase, RunError, Runner};
use crate::Seed;
use crate::seed_names;
use crate::sim_time::SimTime;
use crate::trace::Recorder;
use meshsim_trace::TraceEvent;

impl Runner {
    /// Runs the simulation on this thread.
    pub fn run(self) -> Result<Run, RunError> {
        let Runner {
            seed,
            config,
            plan,
            hooks,
            hosts,
            clients,
            mut check,
            trace_file,
        } = self;
        let host_names: BTreeSet<String> = hosts.iter().map(|(n, _)| n.clone()).collect();
        let client_names: BTreeSet<String> = clients.iter().map(|(n, _)| n.clone()).collect();
        let mut seen = BTreeSet::new();
        for name in hosts
            .iter()
            .map(|(n, _)| n)
            .chain(clients.iter().map(|(n, _)| n))
        {
            if !seen.insert(name.clone()) {
                return Err(RunError::DuplicateNode(name.clone()));
            }
        }
        config.validate().map_err(RunError::Config)?;
        plan.validate(&host_names, &client_names, config.chaos)?;

        let time = SimTime::new();
        let recorder = Recorder::new(time.clone());
        if let Some(path) = &trace_file {
            recorder
                .write_to(path)
                .map_err(|source| RunError::TraceFile {
                    path: path.display().to_string(),
                    source,
                })?;
        }
        let guard = recorder.install();
        // Every host timer enters its deadline here, for idle fast-forward.
        let deadlines = meshsim_time::Deadlines::new();
        let timers = meshsim_time::watch(deadlines.clone(), turmoil::current_host_sim_elapsed);

        let mut sim = turmoil_builder(seed, &config).build();
        let reports: Reports = Rc::new(RefCell::new(BTreeMap::new()));
        let has_clients = !clients.is_empty();
        let nodes = register_nodes(&mut sim, &reports, hosts, clients);

        let deadline = config.chaos + config.liveness;
        let mut world = World {
            sim: &mut sim,
            config: &config,
            hooks: &hooks,
            reports: &reports,
            touched: Default::default(),
        };
        let mut pending = plan.faults.iter().peekable();
        let mut healed_at = None;
        let mut next_check = Duration::ZERO;
        let mut violation = None;
        let mut clients_done = false;
        let mut steps_taken: u64 = 0;
        loop {
            let now = world.sim.elapsed();
            time.set_elapsed(now);
            // Whether the runner touched the world at this step start: a fault or the heal
            // may hand a host work that no timer or message shows.
            let mut acted = false;
            if healed_at.is_none() && now >= config.chaos {
                world.heal(&nodes);
                healed_at = Some(now);
                acted = true;
            }
            // Turmoil sets a host's clock on the host's first tick: a host crashed before
            // that and then bounced panics ("host instant not set") as soon as its software
            // reads the time. So faults strike from the first step on; one drawn at 0 ms
            // strikes one tick later.
            let started = !now.is_zero();
            while let Some(timed) =
                pending.next_if(|f| started && healed_at.is_none() && f.at() <= now)
            {
                world.apply(timed.at_ms, &timed.fault);
                acted = true;
            }
            if let Some((every, check)) = check.as_mut()
                && now >= next_check
            {
                next_check = now + *every;
                let phase = if healed_at.is_some() {
                    Phase::Heal
                } else {
                    Phase::Chaos
                };
                if let Err(message) = check(CheckPoint {
                    elapsed: now,
                    phase,
                }) {
                    TraceEvent::Violation {
                        message: message.as_str().into(),
                    }
                    .emit();
                    violation = Some(message);
                    break;
                }
            }
            if (has_clients && clients_done) || now >= deadline {
                break;
            }
            // Whether idle steps may be skipped and idle hosts left out of a step. A message
            // a host sent itself is delivered by a timer of turmoil's that no registry holds:
            // while one is on its way, every step is taken, by every host.
            let may_skip = config.fast_forward
                && !config.random_node_order
                && started
                && !acted
                && !world.sim.loopback_in_flight();
            let steps = if may_skip {
                let upcoming = Upcoming {
                    inside_hosts: earliest(
                        deadlines.next(),
                        world.sim.next_delivery().map(|delay| now + delay),
                    ),
                    between_steps: [
                        pending
                            .peek()
                            .filter(|_| healed_at.is_none())
                            .map(|f| f.at()),
                        healed_at.is_none().then_some(config.chaos),
                        check.as_ref().map(|_| next_check),
                        Some(deadline),
                    ]
                    .into_iter()
                    .flatten()
                    .min(),
                };
                idle_steps(now, config.tick, upcoming)
            } else {
                1
            };
            let step = config.tick * steps;
            // The step runs only the hosts with a timer due or a task queued (see
            // `hosts_to_tick`).
            let in_full = if may_skip {
                hosts_to_tick(now + step, &deadlines)
            } else {
                None
            };
            time.set_stepping(true);
            // Turmoil panics on some overloads (e.g. an accept backlog beyond `tcp_capacity`):
            // report that as a failed run instead of unwinding through the caller.
            let stepped = std::panic::catch_unwind(AssertUnwindSafe(|| match &in_full {
                Some(hosts) => world.sim.step_by_quiet_except(step, hosts),
                None => world.sim.step_by(step),
            }));
            steps_taken += 1;
            time.set_stepping(false);
            clients_done = match stepped {
                Ok(result) => result.map_err(|err| RunError::Simulation(err.to_string()))?,
                Err(panic) => {
                    return Err(RunError::Simulation(format!(
                        "turmoil panicked: {}",
                        panic_message(panic.as_ref())
                    )));
                }
            };
        }
        let elapsed = world.sim.elapsed();
        time.set_elapsed(elapsed);
        TraceEvent::End { clients_done }.emit();
        // Stop recording before tearing the hosts down: the runtime drops `tokio::spawn`ed
        // tasks in an order that depends on process-global task ids.
        drop(guard);
        drop(world);
        drop(sim);
        drop(timers);
        recorder.flush().map_err(|source| RunError::TraceFile {
            path: trace_file
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            source,
        })?;
        let trace = recorder.take_trace();
        // The hosts and clients that shared the reports are gone with the simulation.
        let nodes = std::mem::take(&mut *reports.borrow_mut());
        let converged = violation.is_none() && (!has_clients || clients_done);
        let record = RunRecord {
            seed: seed.value(),
            seed_hex: format!("{:#018x}", seed.value()),
            plan,
            trace_hash: trace.hash().clone(),
            elapsed_ms: millis(elapsed),
            steps: steps_taken,
            healed_at_ms: healed_at.map(millis),
            converged,
            violation,
            nodes,
        };
        Ok(Run { record, trace })
    }
}

/// A turmoil builder pinned to the run's seed, epoch and network settings.
fn turmoil_builder(seed: Seed, config: &RunConfig) -> turmoil::Builder {
    let mut builder = turmoil::Builder::new();
    builder
        .epoch(config.epoch)
        .rng_seed(seed.derive(seed_names::TURMOIL).value())
        .tick_duration(config.tick)
        // Past the runner's own bound, so the runner always decides when a run ends.
        .simulation_duration(config.chaos + config.liveness + Duration::from_secs(1))
        .min_message_latency(config.min_latency)
        .max_message_latency(config.max_latency)
        .tcp_capacity(config.tcp_capacity);
    if config.random_node_order {
        builder.enable_random_order();
    }
    builder
}

/// The earlier of two optional moments.
fn earliest(a: Option<Duration>, b: Option<Duration>) -> Option<Duration> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
