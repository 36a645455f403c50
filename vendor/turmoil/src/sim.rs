use rand::{rngs::SmallRng, seq::SliceRandom, Rng, SeedableRng};
use std::cell::RefCell;
use std::future::Future;
use std::net::IpAddr;
use std::ops::DerefMut;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use crate::IndexMap;
use tokio::time::Duration;

use crate::host::HostTimer;
use crate::{
    for_pairs, rt, Config, LinksIter, Result, Rt, ToIpAddr, ToIpAddrs, World, TRACING_TARGET,
};

/// A handle for interacting with the simulation.
pub struct Sim<'a> {
    /// Simulation configuration
    config: Config,

    /// Tracks the simulated world state
    ///
    /// This is what is stored in the thread-local
    world: RefCell<World>,

    /// Per simulated host runtimes
    rts: IndexMap<IpAddr, Rt<'a>>,

    /// Simulation duration since unix epoch. Set when the simulation is
    /// created.
    since_epoch: Duration,

    /// Simulation elapsed time
    elapsed: Duration,

    steps: usize,
}

impl<'a> Sim<'a> {
    pub(crate) fn new(config: Config, world: World) -> Self {
        let since_epoch = config
            .epoch
            .duration_since(UNIX_EPOCH)
            .expect("now must be >= UNIX_EPOCH");

        Self {
            config,
            world: RefCell::new(world),
            rts: IndexMap::default(),
            since_epoch,
            elapsed: Duration::ZERO,
            steps: 1, // bumped after each step
        }
    }

    /// How much logical time has elapsed since the simulation started.
    pub fn elapsed(&self) -> Duration {
        self.elapsed
    }

    /// The logical duration from [`UNIX_EPOCH`] until now.
    ///
    /// On creation the simulation picks a `SystemTime` and calculates the
    /// duration since the epoch. Each `run()` invocation moves logical time
    /// forward the configured tick duration.
    pub fn since_epoch(&self) -> Duration {
        self.since_epoch + self.elapsed
    }

    /// Register a client with the simulation.
    pub fn client<F>(&mut self, addr: impl ToIpAddr, client: F)
    where
        F: Future<Output = Result> + 'static,
    {
        let addr = self.lookup(addr);
        let nodename: Arc<str> = self
            .world
            .borrow_mut()
            .dns
            .reverse(addr)
            .map(str::to_string)
            .unwrap_or_else(|| addr.to_string())
            .into();

        {
            let world = RefCell::get_mut(&mut self.world);

            // Register host state with the world
            world.register(
                addr,
                &nodename,
                HostTimer::new(self.elapsed, self.since_epoch),
                &self.config,
            );
        }

        let seed = self.world.borrow_mut().rng.random();
        let rng = SmallRng::from_seed(seed);
        let config = rt::Config {
            enable_io: self.config.enable_tokio_io,
            rng: Some(rng),
        };

        let rt = World::enter(&self.world, || Rt::client(nodename, client, config));

        self.rts.insert(addr, rt);
    }

    /// Register a host with the simulation.
    ///
    /// This method takes a `Fn` that builds a future, as opposed to
    /// [`Sim::client`] which just takes a future. The reason for this is we
    /// might restart the host, and so need to be able to call the future
    /// multiple times.
    pub fn host<F, Fut>(&mut self, addr: impl ToIpAddr, host: F)
    where
        F: Fn() -> Fut + 'a,
        Fut: Future<Output = Result> + 'static,
    {
        let addr = self.lookup(addr);
        let nodename: Arc<str> = self
            .world
            .borrow_mut()
            .dns
            .reverse(addr)
            .map(str::to_string)
            .unwrap_or_else(|| addr.to_string())
            .into();

        {
            let world = RefCell::get_mut(&mut self.world);

            // Register host state with the world
            world.register(
                addr,
                &nodename,
                HostTimer::new(self.elapsed, self.since_epoch),
                &self.config,
            );
        }

        let seed = self.world.borrow_mut().rng.random();
        let rng = SmallRng::from_seed(seed);
        let config = rt::Config {
            enable_io: self.config.enable_tokio_io,
            rng: Some(rng),
        };

        let rt = World::enter(&self.world, || Rt::host(nodename, host, config));

        self.rts.insert(addr, rt);
    }

    /// Crashes the resolved hosts. Nothing will be running on the matched hosts
    /// after this method. You can use [`Sim::bounce`] to start the hosts up
    /// again.
    ///
    /// For filesystem simulation (requires `unstable-fs` feature), this
    /// discards any pending (unsynced) writes. Data that was synced via
    /// `sync_all()` survives the crash.
    pub fn crash(&mut self, addrs: impl ToIpAddrs) {
        let hosts = self.world.borrow_mut().lookup_many(addrs);
        for h in hosts {
            let rt = self.rts.get_mut(&h).expect("missing host");

            self.world.borrow_mut().set_current(Some(h));

            World::enter(&self.world, || {
                rt.crash();

                // Discard pending filesystem operations
                #[cfg(feature = "unstable-fs")]
                World::current(|world| {
                    let addr = world.current_addr().expect("current host missing");
                    let World { hosts, rng, .. } = world;
                    let host = hosts.get_mut(&addr).unwrap();
                    host.fs.lock().unwrap().discard_pending(&mut **rng);
                });

                tracing::trace!(target: TRACING_TARGET, addr = ?h, "Crash");
            });
        }

        self.world.borrow_mut().set_current(None);
    }

    /// Bounces the resolved hosts. The software is restarted.
    pub fn bounce(&mut self, addrs: impl ToIpAddrs) {
        self.run_with_hosts(addrs, |addr, rt| {
            rt.bounce();

            tracing::trace!(target: TRACING_TARGET, addr = ?addr, "Bounce");
        });
    }

    /// Run `f` with the resolved hosts at `addrs` set on the world.
    fn run_with_hosts(&mut self, addrs: impl ToIpAddrs, mut f: impl FnMut(IpAddr, &mut Rt)) {
        let hosts = self.world.borrow_mut().lookup_many(addrs);
        for h in hosts {
            let rt = self.rts.get_mut(&h).expect("missing host");

            self.world.borrow_mut().set_current(Some(h));

            World::enter(&self.world, || f(h, rt));
        }

        self.world.borrow_mut().set_current(None);
    }

    /// Check whether a host has software running.
    pub fn is_host_running(&mut self, addr: impl ToIpAddr) -> bool {
        let host = self.world.borrow_mut().lookup(addr);

        self.rts
            .get(&host)
            .expect("missing host")
            .is_software_running()
    }

    /// Lookup an IP address by host name.
    pub fn lookup(&self, addr: impl ToIpAddr) -> IpAddr {
        self.world.borrow_mut().lookup(addr)
    }

    /// Perform a reverse DNS lookup, returning the hostname if the entry
    /// exists.
    pub fn reverse_lookup(&self, addr: IpAddr) -> Option<String> {
        self.world
            .borrow()
            .reverse_lookup(addr)
            .map(|h| h.to_owned())
    }

    /// Hold messages between two hosts, or sets of hosts, until [`release`](crate::release) is
    /// called.
    pub fn hold(&self, a: impl ToIpAddrs, b: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.hold_many(a, b);
    }

