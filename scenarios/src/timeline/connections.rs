//! Which client opened each connection a server accepted. The simulated network records
//! connections on the serving side only, so the client end is found by pairing the i-th
//! successful `connect` to a host with that host's i-th `accept`.

use meshsim_trace::{ConnectOutcome, TraceEvent, TraceLine};
use std::collections::{BTreeMap, VecDeque};

/// The host part of a `host:port` connect target.
pub(super) fn target_host(to: &str) -> &str {
    to.rsplit_once(':').map_or(to, |(host, _)| host)
}

/// For every `accept` (by trace index), the client host and when it connected.
pub(super) fn pair_connections(events: &[TraceLine]) -> BTreeMap<usize, (String, f64)> {
    let mut connects: BTreeMap<String, VecDeque<(String, f64)>> = BTreeMap::new();
    let mut accepts: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (index, line) in events.iter().enumerate() {
        match &line.event {
            TraceEvent::Connect {
                to,
                outcome: ConnectOutcome::Ok,
            } => connects
                .entry(target_host(to).to_string())
                .or_default()
                .push_back((line.host.clone(), line.at_ms())),
            TraceEvent::Accept { .. } => accepts.entry(line.host.clone()).or_default().push(index),
            _ => {}
        }
    }
    let mut paired = BTreeMap::new();
    for (server, indices) in accepts {
        let Some(queue) = connects.get_mut(&server) else {
            continue;
        };
        for index in indices {
            let Some(client) = queue.pop_front() else {
                break;
            };
            paired.insert(index, client);
        }
    }
    paired
}
