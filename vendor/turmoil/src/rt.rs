use std::future::{self, poll_fn, Future};
use std::mem;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};

use rand::rngs::SmallRng;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio::task::LocalSet;
use tokio::time::{sleep_until, Duration, Instant, Sleep};
use tracing::Level;

use super::Result;

// To support re-creation, we need to store a factory of the future that
// represents the software. This is somewhat annoying in that it requires
// boxxing to avoid generics.
type Software<'a> = Box<dyn Fn() -> Pin<Box<dyn Future<Output = Result>>> + 'a>;

/// Runtime kinds.
pub enum Kind<'a> {
    /// A runtime for executing test code.
    Client,

    /// A runtime that is running simulated host software.
    Host { software: Software<'a> },
}

/// Runtime configuration.
#[derive(Clone, Default)]
pub struct Config {
    /// Whether io is enabled on the runtime.
    pub enable_io: bool,

    /// Rng used to seed the tokio runtime.
    ///
    /// Only used if the `tokio_unstable` cfg flag is set.
    #[cfg_attr(not(tokio_unstable), expect(dead_code))]
    pub rng: Option<SmallRng>,
}

/// Per host simulated runtime.
///
/// The tokio runtime is paused (see [`Builder::start_paused`]), which gives us
/// control over when and how to advance time. In particular, see [`Rt::tick`],
/// which lets the runtime do a bit more work.
pub struct Rt<'a> {
    pub kind: Kind<'a>,

    /// The sleep that ends each tick of `tokio` (see [`Rt::tick`]), made on
    /// its first tick and reset to the next deadline on each later one: a
    /// sleep made and dropped per tick cost a timer's setup and teardown on
    /// every tick. `None` until then; dropped with the runtime it belongs to,
    /// and declared before it to be dropped first.
    nap: Option<Pin<Box<Sleep>>>,

    /// Handle to the Tokio runtime driving this simulated host. Each runtime
    /// may have a different sense of "now" which simulates clock skew.
    ///
    /// `None` while the host is crashed: its next runtime is built when it
    /// is bounced.
    tokio: Option<Runtime>,

    /// Local task set used for running !Send tasks.
    local: LocalSet,

    /// Optional handle to a host's software. When software finishes, the handle is
    /// consumed to check for error, which is propagated up to fail the simulation.
    handle: Option<JoinHandle<Result>>,

    /// Runtime configuration.
    config: Config,

    /// Whether `local` may have tasks queued (see [`LocalWake`]).
    local_wake: Arc<LocalWake>,

    /// The `node` span the host runs in at every step, opened once with the
    /// runtime: a span opened and closed per host per step cost a subscriber
    /// as much as a tenth of the step's work outside the hosts.
    span: tracing::Span,

    /// How far the runtime's clock is behind the simulation: the ticks left
    /// out since the host last ran (see [`Rt::tick_idle`]), paid at its next
    /// tick.
    owed: Duration,
}

/// The waker a host's [`LocalSet`] is polled with: it records that the set
/// was woken and passes the wake on to the `block_on` that polled it.
///
/// A `LocalSet` wakes the waker it was last polled with whenever a task of
/// its own is scheduled from outside its tick (a message delivered to a
/// socket, another host's task completing a `oneshot`, a timer, a task
/// `tokio::spawn`ed on the host's runtime), and when its tick ran out of
/// budget with tasks left. So while `woken` is false, nothing is queued in
/// the set.
struct LocalWake {
    woken: AtomicBool,
    block_on: Mutex<Option<Waker>>,
}

impl LocalWake {
    /// Woken at first: a new set has its software spawned, with no wake.
    fn new() -> Arc<Self> {
        Arc::new(Self {
            woken: AtomicBool::new(true),
            block_on: Mutex::new(None),
        })
    }

    fn block_on(&self) -> std::sync::MutexGuard<'_, Option<Waker>> {
        self.block_on
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn forward_to(&self, waker: &Waker) {
        let mut block_on = self.block_on();
        if !block_on.as_ref().is_some_and(|held| held.will_wake(waker)) {
            *block_on = Some(waker.clone());
        }
    }
}

impl Wake for LocalWake {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        if let Some(waker) = self.block_on().as_ref() {
            waker.wake_by_ref();
        }
    }
}