    /// Repair the connection between two hosts, or sets of hosts, resulting in
    /// messages to be delivered.
    pub fn repair(&self, a: impl ToIpAddrs, b: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.repair_many(a, b);
    }

    /// Repair the connection between two hosts, or sets of hosts, removing
    /// the effect of a previous [`Self::partition_oneway`].
    ///
    /// Combining this feature with [`Self::hold`] is presently not supported.
    pub fn repair_oneway(&self, from: impl ToIpAddrs, to: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.repair_oneway_many(from, to);
    }

    /// The opposite of [`hold`](crate::hold). All held messages are immediately delivered.
    pub fn release(&self, a: impl ToIpAddrs, b: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.release_many(a, b);
    }

    /// Partition two hosts, or sets of hosts, resulting in all messages sent
    /// between them to be dropped.
    pub fn partition(&self, a: impl ToIpAddrs, b: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.partition_many(a, b);
    }

    /// Partition two hosts, or sets of hosts, such that messages can not be sent
    /// from 'from' to 'to', while not affecting the ability for them to be delivered
    /// in the other direction.
    ///
    /// Partitioning first from->to, then to->from, will stop all messages, similarly to
    /// a single call to [`Self::partition`].
    ///
    /// Combining this feature with [`Self::hold`] is presently not supported.
    pub fn partition_oneway(&self, from: impl ToIpAddrs, to: impl ToIpAddrs) {
        let mut world = self.world.borrow_mut();
        world.partition_oneway_many(from, to);
    }

    /// Resolve host names for an [`IpAddr`] pair.
    ///
    /// Useful when interacting with network [links](#method.links).
    pub fn reverse_lookup_pair(&self, pair: (IpAddr, IpAddr)) -> (String, String) {
        let world = self.world.borrow();

        (
            world
                .dns
                .reverse(pair.0)
                .expect("no hostname found for ip address")
                .to_owned(),
            world
                .dns
                .reverse(pair.1)
                .expect("no hostname found for ip address")
                .to_owned(),
        )
    }

    /// Lookup IP addresses for resolved hosts.
    pub fn lookup_many(&self, addr: impl ToIpAddrs) -> Vec<IpAddr> {
        self.world.borrow_mut().lookup_many(addr)
    }

    /// Set the max message latency for all links.
    pub fn set_max_message_latency(&self, value: Duration) {
        self.world
            .borrow_mut()
            .topology
            .set_max_message_latency(value);
    }

    /// Set the message latency for any links matching `a` and `b`.
    ///
    /// This sets the min and max to the same value eliminating any variance in
    /// latency.
    pub fn set_link_latency(&self, a: impl ToIpAddrs, b: impl ToIpAddrs, value: Duration) {
        let mut world = self.world.borrow_mut();
        let a = world.lookup_many(a);
        let b = world.lookup_many(b);

        for_pairs(&a, &b, |a, b| {
            world.topology.set_link_message_latency(a, b, value);
        });
    }

    /// Set the max message latency for any links matching `a` and `b`.
    pub fn set_link_max_message_latency(
        &self,
        a: impl ToIpAddrs,
        b: impl ToIpAddrs,
        value: Duration,
    ) {
        let mut world = self.world.borrow_mut();
        let a = world.lookup_many(a);
        let b = world.lookup_many(b);

        for_pairs(&a, &b, |a, b| {
            world.topology.set_link_max_message_latency(a, b, value);
        });
    }

    /// Set the message latency distribution curve for all links.
    ///
    /// Message latency follows an exponential distribution curve. The `value`
    /// is the lambda argument to the probability function.
    pub fn set_message_latency_curve(&self, value: f64) {
        self.world
            .borrow_mut()
            .topology
            .set_message_latency_curve(value);
    }

    pub fn set_fail_rate(&mut self, value: f64) {
        self.world.borrow_mut().topology.set_fail_rate(value);
    }

    pub fn set_link_fail_rate(&mut self, a: impl ToIpAddrs, b: impl ToIpAddrs, value: f64) {
        let mut world = self.world.borrow_mut();
        let a = world.lookup_many(a);
        let b = world.lookup_many(b);

        for_pairs(&a, &b, |a, b| {
            world.topology.set_link_fail_rate(a, b, value);
        });
    }

    /// How long until the network has a message to deliver: `Some(ZERO)` if
    /// one is deliverable now, `None` if no message is in flight. Held
    /// messages (see [`Sim::hold`]) wait for a release and do not count, nor
    /// do arrived messages waiting for a crashed host: they are delivered in
    /// the first step after its bounce.
    ///
    /// A message becomes deliverable in the first step whose end is at least
    /// this far from now.
    pub fn next_delivery(&self) -> Option<Duration> {
        let running = |addr: IpAddr| {
            self.rts
                .get(&addr)
                .is_some_and(|rt| rt.is_software_running())
        };
        self.world.borrow().topology.next_delivery(running)
    }

    /// Whether a message a host sent to itself is still on its way. Turmoil
    /// delivers those with a timer of the host's own, a tick after they were
    /// sent, which [`Sim::next_delivery`] does not see; while one is on its
    /// way, a step longer than the tick or a quiet step (see
    /// [`Sim::step_by_quiet`]) may not be the same as the steps it stands for.
    pub fn loopback_in_flight(&self) -> bool {
        self.world.borrow().loopback.any()
    }

    /// Access a [`LinksIter`] to introspect inflight messages between hosts.
    pub fn links(&self, f: impl FnOnce(LinksIter)) {
        let top = &mut self.world.borrow_mut().topology;

        f(top.iter_mut())
    }

    /// Run the simulation until all client hosts have completed.
    ///
    /// Executes a simple event loop that calls [step](#method.step) each
    /// iteration, returning early if any host software errors.
    pub fn run(&mut self) -> Result {
        // check if we have any clients
        if !self
            .rts
            .iter()
            .any(|(_, rt)| matches!(rt.kind, rt::Kind::Client))
        {
            tracing::info!(target: TRACING_TARGET, "No client hosts registered, exiting simulation");
            return Ok(());
        }

        loop {
            let is_finished = self.step()?;

            if is_finished {
                return Ok(());
            }
        }
    }

    /// Step the simulation.
    ///
    /// Runs each host in the simulation a fixed duration configured by
    /// `tick_duration` in the builder.
    ///
    /// The simulated network also steps, processing in flight messages, and
    /// delivering them to their destination if appropriate.
    ///
    /// Returns whether or not all clients have completed.
    pub fn step(&mut self) -> Result<bool> {
        self.step_by(self.config.tick)
    }

    /// Step the simulation by `duration` instead of the configured tick.
    ///
    /// This is one step: the network and each running host advance by
    /// `duration` at once. Timers inside a host still fire at their own
    /// instant, but messages are only delivered at the start of a step, and
    /// with `enable_random_order` the hosts are shuffled once, not once per
    /// tick. So a step of `k` ticks is the same as `k` steps only when nothing
    /// would happen during the first `k - 1` of them: no message in flight
    /// (see [`Sim::next_delivery`]) and no host with work ready or a timer due
    /// before the last of them. A harness that knows its hosts' timers uses
    /// this to skip idle stretches of a simulation.
    ///
    /// Returns whether or not all clients have completed.
    pub fn step_by(&mut self, duration: Duration) -> Result<bool> {
        self.step_with(duration, Hosts::All)
    }

