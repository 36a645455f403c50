//! Which host an event happened on, and when: turmoil's current host (the one whose software is
//! running, or being crashed or bounced), its name looked up once per run and kept with what
//! follows the fields of each of its lines.
//!
//! Asking turmoil, rather than following its `node` span, lets the recorder turn that span off:
//! turmoil enters it for every host on every step, which cost about 1% of a run's instructions.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use super::canonical::write_str;

/// A host's name, and what follows the fields of each of the host's lines up to the level,
/// `},"host":"name"`, written once for all of them.
pub(super) struct Host {
    pub(super) name: Box<str>,
    pub(super) after_fields: String,
}

impl Host {
    fn named(name: &str) -> Host {
        let mut after_fields = String::from("},\"host\":");
        write_str(name, &mut after_fields);
        Host {
            name: name.into(),
            after_fields,
        }
    }
}

/// The run's hosts by address, each name kept once across runs.
#[derive(Default)]
pub(super) struct Hosts {
    /// The hosts of the simulation now running: turmoil gives each simulation's hosts their
    /// addresses in the order they are made, so another simulation may give an address to
    /// another host.
    by_addr: Vec<(IpAddr, Arc<Host>)>,
    /// Every host name seen on this thread.
    named: Vec<Arc<Host>>,
}

/// Where and when an event happened: on a host, at the simulation's elapsed time turmoil gives.
pub(super) struct OnHost<'a> {
    pub(super) host: &'a Host,
    pub(super) sim_elapsed: Duration,
}

impl Hosts {
    /// Forgets which host has which address, for another simulation.
    pub(super) fn forget_addresses(&mut self) {
        self.by_addr.clear();
    }

    /// The host whose software is running on this thread, if any, with its elapsed time.
    pub(super) fn current(&mut self) -> Option<OnHost<'_>> {
        let (addr, sim_elapsed) = turmoil::current_host_sim_elapsed()?;
        let host = match self.by_addr.iter().position(|(known, _)| *known == addr) {
            Some(at) => &self.by_addr[at].1,
            None => {
                let name = turmoil::reverse_lookup(addr).unwrap_or_else(|| addr.to_string());
                let host = self.intern(&name);
                self.by_addr.push((addr, host));
                &self.by_addr[self.by_addr.len() - 1].1
            }
        };
        Some(OnHost { host, sim_elapsed })
    }

    fn intern(&mut self, name: &str) -> Arc<Host> {
        if let Some(known) = self.named.iter().find(|host| *host.name == *name) {
            return known.clone();
        }
        let host = Arc::new(Host::named(name));
        self.named.push(host.clone());
        host
    }
}