impl<'a> Rt<'a> {
    pub(crate) fn client<F>(nodename: Arc<str>, client: F, mut config: Config) -> Self
    where
        F: Future<Output = Result> + 'static,
    {
        let (tokio, local) = init(&mut config);

        let handle = with(&tokio, &local, || tokio::task::spawn_local(client));
        let span = node_span(&nodename);

        Self {
            kind: Kind::Client,
            tokio: Some(tokio),
            local,
            handle: Some(handle),
            config,
            local_wake: LocalWake::new(),
            nap: None,
            span,
            owed: Duration::ZERO,
        }
    }

    pub(crate) fn host<F, Fut>(nodename: Arc<str>, software: F, mut config: Config) -> Self
    where
        F: Fn() -> Fut + 'a,
        Fut: Future<Output = Result> + 'static,
    {
        let (tokio, local) = init(&mut config);

        let software: Software = Box::new(move || Box::pin(software()));
        let handle = with(&tokio, &local, || tokio::task::spawn_local(software()));
        let span = node_span(&nodename);

        Self {
            kind: Kind::Host { software },
            tokio: Some(tokio),
            local,
            handle: Some(handle),
            config,
            local_wake: LocalWake::new(),
            nap: None,
            span,
            owed: Duration::ZERO,
        }
    }