    /// [`Sim::step_by`] for a step in which the caller knows that no timer of
    /// any host falls due, up to and including the step's end, and none fell
    /// due at the end of the step before (timers due at the end of a tick
    /// fire in its last park, after which the tick returns, leaving the tasks
    /// they woke for the next tick). Turmoil's own timers count: a message a
    /// host sends to itself is delivered by a timer one tick later (see
    /// [`Sim::loopback_in_flight`]).
    ///
    /// In such a step a host with no task queued after its messages are
    /// delivered would run nothing, so its runtime is not run: its clock
    /// owes `duration`, which its next tick advances before anything runs,
    /// and the step is the same as with [`Sim::step_by`]. A
    /// host runs as usual if a task of its own is woken, by a delivery,
    /// another host (a `oneshot` completed across hosts, as TCP's connect
    /// is) or anything else outside it.
    ///
    /// Returns whether or not all clients have completed.
    pub fn step_by_quiet(&mut self, duration: Duration) -> Result<bool> {
        self.step_with(duration, Hosts::Busy { due: &[] })
    }

    /// [`Sim::step_by_quiet`] for a step in which timers of the hosts at
    /// `due` may fall due, and the caller knows no other host's timer falls
    /// due, up to and including the step's end, and none fell due at the end
    /// of the step before. The hosts at `due` tick in full; any other with no
    /// task queued once its messages are delivered is left out, as in a quiet
    /// step. The caller learns each timer's host from
    /// [`current_host_sim_elapsed`](crate::current_host_sim_elapsed) when it
    /// is made.
    ///
    /// Returns whether or not all clients have completed.
    pub fn step_by_quiet_except(&mut self, duration: Duration, due: &[IpAddr]) -> Result<bool> {
        self.step_with(duration, Hosts::Busy { due })
    }

    fn step_with(&mut self, duration: Duration, hosts: Hosts<'_>) -> Result<bool> {
        tracing::trace!(target: TRACING_TARGET, "step {}", self.steps);

        let tick = duration;
        let mut is_finished = true;

        // Tick the networking, processing messages. This is done before
        // ticking any other runtime, as they might be waiting on network
        // IO. (It also might be waiting on something else, such as time.)
        self.world.borrow_mut().topology.tick_by(tick);

        // Tick each host runtime with running software, and keep the clocks
        // of the hosts that are not running (i.e., crashed) up with the rest
        // of the simulation for when they are restarted (bounced). If the
        // software completes, extract the result and return early if an
        // error is encountered.
        //
        // Software stops only in its own host's tick, so whether a host runs,
        // read as its turn comes, is what it was when the step began.
        if self.config.random_node_order {
            let (mut running, stopped): (Vec<_>, Vec<_>) = self
                .rts
                .iter_mut()
                .enumerate()
                .partition(|(_, (_, rt))| rt.is_software_running());
            running.shuffle(&mut self.world.borrow_mut().rng);
            for (hint, (&addr, rt)) in running {
                is_finished &= tick_host(&self.world, hint, addr, rt, tick, hosts)?;
            }
            for (_, (&addr, _rt)) in stopped {
                self.world.borrow_mut().tick(addr, tick);
            }
        } else {
            for (hint, (&addr, rt)) in self.rts.iter_mut().enumerate() {
                if rt.is_software_running() {
                    is_finished &= tick_host(&self.world, hint, addr, rt, tick, hosts)?;
                } else {
                    self.world.borrow_mut().tick(addr, tick);
                }
            }
        }

        self.elapsed += tick;
        self.steps += 1;

        if self.elapsed > self.config.duration && !is_finished {
            return Err(format!(
                "Ran for duration: {:?} steps: {} without completing",
                self.config.duration, self.steps,
            ))?;
        }

        Ok(is_finished)
    }
}

/// Ticks the host at `addr`, whose software is running: delivers its
/// messages and runs its runtime for `tick`, in its `node` span. Returns
/// whether it is not a client or its software has finished.
///
/// `hint` is the index of the host's runtime in [`Sim::rts`]. A host and its
/// runtime are registered together, so it is also the host's index in
/// [`World::hosts`]; that is checked, and the host looked up by address if
/// not.
fn tick_host(
    world: &RefCell<World>,
    hint: usize,
    addr: IpAddr,
    rt: &mut Rt,
    tick: Duration,
    hosts: Hosts<'_>,
) -> Result<bool> {
    rt.in_span(|rt| {
        // The host's index in the world, found once for the whole tick.
        let index = {
            let mut world = world.borrow_mut();
            // We need to move deliverable messages off the network and
            // into the dst host. This requires two mutable borrows.
            let World {
                rng,
                topology,
                hosts,
                ..
            } = world.deref_mut();
            let index = match hosts.get_index(hint) {
                Some((&at_hint, _)) if at_hint == addr => hint,
                _ => hosts.get_index_of(&addr).expect("missing host"),
            };
            topology.deliver_messages(rng, &mut hosts[index]);
            index
        };

        let is_software_finished = if hosts.may_leave_out(addr) && rt.is_idle() {
            rt.tick_idle(tick)?
        } else {
            // Set the current host (see method docs)
            world.borrow_mut().set_current_index(Some(index));
            World::enter(world, || {
                rt.tick(tick, |now| {
                    world.borrow_mut().current_host_mut().timer.now(now);
                })
            })?
        };

        // Unset the current host
        let mut world = world.borrow_mut();
        world.set_current_index(None);

        world.hosts[index].timer.tick(tick);

        Ok(!rt.is_client() || is_software_finished)
    })
}

/// Which hosts with running software a step runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hosts<'a> {
    /// Every one ([`Sim::step_by`]).
    All,
    /// Those with a task queued, and those at `due`, whose timers may fall
    /// due ([`Sim::step_by_quiet`], [`Sim::step_by_quiet_except`]).
    Busy { due: &'a [IpAddr] },
}

impl Hosts<'_> {
    /// Whether the host at `addr` is left out if it has no task queued.
    fn may_leave_out(self, addr: IpAddr) -> bool {
        match self {
            Hosts::All => false,
            Hosts::Busy { due } => !due.contains(&addr),
        }
    }
}

#[cfg(test)]
mod test {
    use rand::Rng;
    use std::future;
    use std::{
        net::{IpAddr, Ipv4Addr},
        rc::Rc,
        sync::{
            atomic::{AtomicU64, Ordering},
            Arc, Mutex,
        },
        time::Duration,
    };

    use tokio::{
        io::{AsyncReadExt, AsyncWriteExt},
        sync::Semaphore,
        time::Instant,
    };

    use crate::net::UdpSocket;
    use crate::{
        elapsed, hold,
        net::{TcpListener, TcpStream},
        sim_elapsed, since_epoch, Builder, Result, Sim, World,
    };

    #[test]
    fn client_error() {
        let mut sim = Builder::new().build();

        sim.client("doomed", async { Err("An Error")? });

        assert!(sim.run().is_err());
    }

    #[test]
    fn timeout() {
        let mut sim = Builder::new()
            .simulation_duration(Duration::from_millis(500))
            .build();

        sim.client("timeout", async {
            tokio::time::sleep(Duration::from_secs(1)).await;

            Ok(())
        });

        assert!(sim.run().is_err());
    }

