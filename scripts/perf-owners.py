#!/usr/bin/env python3
"""Where a simulated run's CPU goes, by owner: reads `perf script` output of a
`meshsim sweep` recorded with `--call-graph dwarf` and prints, for the samples taken
inside a run (`meshsim_scenarios::run::run`), the share of each part of the simulation.

A sample belongs to the innermost frame that names one of the project's crates or a
dependency with a part of its own (tokio, turmoil, hyper, axum); frames of generic code
(the allocator, memmove, `core`, `alloc`, `std`, serde, http, tracing, futures and the
like) are charged to whoever called them, so an allocation counts for the code that made it.

    perf record -F 4999 --call-graph dwarf,32768 -o perf.data target/release/meshsim sweep \\
        --scenario origin-incident --runtime python-correct --consumer reconciling \\
        --dialect v1.0 --seeds 4000 --faults swarm --jobs 1 > /dev/null
    perf script -i perf.data --no-inline | python3 scripts/perf-owners.py
"""

import collections
import re
import sys

# Inside a run: the frame every sample of a simulated run has below it.
RUN_FRAME = "meshsim_scenarios::run::run"

# Frames charged to their caller.
GENERIC = (
    "mi_", "_mi", "__rust_", "__rdl", "__memmove", "__memcpy", "__memcmp", "__memset",
    "core::", "alloc::", "std::", "drop_in_place", "hashbrown", "indexmap", "bytes::",
    "[unknown]", "syscall", "clock_gettime", "__vdso", "serde", "&", "F as", "S as", "T as",
    "futures_util", "futures", "tracing", "pin_project", "http::", "http_body", "tower",
    "sha2", "digest",
)

# The parts a run is made of, by the crate (and module) of the owning frame.
PARTS = (
    ("tokio::", "tokio: the hosts' runtimes (scheduler, timers, task harness, their building and dropping)"),
    ("turmoil::", "turmoil: steps, simulated TCP, links (with tokio's block_on inlined in each host's tick)"),
    ("hyper::", "hyper and axum: HTTP/1 framing and routing"),
    ("httparse::", "hyper and axum: HTTP/1 framing and routing"),
    ("axum", "hyper and axum: HTTP/1 framing and routing"),
    ("matchit::", "hyper and axum: HTTP/1 framing and routing"),
    ("meshsim_sim::trace::", "the trace recorder: canonical lines and their SHA-256"),
    ("meshsim_sim::transport::", "the sim's transport: serve, connector, timeouts"),
    ("meshsim_sim::", "the runner: step loop, faults, a run's world built and torn down"),
    ("meshsim_protocol::", "the protocol codecs, JSON and SSE (the floor's own work)"),
    ("meshsim_runtimes::", "the runtime personalities: task store, handlers, answers"),
    ("meshsim_consumer::", "the consumer: client, reconciliation, ledger"),
    ("meshsim_scenarios::", "the scenario's set-up and the oracle"),
    ("meshsim_time::", "the timer registry and the trace vocabulary"),
    ("meshsim_trace::", "the timer registry and the trace vocabulary"),
)


def samples(lines):
    """Each sample's frames, innermost first, as symbol names."""
    frames = None
    for line in lines:
        if not line.strip():
            if frames:
                yield frames
            frames = None
            continue
        if not line[0].isspace():
            frames = []
            continue
        if frames is None:
            continue
        fields = line.strip().split(" ", 1)
        if len(fields) == 2:
            frames.append(re.sub(r"(\+0x[0-9a-f]+)? \(.*\)$", "", fields[1]))
    if frames:
        yield frames


def owner(frames):
    for frame in frames:
        name = frame.lstrip("<")
        if name.startswith(GENERIC):
            continue
        for prefix, part in PARTS:
            if name.startswith(prefix):
                return part
        if re.match(r"[A-Za-z_0-9]+::", name):
            return "other: " + name.split("::", 1)[0]
    return "unattributed"


def main():
    shares = collections.Counter()
    for frames in samples(sys.stdin):
        if any(RUN_FRAME in frame for frame in frames):
            shares[owner(frames)] += 1
    total = sum(shares.values())
    if total == 0:
        sys.exit(f"no sample inside {RUN_FRAME}: record a meshsim sweep with --call-graph dwarf")
    print(f"{total} samples inside a run")
    for part, count in shares.most_common():
        print(f"{100 * count / total:5.1f}%  {part}")


if __name__ == "__main__":
    main()