    /// Runs `f` in the host's `node` span.
    pub(crate) fn in_span<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        let span = mem::replace(&mut self.span, tracing::Span::none());
        let result = span.in_scope(|| f(self));
        self.span = span;
        result
    }

    pub(crate) fn is_client(&self) -> bool {
        matches!(self.kind, Kind::Client)
    }

    fn is_host(&self) -> bool {
        matches!(self.kind, Kind::Host { .. })
    }

    pub(crate) fn is_software_running(&self) -> bool {
        self.handle.is_some()
    }

    // This method is called by [`Sim::run`], which iterates through all the
    // runtimes and ticks each one. The magic of this method is described in the
    // documentation for [`LocalSet::run_until`], but it may not be entirely
    // obvious how things fit together.
    //
    // A [`LocalSet`] tracks the tasks to run, which may in turn spawn more
    // tasks. `run_until` drives a top level task to completion, but not its
    // children. If you look below, you may be confused. The task we run here
    // just sleeps and has no children! However, it's the _same `LocalSet`_ that
    // is used to run software on the host.
    //
    // In this way, every time `tick` is called, the following unfolds:
    //
    // 1. Time advances on the runtime
    // 2. We schedule a new task that simply sleeps
    // 3. Other tasks on the `LocalSet` get a chance to run
    // 4. The sleep finishes
    // 5. The runtime pauses
    //
    // The sleep is `nap`, reset to the tick's end. It is polled with
    // `block_on`'s own waker and the `LocalSet` with [`LocalWake`], in
    // `run_until`'s order: the sleep first, then, if it is not over, the
    // set's tick. `local_wake` is cleared just before each tick of the set,
    // so afterwards it tells whether the set was woken since.
    //
    // `started` is given the runtime's time as the tick starts, before any
    // task runs: the time is read once, inside the runtime, for the caller
    // and for the sleep's deadline.
    //
    // Returns whether the software has finished successfully or the error
    // that caused failure. Subsequent calls do not return the error as it is
    // expected to fail the simulation.
    pub(crate) fn tick(
        &mut self,
        duration: Duration,
        started: impl FnOnce(Instant),
    ) -> Result<bool> {
        self.catch_up();
        let local_wake = &self.local_wake;
        let set_waker = Waker::from(local_wake.clone());
        let local = &self.local;
        let nap = &mut self.nap;
        let tokio = self.tokio.as_ref().expect(CRASHED);
        tokio.block_on(async {
            let now = Instant::now();
            started(now);
            // As `sleep(duration)` would set it.
            let deadline = now + safe_delay(duration);
            let mut nap = match nap {
                Some(nap) => {
                    nap.as_mut().reset(deadline);
                    nap.as_mut()
                }
                None => nap.insert(Box::pin(sleep_until(deadline))).as_mut(),
            };
            let mut set = pin!(local.run_until(future::pending::<()>()));
            poll_fn(|cx| {
                if nap.as_mut().poll(cx).is_ready() {
                    return Poll::Ready(());
                }
                local_wake.forward_to(cx.waker());
                local_wake.woken.store(false, Ordering::Release);
                let _ = set.as_mut().poll(&mut Context::from_waker(&set_waker));
                Poll::Pending
            })
            .await
        });

        self.software_finished()
    }

    /// Whether a tick would run nothing: no task is queued, in the
    /// `LocalSet` (see [`LocalWake`]) or in the runtime's global queue
    /// (`tokio::spawn`ed tasks woken from outside the runtime, as by a
    /// delivery or another host).
    ///
    /// Tasks `tokio::spawn`ed on the runtime and woken from inside it go to
    /// its local queue, which cannot be seen from here. Between ticks that
    /// happens only when a timer falls due in the final park of a tick, at
    /// the tick's end: the caller of [`Rt::tick_idle`] must know no timer
    /// falls due then.
    pub(crate) fn is_idle(&self) -> bool {
        !self.local_wake.woken.load(Ordering::Acquire)
            && self.tokio().metrics().global_queue_depth() == 0
    }

    /// What [`Rt::tick`] does when no task is queued and no timer falls due
    /// up to the tick's end, without running the runtime at all: the paused
    /// clock owes `duration` (rounded up to a whole millisecond, as the
    /// tick's sleep would), which the host's next tick advances first (see
    /// [`Rt::catch_up`]). Until then nothing runs on the host, so nothing
    /// reads its clock.
    ///
    /// An idle tick would also have taken two turns of the scheduler's loop,
    /// which are not taken. They do not matter: the runtime counts its turns
    /// only to choose between its global and local queues, and it takes
    /// from its global queue first on every turn (see [`init`]).
    ///
    /// Under `tokio_unstable` every `block_on` draws the next seed of the
    /// runtime's generator, which the host's rng seeds (see [`draw_seed`]),
    /// for what `tokio::select!` picks. There a tick left out still enters
    /// the runtime once, as an idle tick does, and advances its clock then,
    /// so that later ticks draw the seeds they would have. Without it each
    /// runtime's generator is seeded at random, and nothing is kept.
    pub(crate) fn tick_idle(&mut self, duration: Duration) -> Result<bool> {
        let whole_ms = Duration::from_millis(duration.as_nanos().div_ceil(1_000_000) as u64);
        if cfg!(tokio_unstable) {
            self.tokio().block_on(async {
                tokio::time::advance(whole_ms).await;
                tokio::task::yield_now().await;
            });
        } else {
            self.owed += whole_ms;
        }
        self.software_finished()
    }

    /// Advances the paused clock by what the ticks left out owe it, before a
    /// tick runs anything, leaving the runtime as those ticks would have.
    ///
    /// As a rule in a `block_on` that advances the clock and yields once:
    /// its park brings the time driver up to the new time, as the ticks left
    /// out would have, and leaves the driver's woken mark as an idle tick
    /// does. Advancing the clock alone and leaving the driver to the tick's
    /// first park changed the order in which some timer-woken tasks ran.
    ///
    /// But that `block_on` would also run any `tokio::spawn`ed task woken
    /// from outside the runtime meanwhile (by a delivery or another host)
    /// before the tick polls the `LocalSet`, where a tick polls the set
    /// first. With such a task queued, the clock is advanced without a
    /// `block_on`, inside the runtime's context (`advance` moves it on its
    /// first poll and then only yields), and the driver catches up at the
    /// tick's first park.
    fn catch_up(&mut self) {
        let owed = mem::take(&mut self.owed);
        if owed.is_zero() {
            return;
        }
        if self.tokio().metrics().global_queue_depth() == 0 {
            self.tokio().block_on(async {
                tokio::time::advance(owed).await;
                tokio::task::yield_now().await;
            });
        } else {
            let _context = self.tokio().enter();
            let mut advance = pin!(tokio::time::advance(owed));
            let _ = advance.as_mut().poll(&mut Context::from_waker(Waker::noop()));
        }
    }

    // Polls for software completion.
    fn software_finished(&mut self) -> Result<bool> {
        match &self.handle {
            Some(handle) if handle.is_finished() => {
                // Consume handle to extract task result
                if let Some(h) = self.handle.take() {
                    match self.tokio().block_on(h) {
                        // If the host was crashed the JoinError is cancelled, which
                        // needs to be handled to not fail the simulation.
                        Err(je) if je.is_cancelled() => {}
                        res => res??,
                    }
                };
                Ok(true)
            }
            Some(_) => Ok(false),
            None => Ok(true),
        }
    }

    pub(crate) fn crash(&mut self) {
        if !self.is_host() {
            panic!("can only crash host's software");
        }

        if self.handle.take().is_some() {
            self.drop_tasks();
        };
    }

    pub(crate) fn bounce(&mut self) {
        if !self.is_host() {
            panic!("can only bounce host's software");
        }

        self.cancel_tasks();

        if let Kind::Host { software } = &self.kind {
            let handle = with(self.tokio(), &self.local, || {
                tokio::task::spawn_local(software())
            });
            self.handle.replace(handle);
        };
    }

    /// The runtime of a host that is not crashed.
    fn tokio(&self) -> &Runtime {
        self.tokio.as_ref().expect(CRASHED)
    }

    /// Cancel all tasks within the [`Rt`] by dropping the current tokio
    /// [`Runtime`].
    ///
    /// Dropping the runtime blocks the calling thread until all futures have
    /// completed, which is desired here to ensure host software completes and
    /// all resources are dropped.
    ///
    /// Both the [`Runtime`] and [`LocalSet`] are replaced with new instances.
    fn cancel_tasks(&mut self) {
        let (tokio, local) = init(&mut self.config);

        self.nap = None;
        self.owed = Duration::ZERO;
        _ = self.tokio.replace(tokio);
        drop(mem::replace(&mut self.local, local));
        self.local_wake = LocalWake::new();
    }

    /// [`Rt::cancel_tasks`] for a crash: the runtime is dropped and none is
    /// built until [`Rt::bounce`] builds one, since nothing runs on a crashed
    /// host. Its seed is drawn all the same, so that every later runtime of
    /// the host gets the seed it got when a crash built a runtime.
    fn drop_tasks(&mut self) {
        draw_seed(&mut self.config);

        self.nap = None;
        self.owed = Duration::ZERO;
        _ = self.tokio.take();
        drop(mem::replace(&mut self.local, new_local()));
        self.local_wake = LocalWake::new();
    }
}