    #[test]
    fn multiple_clients_all_finish() -> Result {
        let how_many = 3;
        let tick_ms = 10;

        // N = how_many runs, each with a different client finishing immediately
        for run in 0..how_many {
            let mut sim = Builder::new()
                .tick_duration(Duration::from_millis(tick_ms))
                .build();

            let ct = Rc::new(Semaphore::new(how_many));

            for client in 0..how_many {
                let ct = ct.clone();

                sim.client(format!("client-{client}"), async move {
                    let ms = if run == client { 0 } else { 2 * tick_ms };
                    tokio::time::sleep(Duration::from_millis(ms)).await;

                    let p = ct.acquire().await?;
                    p.forget();

                    Ok(())
                });
            }

            sim.run()?;
            assert_eq!(0, ct.available_permits());
        }

        Ok(())
    }

    /// This is a regression test that ensures host software completes when the
    /// host crashes. Before this fix we simply dropped the LocalSet, which did
    /// not ensure resources owned by spawned tasks were dropped. Now we drop
    /// and replace both the tokio Runtime and the LocalSet.
    #[test]
    fn crash_blocks_until_complete() -> Result {
        let ct = Arc::new(());

        let mut sim = Builder::new().build();

        sim.host("host", || {
            let ct = ct.clone();

            async move {
                tokio::spawn(async move {
                    let _into_task = ct;
                    future::pending::<()>().await;
                });

                future::pending().await
            }
        });

        sim.run()?;
        assert_eq!(2, Arc::strong_count(&ct));

        sim.crash("host");
        assert_eq!(1, Arc::strong_count(&ct));

        Ok(())
    }

    #[test]
    fn elapsed_time() -> Result {
        let tick = Duration::from_millis(5);
        let mut sim = Builder::new().tick_duration(tick).build();
        let start_epoch = sim.since_epoch();

        let duration = Duration::from_millis(500);

        sim.client("c1", async move {
            tokio::time::sleep(duration).await;
            assert_eq!(duration, elapsed());
            // For hosts/clients started before the first `sim.run()` call, the
            // `elapsed` and `sim_elapsed` time will be identical.
            assert_eq!(duration, sim_elapsed().unwrap());

            // Logical epoch time should move forward at the same rate the sim
            assert_eq!(start_epoch + duration, since_epoch().unwrap());

            Ok(())
        });

        sim.client("c2", async move {
            tokio::time::sleep(duration).await;
            assert_eq!(duration, elapsed());
            assert_eq!(duration, sim_elapsed().unwrap());
            assert_eq!(start_epoch + duration, since_epoch().unwrap());

            Ok(())
        });

        sim.run()?;

        // sleep duration plus one tick to complete
        assert_eq!(duration + tick, sim.elapsed());

        let start = sim.elapsed();
        sim.client("c3", async move {
            assert_eq!(Duration::ZERO, elapsed());
            // Note that sim_elapsed is total simulation time while elapsed is
            // still zero for this newly created host.
            assert_eq!(duration + tick, sim_elapsed().unwrap());
            assert_eq!(start_epoch + duration + tick, since_epoch().unwrap());
            tokio::time::sleep(duration).await;
            assert_eq!(duration, elapsed());
            assert_eq!(duration + tick + duration, sim_elapsed().unwrap());
            assert_eq!(
                start_epoch + duration + tick + duration,
                since_epoch().unwrap()
            );

            Ok(())
        });

        sim.run()?;

        // Client "c3" takes one sleep duration plus one tick to complete
        assert_eq!(duration + tick, sim.elapsed() - start);

        Ok(())
    }

    /// This is a regression test to ensure it is safe to call sim_elapsed
    /// if current world of host is not set.
    #[test]
    fn sim_elapsed_time() -> Result {
        // Safe to call outside of simution while there
        // is no current world set
        assert!(sim_elapsed().is_none());

        let sim = Builder::new().build();
        // Safe to call while there is no current host set
        World::enter(&sim.world, || assert!(sim_elapsed().is_none()));

        Ok(())
    }

    /// This is a regression test to ensure it is safe to call since_epoch
    /// if current world of host is not set.
    #[test]
    fn since_epoch_regression() -> Result {
        // Safe to call outside of simution while there
        // is no current world set
        assert!(since_epoch().is_none());

        let sim = Builder::new().build();
        // Safe to call while there is no current host set
        World::enter(&sim.world, || assert!(since_epoch().is_none()));

        Ok(())
    }

    #[test]
    fn hold_release_peers() -> Result {
        let global = Duration::from_millis(2);

        let mut sim = Builder::new()
            .min_message_latency(global)
            .max_message_latency(global)
            .build();

        sim.host("server", || async {
            let listener = TcpListener::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;

            while let Ok((mut s, _)) = listener.accept().await {
                assert!(s.write_u8(42).await.is_ok());
            }

            Ok(())
        });

        sim.client("client", async move {
            let mut s = TcpStream::connect("server:1234").await?;

            s.read_u8().await?;

            Ok(())
        });

        sim.hold("server", "client");

        // Verify that msg is not delivered.
        sim.step()?;

        sim.links(|l| {
            assert!(l.count() == 1);
        });

        // Verify that msg is still not delivered.
        sim.step()?;

        sim.release("server", "client");

        sim.run()?;

        Ok(())
    }

    #[test]
    fn partition_peers() -> Result {
        let global = Duration::from_millis(2);

        let mut sim = Builder::new()
            .min_message_latency(global)
            .max_message_latency(global)
            .build();

        sim.host("server", || async {
            let _listener = TcpListener::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;

            Ok(())
        });

        sim.client("client", async move {
            // Peers are partitioned. TCP setup should fail.
            let _ = TcpStream::connect("server:1234").await.unwrap_err();

            Ok(())
        });

        sim.partition("server", "client");

        sim.run()?;

        Ok(())
    }

    struct Expectation {
        expect_a_receive: bool,
        expect_b_receive: bool,
    }

    #[derive(Debug)]
    enum Action {
        Partition,
        PartitionOnewayAB,
        PartitionOnewayBA,
        RepairOnewayAB,
        RepairOnewayBA,
        Repair,
    }