/// What [`Rt::tokio`] says of a crashed host.
const CRASHED: &str = "a crashed host runs nothing until it is bounced";

/// The delay `tokio::time::sleep` waits for `duration`: at most about 30
/// years, which a clock can add without overflow.
fn safe_delay(duration: Duration) -> Duration {
    duration.min(Duration::from_secs(86400 * 365 * 30))
}

/// The span a host's software runs in, named after the host. It is opened
/// with the host, so it reports to the subscriber in effect then.
fn node_span(nodename: &str) -> tracing::Span {
    tracing::span!(Level::INFO, "node", name = nodename)
}

/// A host's runtime: current-thread, paused, and taking from its global
/// queue (tasks woken from outside it, as by a delivery or another host)
/// before its local one on every turn of its loop, rather than every 31st:
/// then the order its tasks run in does not depend on how many turns it
/// took before, and a tick left out (see [`Rt::tick_idle`]) need not take
/// them.
fn init(config: &mut Config) -> (Runtime, LocalSet) {
    let mut tokio_builder = tokio::runtime::Builder::new_current_thread();

    #[cfg(tokio_unstable)]
    tokio_builder.unhandled_panic(tokio::runtime::UnhandledPanic::ShutdownRuntime);

    if config.enable_io {
        tokio_builder.enable_io();
    }

    #[cfg(tokio_unstable)]
    if let Some(seed) = draw_seed(config) {
        tokio_builder.rng_seed(seed);
    }

    let tokio = tokio_builder
        .enable_time()
        .global_queue_interval(1)
        .start_paused(true)
        .build()
        .unwrap();

    tokio.block_on(async {
        // Sleep to "round" `Instant::now()` to the closest `ms`
        tokio::time::sleep(Duration::from_millis(1)).await;
    });

    (tokio, new_local())
}

/// The seed of the host's next runtime, drawn from its rng.
#[cfg(tokio_unstable)]
fn draw_seed(config: &mut Config) -> Option<tokio::runtime::RngSeed> {
    let rng = config.rng.as_mut()?;
    let bytes: [u8; 32] = rand::Rng::random(rng);
    Some(tokio::runtime::RngSeed::from_bytes(&bytes))
}

/// Without `tokio_unstable` a runtime takes no seed.
#[cfg(not(tokio_unstable))]
fn draw_seed(_config: &mut Config) {}

fn new_local() -> LocalSet {
    #[cfg(not(tokio_unstable))]
    let local = LocalSet::new();

    #[cfg(tokio_unstable)]
    let mut local = LocalSet::new();

    #[cfg(tokio_unstable)]
    local.unhandled_panic(tokio::runtime::UnhandledPanic::ShutdownRuntime);

    local
}

fn with<R>(tokio: &Runtime, local: &LocalSet, f: impl FnOnce() -> R) -> R {
    tokio.block_on(async { local.run_until(async { f() }).await })
}