    fn run_with_partitioning(
        host_a: &'static str,
        host_b: &'static str,
        mut partitioning: impl FnMut(&mut Sim) -> Expectation,
    ) -> Result {
        let global = Duration::from_millis(1);

        let mut sim = Builder::new()
            .min_message_latency(global)
            .max_message_latency(global)
            .build();

        let a_did_receive = Arc::new(Mutex::new(None));
        let b_did_receive = Arc::new(Mutex::new(None));

        let make_a = |sim: &mut Sim| {
            sim.client(host_a, {
                let a_did_receive = Arc::clone(&a_did_receive);
                async move {
                    let udp_socket =
                        UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;
                    udp_socket
                        .send_to(&[42], format!("{host_b}:1234"))
                        .await
                        .expect("sending packet should appear to work, even if partitioned");

                    *a_did_receive.lock().unwrap() = Some(matches!(
                        tokio::time::timeout(
                            Duration::from_secs(1),
                            udp_socket.recv_from(&mut [0])
                        )
                        .await,
                        Ok(Ok(_))
                    ));

                    Ok(())
                }
            })
        };

        let make_b = |sim: &mut Sim| {
            sim.client(host_b, {
                let b_did_receive = Arc::clone(&b_did_receive);
                async move {
                    let udp_socket =
                        UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;
                    udp_socket
                        .send_to(&[42], format!("{host_a}:1234"))
                        .await
                        .expect("sending packet should work");

                    *b_did_receive.lock().unwrap() = Some(matches!(
                        tokio::time::timeout(
                            Duration::from_secs(1),
                            udp_socket.recv_from(&mut [0])
                        )
                        .await,
                        Ok(Ok(_))
                    ));

                    Ok(())
                }
            })
        };

        let construct_a_first = sim.world.borrow_mut().rng.random_bool(0.5);
        if construct_a_first {
            make_a(&mut sim);
            make_b(&mut sim);
        } else {
            make_b(&mut sim);
            make_a(&mut sim);
        }

        let Expectation {
            expect_a_receive,
            expect_b_receive,
        } = partitioning(&mut sim);
        sim.run()?;

        assert_eq!(*a_did_receive.lock().unwrap(), Some(expect_a_receive));
        assert_eq!(*b_did_receive.lock().unwrap(), Some(expect_b_receive));

        Ok(())
    }

    #[test]
    fn partition_peers_oneway() -> Result {
        run_with_partitioning("a", "b", |sim: &mut Sim| {
            sim.partition_oneway("a", "b");
            Expectation {
                expect_a_receive: true,
                expect_b_receive: false,
            }
        })
    }

    #[test]
    fn partition_peers_oneway_many_cases() -> Result {
        const HOST_A: &str = "a";
        const HOST_B: &str = "b";

        // Test all permutations of the above 6 actions.

        fn run_with_actions(actions: &[Action]) -> Result {
            run_with_partitioning(HOST_A, HOST_B, |sim: &mut Sim| {
                let mut expect_a_receive = true;
                let mut expect_b_receive = true;
                for action in actions {
                    match action {
                        Action::Partition => {
                            sim.partition(HOST_A, HOST_B);
                            expect_a_receive = false;
                            expect_b_receive = false;
                        }
                        Action::PartitionOnewayAB => {
                            sim.partition_oneway(HOST_A, HOST_B);
                            expect_b_receive = false;
                        }
                        Action::PartitionOnewayBA => {
                            sim.partition_oneway(HOST_B, HOST_A);
                            expect_a_receive = false;
                        }
                        Action::RepairOnewayAB => {
                            sim.repair_oneway(HOST_A, HOST_B);
                            expect_b_receive = true;
                        }
                        Action::RepairOnewayBA => {
                            sim.repair_oneway(HOST_B, HOST_A);
                            expect_a_receive = true;
                        }
                        Action::Repair => {
                            sim.repair(HOST_A, HOST_B);
                            expect_a_receive = true;
                            expect_b_receive = true;
                        }
                    }
                }
                Expectation {
                    expect_a_receive,
                    expect_b_receive,
                }
            })?;
            Ok(())
        }

        run_with_actions(&[Action::PartitionOnewayAB])?;
        run_with_actions(&[Action::PartitionOnewayBA])?;
        run_with_actions(&[Action::Partition, Action::RepairOnewayAB])?;
        run_with_actions(&[Action::Partition, Action::RepairOnewayBA])?;
        run_with_actions(&[Action::PartitionOnewayAB, Action::Repair])?;
        run_with_actions(&[Action::PartitionOnewayBA, Action::Repair])?;
        run_with_actions(&[Action::PartitionOnewayBA, Action::RepairOnewayAB])?;
        run_with_actions(&[Action::PartitionOnewayAB, Action::PartitionOnewayBA])?;
        run_with_actions(&[
            Action::Partition,
            Action::RepairOnewayAB,
            Action::RepairOnewayBA,
        ])?;

        Ok(())
    }

    #[test]
    fn elapsed_time_across_restarts() -> Result {
        let tick_ms = 5;
        let mut sim = Builder::new()
            .tick_duration(Duration::from_millis(tick_ms))
            .build();

        let clock = Arc::new(AtomicU64::new(0));
        let actual = clock.clone();

        sim.host("host", move || {
            let clock = clock.clone();

            async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    clock.store(elapsed().as_millis() as u64, Ordering::SeqCst);
                }
            }
        });

        sim.step()?;
        assert_eq!(tick_ms - 1, actual.load(Ordering::SeqCst));

        sim.bounce("host");
        sim.step()?;
        assert_eq!((tick_ms * 2) - 1, actual.load(Ordering::SeqCst));

        Ok(())
    }

    #[test]
    fn elapsed_time_across_crashes() -> Result {
        let tick_ms = 5;
        let mut sim = Builder::new()
            .tick_duration(Duration::from_millis(tick_ms))
            .build();

        let clock_1 = Arc::new(AtomicU64::new(0));
        let clock_1_moved = clock_1.clone();

        sim.host("host1", move || {
            let clock = clock_1_moved.clone();
            async move {
                loop {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                    clock.store(sim_elapsed().unwrap().as_millis() as u64, Ordering::SeqCst);
                }
            }
        });

        // Crashing host 1
        sim.crash("host1");
        sim.step()?;
        // After bouncing host 1, host's clock must be synced.
        sim.bounce("host1");
        sim.step()?;
        assert_eq!(
            2 * tick_ms - 1,
            clock_1.load(Ordering::SeqCst),
            "Host 1 should have caught up"
        );

        Ok(())
    }

    #[test]
    fn host_finishes_with_error() {
        let mut sim = Builder::new().build();

        sim.host("host", || async {
            Err("Host software finished unexpectedly")?
        });

        assert!(sim.step().is_err());
    }

    #[test]
    fn manual_message_delivery() -> Result {
        let mut sim = Builder::new().build();

        sim.host("a", || async {
            let l = TcpListener::bind("0.0.0.0:1234").await?;

            _ = l.accept().await?;

            Ok(())
        });

        sim.client("b", async {
            hold("a", "b");

            _ = TcpStream::connect("a:1234").await?;

            Ok(())
        });

        assert!(!sim.step()?);

        sim.links(|mut l| {
            let a_to_b = l.next().unwrap();
            a_to_b.deliver_all();
        });

        assert!(sim.step()?);

        Ok(())
    }

    /// This is a regression test that ensures JoinError::Cancelled is not
    /// propagated to the test when the host crashes, which was causing
    /// incorrect test failure.
    #[test]
    fn run_after_host_crashes() -> Result {
        let mut sim = Builder::new().build();

        sim.host("h", || async { future::pending().await });

        sim.crash("h");

        sim.run()
    }

    #[test]
    fn restart_host_after_crash() -> Result {
        let mut sim = Builder::new().build();

        let data = Arc::new(AtomicU64::new(0));
        let data_cloned = data.clone();

        sim.host("h", move || {
            let data_cloned = data_cloned.clone();
            async move {
                data_cloned.store(data_cloned.load(Ordering::SeqCst) + 1, Ordering::SeqCst);
                Ok(())
            }
        });

        // crash and step to execute the err handling logic
        sim.crash("h");
        sim.step()?;

        // restart and step to ensure the host software runs
        sim.bounce("h");
        sim.step()?;
        // check that software actually runs
        assert_eq!(1, data.load(Ordering::SeqCst));

        Ok(())
    }

    #[test]
    fn override_link_latency() -> Result {
        let global = Duration::from_millis(2);

        let mut sim = Builder::new()
            .min_message_latency(global)
            .max_message_latency(global)
            .build();

        sim.host("server", || async {
            let listener = TcpListener::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;

            while let Ok((mut s, _)) = listener.accept().await {
                assert!(s.write_u8(9).await.is_ok());
            }

            Ok(())
        });

        sim.client("client", async move {
            let mut s = TcpStream::connect("server:1234").await?;

            let start = Instant::now();
            s.read_u8().await?;
            assert_eq!(global, start.elapsed());

            Ok(())
        });

        sim.run()?;

        let degraded = Duration::from_millis(10);

        sim.client("client2", async move {
            let mut s = TcpStream::connect("server:1234").await?;

            let start = Instant::now();
            s.read_u8().await?;
            assert_eq!(degraded, start.elapsed());

            Ok(())
        });

        sim.set_link_latency("client2", "server", degraded);

        sim.run()
    }

    #[test]
    fn is_host_running() -> Result {
        let mut sim = Builder::new().build();

        sim.client("client", async { future::pending().await });
        sim.host("host", || async { future::pending().await });

        assert!(!sim.step()?);

        assert!(sim.is_host_running("client"));
        assert!(sim.is_host_running("host"));

        sim.crash("host");
        assert!(!sim.is_host_running("host"));

        Ok(())
    }

    #[test]
    #[cfg(feature = "regex")]
    fn host_scan() -> Result {
        let mut sim = Builder::new().build();

        let how_many = 3;
        for i in 0..how_many {
            sim.host(format!("host-{i}"), || async { future::pending().await })
        }

        let mut ips = sim.lookup_many(regex::Regex::new(".*")?);
        ips.sort();

        assert_eq!(how_many, ips.len());

        for (i, ip) in ips.iter().enumerate() {
            assert_eq!(
                format!("host-{i}"),
                sim.reverse_lookup(*ip).ok_or("Unable to resolve ip")?
            );
        }

        Ok(())
    }

    #[test]
    #[cfg(feature = "regex")]
    fn bounce_multiple_hosts_with_regex() -> Result {
        let mut sim = Builder::new().build();

        let count = Arc::new(AtomicU64::new(0));
        for i in 1..=3 {
            let count = count.clone();
            sim.host(format!("host-{}", i), move || {
                let count = count.clone();
                async move {
                    count.fetch_add(1, Ordering::SeqCst);
                    future::pending().await
                }
            });
        }

        sim.step()?;
        assert_eq!(count.load(Ordering::SeqCst), 3);
        sim.bounce(regex::Regex::new("host-[12]")?);
        sim.step()?;
        assert_eq!(count.load(Ordering::SeqCst), 5);

        Ok(())
    }

    #[test]
    #[cfg(feature = "regex")]
    fn hold_all() -> Result {
        let mut sim = Builder::new().build();

        sim.host("host", || async {
            let l = TcpListener::bind("0.0.0.0:1234").await?;

            loop {
                _ = l.accept().await?;
            }
        });

        sim.client("test", async {
            hold(regex::Regex::new(r".*")?, regex::Regex::new(r".*")?);

            assert!(tokio::time::timeout(
                Duration::from_millis(100),
                TcpStream::connect("host:1234")
            )
            .await
            .is_err());

            crate::release(regex::Regex::new(r".*")?, regex::Regex::new(r".*")?);

            assert!(TcpStream::connect("host:1234").await.is_ok());

            Ok(())
        });

        sim.run()
    }

    /// When the client wakes, and when it finishes, in simulated time.
    fn sleepy_run(skip: Option<Duration>) -> Result<(Duration, Duration)> {
        let woke = Rc::new(std::cell::Cell::new(Duration::ZERO));
        let mut sim = Builder::new().build();
        let seen = woke.clone();
        sim.client("client", async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            seen.set(sim_elapsed().expect("inside a host"));
            Ok(())
        });
        // The first step polls the client, which starts sleeping.
        sim.step()?;
        if let Some(skip) = skip {
            sim.step_by(skip)?;
        }
        while !sim.step()? {}
        Ok((woke.get(), sim.elapsed()))
    }

    #[test]
    fn step_by_skips_idle_ticks_without_moving_any_event() -> Result {
        let fixed = sleepy_run(None)?;
        assert_eq!(fixed.0, Duration::from_millis(50));
        // 48 ticks after the first end at 49 ms, before the timer at 50 ms.
        assert_eq!(sleepy_run(Some(Duration::from_millis(48)))?, fixed);
        Ok(())
    }

    #[test]
    fn next_delivery_is_the_time_until_a_message_in_flight_arrives() -> Result {
        let mut sim = Builder::new()
            .min_message_latency(Duration::from_millis(10))
            .max_message_latency(Duration::from_millis(10))
            .build();
        sim.host("server", || async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;
            let mut buf = [0; 8];
            loop {
                socket.recv_from(&mut buf).await?;
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"ping", "server:1234").await?;
            future::pending::<()>().await;
            Ok(())
        });
        assert_eq!(sim.next_delivery(), None);
        sim.step()?;
        // Sent during the first step, when the network's clock already reads the step's
        // end: due a whole latency from now.
        assert_eq!(sim.next_delivery(), Some(Duration::from_millis(10)));
        sim.hold("client", "server");
        assert_eq!(sim.next_delivery(), None);
        sim.release("client", "server");
        assert_eq!(sim.next_delivery(), Some(Duration::ZERO));
        sim.step()?;
        assert_eq!(sim.next_delivery(), None);
        Ok(())
    }

    #[test]
    fn next_delivery_leaves_out_messages_waiting_for_a_crashed_host() -> Result {
        let mut sim = Builder::new()
            .min_message_latency(Duration::from_millis(10))
            .max_message_latency(Duration::from_millis(10))
            .build();
        sim.host("server", || async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;
            let mut buf = [0; 8];
            loop {
                socket.recv_from(&mut buf).await?;
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"ping", "server:1234").await?;
            future::pending::<()>().await;
            Ok(())
        });
        sim.step()?;
        sim.crash("server");
        // Still counted while in flight: the step it arrives in must run.
        assert_eq!(sim.next_delivery(), Some(Duration::from_millis(10)));
        sim.step_by(Duration::from_millis(10))?;
        // Arrived, but the crashed server takes nothing until it is bounced.
        assert_eq!(sim.next_delivery(), None);
        sim.bounce("server");
        assert_eq!(sim.next_delivery(), Some(Duration::ZERO));
        Ok(())
    }

    #[test]
    fn loopback_in_flight_counts_messages_to_self_until_delivered_or_crashed() -> Result {
        let mut sim = Builder::new().build();
        sim.host("server", || async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1234)).await?;
            let mut buf = [0; 8];
            loop {
                socket.recv_from(&mut buf).await?;
                socket.send_to(b"echo", "127.0.0.1:1234").await?;
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"ping", "server:1234").await?;
            future::pending::<()>().await;
            Ok(())
        });
        assert!(!sim.loopback_in_flight());
        // The ping crosses the network: not a loopback message.
        sim.step()?;
        assert!(!sim.loopback_in_flight());
        while sim.next_delivery().is_some() {
            sim.step()?;
        }
        // The server has read the ping and sent itself its echo.
        assert!(sim.loopback_in_flight());
        // Delivered a tick later, read, and sent again: always one on its way.
        sim.step()?;
        assert!(sim.loopback_in_flight());
        // A crash drops the task that would deliver it.
        sim.crash("server");
        assert!(!sim.loopback_in_flight());
        Ok(())
    }

    /// How a simulation is stepped in the quiet-step tests.
    #[derive(Clone, Copy, Debug)]
    enum Stepping {
        Every,
        Quiet,
    }

    fn step_as(sim: &mut Sim<'_>, stepping: Stepping) -> Result<bool> {
        match stepping {
            Stepping::Every => sim.step(),
            Stepping::Quiet => sim.step_by_quiet(sim.config.tick),
        }
    }

    /// The client connects over TCP; its `connect` is completed by the server's `accept`, in
    /// the server's tick, through a `oneshot`: nothing is delivered to the client. Returns
    /// when the client was connected, by its own clock, and when the simulation ended.
    fn connect_run(stepping: Stepping) -> Result<(Duration, Duration)> {
        let connected = Rc::new(std::cell::Cell::new(Duration::ZERO));
        let mut sim = Builder::new().rng_seed(7).build();
        sim.host("server", || async {
            let listener = TcpListener::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 80)).await?;
            loop {
                let _ = listener.accept().await?;
            }
        });
        let seen = connected.clone();
        sim.client("client", async move {
            let start = Instant::now();
            let _stream = TcpStream::connect("server:80").await?;
            seen.set(start.elapsed());
            Ok(())
        });
        let mut steps = 0;
        while !step_as(&mut sim, stepping)? {
            steps += 1;
            assert!(steps < 1_000, "the client never connected");
        }
        Ok((connected.get(), sim.elapsed()))
    }

    #[test]
    fn a_quiet_step_runs_a_host_woken_by_another_host() -> Result {
        let every = connect_run(Stepping::Every)?;
        assert!(every.0 > Duration::ZERO);
        assert_eq!(connect_run(Stepping::Quiet)?, every);
        Ok(())
    }

    /// The server's software `tokio::spawn`s a task that waits for a datagram and reads its
    /// clock when it comes (the client sends it after `idle` steps); the rest of the server
    /// waits forever. Returns the server's clock at the datagram and the simulation's.
    fn spawned_receiver_run(stepping: Stepping, idle: usize) -> Result<(Duration, Duration)> {
        let received = Arc::new(Mutex::new(None));
        let mut sim = Builder::new().rng_seed(7).build();
        let seen = received.clone();
        sim.host("server", move || {
            let seen = seen.clone();
            async move {
                let start = Instant::now();
                tokio::spawn(async move {
                    let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1)).await?;
                    socket.recv_from(&mut [0; 8]).await?;
                    *seen.lock().unwrap() = Some(start.elapsed());
                    Ok::<_, std::io::Error>(())
                });
                future::pending::<()>().await;
                Ok(())
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"ping", "server:1").await?;
            Ok(())
        });
        sim.hold("client", "server");
        for _ in 0..idle {
            step_as(&mut sim, stepping)?;
        }
        sim.release("client", "server");
        for _ in 0..1_000 {
            if let Some(at) = *received.lock().unwrap() {
                return Ok((at, sim.elapsed()));
            }
            step_as(&mut sim, stepping)?;
        }
        panic!("the server's spawned task never received the datagram");
    }

    #[test]
    fn a_quiet_step_runs_a_spawned_task_woken_by_a_delivery() -> Result {
        let every = spawned_receiver_run(Stepping::Every, 3)?;
        assert_eq!(spawned_receiver_run(Stepping::Quiet, 3)?, every);
        Ok(())
    }

    /// The server sleeps 5 ms and then sends the client a datagram, which the client (no
    /// timer of its own) waits for. Stepped quiet but for the server, whose timer falls due,
    /// or every host every step. Returns when the client received it, by its own clock, and
    /// when the simulation ended.
    fn timer_run(quiet_but_server: bool) -> Result<(Duration, Duration)> {
        let received = Rc::new(std::cell::Cell::new(None));
        let mut sim = Builder::new().rng_seed(7).build();
        sim.host("server", || async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1)).await?;
            tokio::time::sleep(Duration::from_millis(5)).await;
            socket.send_to(b"ping", "client:2").await?;
            future::pending::<()>().await;
            Ok(())
        });
        let seen = received.clone();
        sim.client("client", async move {
            let start = Instant::now();
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 2)).await?;
            socket.recv_from(&mut [0; 8]).await?;
            seen.set(Some(start.elapsed()));
            Ok(())
        });
        let server = sim.lookup("server");
        for _ in 0..1_000 {
            let done = if quiet_but_server {
                sim.step_by_quiet_except(sim.config.tick, &[server])?
            } else {
                sim.step()?
            };
            if done {
                let received = received.get().expect("the client received the datagram");
                return Ok((received, sim.elapsed()));
            }
        }
        panic!("the client never received the datagram");
    }

    #[test]
    fn a_host_whose_timer_is_due_ticks_in_full_in_a_step_quiet_for_the_others() -> Result {
        let every = timer_run(false)?;
        assert!(every.0 >= Duration::from_millis(5), "{every:?}");
        assert_eq!(timer_run(true)?, every);
        Ok(())
    }

    #[test]
    fn a_host_left_out_of_quiet_steps_reads_the_time_it_would_have() -> Result {
        let every = spawned_receiver_run(Stepping::Every, 40)?;
        // 40 held ticks of 1 ms, then the delivery, all on the server's own clock.
        assert!(every.0 >= Duration::from_millis(40), "{every:?}");
        assert_eq!(spawned_receiver_run(Stepping::Quiet, 40)?, every);
        Ok(())
    }

    /// Two `tokio::spawn`ed tasks of the server become ready in the same tick: one woken by a
    /// delivery (the runtime's global queue), one by the server's `LocalSet` task (its local
    /// queue). A tokio runtime takes from its global queue first on every 31st turn of its
    /// loop by default, so which ran first would depend on how many turns the server's
    /// runtime took before, and quiet steps take none. Returns the order they ran in.
    fn two_queues_run(stepping: Stepping, idle: usize) -> Result<Vec<&'static str>> {
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut sim = Builder::new().rng_seed(7).build();
        let ran = order.clone();
        sim.host("server", move || {
            let ran = ran.clone();
            async move {
                let by_delivery = ran.clone();
                tokio::spawn(async move {
                    let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1)).await?;
                    socket.recv_from(&mut [0; 8]).await?;
                    by_delivery.lock().unwrap().push("global queue");
                    Ok::<_, std::io::Error>(())
                });
                let notify = Arc::new(tokio::sync::Notify::new());
                let notified = notify.clone();
                let by_host = ran.clone();
                tokio::spawn(async move {
                    notified.notified().await;
                    by_host.lock().unwrap().push("local queue");
                });
                let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 2)).await?;
                socket.recv_from(&mut [0; 8]).await?;
                notify.notify_one();
                future::pending::<()>().await;
                Ok(())
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"one", "server:1").await?;
            socket.send_to(b"two", "server:2").await?;
            Ok(())
        });
        sim.hold("client", "server");
        for _ in 0..idle {
            step_as(&mut sim, stepping)?;
        }
        sim.release("client", "server");
        for _ in 0..1_000 {
            if order.lock().unwrap().len() == 2 {
                return Ok(order.lock().unwrap().clone());
            }
            step_as(&mut sim, stepping)?;
        }
        panic!("the server's tasks never both ran");
    }

    #[test]
    fn a_host_left_out_of_quiet_steps_runs_its_tasks_in_the_order_it_would_have() -> Result {
        for idle in 1..=31 {
            let every = two_queues_run(Stepping::Every, idle)?;
            assert_eq!(
                two_queues_run(Stepping::Quiet, idle)?,
                every,
                "after {idle} idle steps"
            );
            // Whatever turns came before, the global queue first.
            assert_eq!(every, ["global queue", "local queue"], "after {idle} idle steps");
        }
        Ok(())
    }

    /// The server's own task (in its `LocalSet`) and a task it `tokio::spawn`ed each wait for a
    /// datagram, both delivered in the same step after `idle` held steps. A tick polls the
    /// `LocalSet` before the runtime runs its spawned tasks, so the server's task receives
    /// first; a host that paid its left-out time in a `block_on` of its own would run the
    /// spawned task there, before the tick. Returns the order they received in.
    fn set_and_spawned_run(stepping: Stepping, idle: usize) -> Result<Vec<&'static str>> {
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut sim = Builder::new().rng_seed(7).build();
        let ran = order.clone();
        sim.host("server", move || {
            let ran = ran.clone();
            async move {
                let spawned = ran.clone();
                tokio::spawn(async move {
                    let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 1)).await?;
                    socket.recv_from(&mut [0; 8]).await?;
                    spawned.lock().unwrap().push("spawned");
                    Ok::<_, std::io::Error>(())
                });
                let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 2)).await?;
                socket.recv_from(&mut [0; 8]).await?;
                ran.lock().unwrap().push("local set");
                future::pending::<()>().await;
                Ok(())
            }
        });
        sim.client("client", async {
            let socket = UdpSocket::bind((IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0)).await?;
            socket.send_to(b"one", "server:1").await?;
            socket.send_to(b"two", "server:2").await?;
            Ok(())
        });
        sim.hold("client", "server");
        for _ in 0..idle {
            step_as(&mut sim, stepping)?;
        }
        sim.release("client", "server");
        for _ in 0..1_000 {
            if order.lock().unwrap().len() == 2 {
                return Ok(order.lock().unwrap().clone());
            }
            step_as(&mut sim, stepping)?;
        }
        panic!("the server's tasks never both received");
    }

    #[test]
    fn a_host_left_out_of_quiet_steps_polls_its_local_set_first_when_it_runs_again() -> Result {
        for idle in 1..=5 {
            let every = set_and_spawned_run(Stepping::Every, idle)?;
            assert_eq!(every, ["local set", "spawned"], "after {idle} idle steps");
            assert_eq!(
                set_and_spawned_run(Stepping::Quiet, idle)?,
                every,
                "after {idle} idle steps"
            );
        }
        Ok(())
    }

    /// Counts the `node` spans opened and, for each event, the `node` span it
    /// was recorded in (`None` outside any).
    #[derive(Default)]
    struct NodeSpans {
        opened: Mutex<Vec<u64>>,
        entered: Mutex<Vec<u64>>,
        events: Mutex<Vec<Option<u64>>>,
    }

    impl tracing::Subscriber for NodeSpans {
        fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
            true
        }

        fn new_span(&self, attrs: &tracing::span::Attributes<'_>) -> tracing::span::Id {
            let mut opened = self.opened.lock().unwrap();
            let id = 1 + opened.len() as u64;
            if attrs.metadata().name() == "node" {
                opened.push(id);
            }
            tracing::span::Id::from_u64(id)
        }

        fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}

        fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}

        fn event(&self, event: &tracing::Event<'_>) {
            if event.metadata().target() == "node_spans" {
                let current = self.entered.lock().unwrap().last().copied();
                self.events.lock().unwrap().push(current);
            }
        }

        fn enter(&self, span: &tracing::span::Id) {
            self.entered.lock().unwrap().push(span.into_u64());
        }

        fn exit(&self, span: &tracing::span::Id) {
            let mut entered = self.entered.lock().unwrap();
            assert_eq!(entered.pop(), Some(span.into_u64()));
        }
    }

    #[test]
    fn each_host_runs_in_one_node_span_opened_with_it() -> Result {
        let spans = Arc::new(NodeSpans::default());
        tracing::subscriber::with_default(spans.clone(), || -> Result {
            let mut sim = Builder::new().build();
            sim.host("server", || async {
                loop {
                    tracing::info!(target: "node_spans", "server");
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
            });
            sim.client("client", async {
                for _ in 0..3 {
                    tracing::info!(target: "node_spans", "client");
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                Ok(())
            });
            sim.run()
        })?;
        let opened = spans.opened.lock().unwrap().clone();
        assert_eq!(opened.len(), 2, "one per host, not one per step");
        let events = spans.events.lock().unwrap().clone();
        assert!(events.len() >= 6, "{events:?}");
        // Every event is recorded in its host's span, which each step enters.
        assert!(events
            .iter()
            .all(|span| span.is_some_and(|id| opened.contains(&id))));
        assert!(spans.entered.lock().unwrap().is_empty());
        Ok(())
    }

    /// The picks of `tokio::select!` among ready branches, which follow the
    /// runtime's seed, made by the software of the host's last start after
    /// `faults` (`true`: a crash, `false`: a bounce), one step apart.
    #[cfg(tokio_unstable)]
    fn picks_after(faults: &[bool]) -> Result<Vec<u8>> {
        let picks = Arc::new(Mutex::new(Vec::new()));
        let mut sim = Builder::new().rng_seed(7).build();
        let seen = picks.clone();
        sim.host("server", move || {
            let seen = seen.clone();
            async move {
                let mut picks = Vec::new();
                for _ in 0..32 {
                    picks.push(tokio::select! {
                        _ = future::ready(()) => 0,
                        _ = future::ready(()) => 1,
                    });
                }
                *seen.lock().unwrap() = picks;
                future::pending::<()>().await;
                Ok(())
            }
        });
        sim.step()?;
        for &crash in faults {
            if crash {
                sim.crash("server");
            } else {
                sim.bounce("server");
            }
            sim.step()?;
        }
        let picks = picks.lock().unwrap().clone();
        Ok(picks)
    }

    // Without `tokio_unstable` a runtime's `select!` picks follow a seed of
    // its own, drawn at random.
    #[cfg(tokio_unstable)]
    #[test]
    fn a_crash_builds_no_runtime_but_draws_its_seed() -> Result {
        // The software restarted after a crash runs on the runtime seed it
        // had when the crash built a runtime of its own: that of a second
        // bounce, not of a first.
        let after_crash = picks_after(&[true, false])?;
        assert_eq!(after_crash, picks_after(&[false, false])?);
        assert_ne!(after_crash, picks_after(&[false])?);
        Ok(())
    }
}
