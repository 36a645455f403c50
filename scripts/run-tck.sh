#!/usr/bin/env bash
# Runs the official A2A TCK (a2aproject/a2a-tck, branch 1.0-dev) against `meshsim serve
# --dialect v1.0` for each personality, at each level and over each binding asked for (MUST
# over JSON-RPC unless TCK_LEVELS / TCK_TRANSPORTS say otherwise), and prints a summary table.
#
#   scripts/run-tck.sh TCK_DIR [PERSONALITY ...]
#   TCK_LEVELS="must should" TCK_TRANSPORTS="jsonrpc http_json" scripts/run-tck.sh TCK_DIR
#
# TCK_DIR is a checkout of the TCK (the TCK is not vendored). If it does not exist and
# TCK_SOURCE names a clone source (a URL such as https://github.com/a2aproject/a2a-tck or a
# local mirror), it is cloned there and branch 1.0-dev checked out; nothing else is fetched.
# The TCK's Python requirements go into a venv (TCK_VENV, default TCK_DIR/.venv-meshsim),
# installed from PyPI on first use. With no personality named, every built-in runs; a
# personality may also be the path of a personality file.
# TCK_LEVELS is a list of the TCK's `--level`s (must, should, may), TCK_TRANSPORTS of its
# `--transport`s (jsonrpc, http_json); each personality runs once per pair, on a fresh server.
# Reports land in OUT_DIR (default target/tck/<personality>/<level>-<transport>/): the TCK's
# junit XML and log.
# MESHSIM names a meshsim binary to serve with instead of building this checkout's.
set -euo pipefail

usage() {
    echo "usage: $0 TCK_DIR [PERSONALITY ...]   (env: TCK_LEVELS, TCK_TRANSPORTS, TCK_SOURCE, TCK_VENV, OUT_DIR, MESHSIM, PYTHON)" >&2
    exit 2
}
[ $# -ge 1 ] || usage
case "$1" in -h|--help) usage ;; esac

repo="$(cd "$(dirname "$0")/.." && pwd)"
tck="$1"
shift
if [ ! -f "$tck/run_tck.py" ]; then
    if [ -z "${TCK_SOURCE:-}" ]; then
        echo "error: $tck is not a TCK checkout (no run_tck.py); clone one there, e.g." >&2
        echo "  git clone -b 1.0-dev https://github.com/a2aproject/a2a-tck $tck" >&2
        echo "or set TCK_SOURCE to a clone source and rerun" >&2
        exit 2
    fi
    git clone --quiet "$TCK_SOURCE" "$tck"
    git -C "$tck" checkout --quiet 1.0-dev
fi
tck="$(cd "$tck" && pwd)"
read -r -a levels <<<"${TCK_LEVELS:-must}"
read -r -a transports <<<"${TCK_TRANSPORTS:-jsonrpc}"
for level in "${levels[@]}"; do
    case "$level" in must|should|may) ;; *) echo "error: TCK_LEVELS: unknown level $level (must, should, may)" >&2; exit 2 ;; esac
done
for transport in "${transports[@]}"; do
    case "$transport" in jsonrpc|http_json) ;; *) echo "error: TCK_TRANSPORTS: unknown transport $transport (jsonrpc, http_json)" >&2; exit 2 ;; esac
done

venv="${TCK_VENV:-$tck/.venv-meshsim}"
if [ ! -x "$venv/bin/python" ]; then
    "${PYTHON:-python3}" -m venv "$venv"
    "$venv/bin/pip" install --quiet -e "$tck"
fi

out="${OUT_DIR:-$repo/target/tck}"
mkdir -p "$out"
if [ -n "${MESHSIM:-}" ]; then
    meshsim="$MESHSIM"
else
    (cd "$repo" && cargo build --release --quiet)
    meshsim="$repo/target/release/meshsim"
fi

if [ $# -eq 0 ]; then
    mapfile -t personalities < <("$meshsim" list | awk '/^runtimes/ {on=1; next} /^[a-z]/ {on=0} on {print $1}')
else
    personalities=("$@")
fi

server=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}
trap stop_server EXIT

runs=()
for name in "${personalities[@]}"; do
    label="$(basename "$name" .json)"
    for level in "${levels[@]}"; do
        for transport in "${transports[@]}"; do
            run="$label/$level-$transport"
            runs+=("$run")
            dir="$out/$run"
            rm -rf "$dir"
            mkdir -p "$dir"
            "$meshsim" serve --runtime "$name" --dialect v1.0 --addr 127.0.0.1:0 >"$dir/serve.log" 2>&1 &
            server=$!
            url=""
            for _ in $(seq 50); do
                url="$(grep -o 'http://[^ ]*/' "$dir/serve.log" | head -n 1 || true)"
                [ -n "$url" ] && break
                sleep 0.2
            done
            if [ -z "$url" ]; then
                echo "error: meshsim serve --runtime $name printed no URL:" >&2
                cat "$dir/serve.log" >&2
                exit 1
            fi
            echo "== $run at $url" >&2
            rm -f "$tck/reports/junitreport.xml"
            (cd "$tck" && "$venv/bin/python" run_tck.py --sut-host "${url%/}" --level "$level" \
                --transport "$transport" >"$dir/tck.log" 2>&1) || true
            cp "$tck/reports/junitreport.xml" "$dir/junit.xml"
            stop_server
        done
    done
done

"$venv/bin/python" - "$out" "${runs[@]}" <<'PY'
"""Summarise each run's junit report (personality/level-transport): counts, then every
failure with its requirement."""
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

out, names = Path(sys.argv[1]), sys.argv[2:]
requirement = re.compile(r"\b((?:[A-Z]+_)?[A-Z]+(?:-[A-Z]+)*-\d+[a-z]?)\b")
print(f"{'personality/level-transport':<36} {'passed':>6} {'failed':>6} {'skipped':>7}")
details = []
for name in names:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    for case in ET.parse(out / name / "junit.xml").iter("testcase"):
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                outcome = "failed"
                text = (child.get("message") or "") + " " + case.get("name", "")
                found = requirement.search(text)
                test = case.get("classname", "").split(".")[-1] + "::" + case.get("name", "")
                reason = (child.get("message") or "").splitlines()[0][:160]
                details.append(f"{name}: {found.group(1) if found else '?'} {test}: {reason}")
            elif child.tag == "skipped":
                outcome = "skipped"
        counts[outcome] += 1
    print(f"{name:<36} {counts['passed']:>6} {counts['failed']:>6} {counts['skipped']:>7}")
shown = {}
for line in details:
    name = line.split(":", 1)[0]
    shown[name] = shown.get(name, 0) + 1
    if shown[name] <= 12:
        print(line)
for name, count in shown.items():
    if count > 12:
        print(f"{name}: ... and {count - 12} more failures (see {out / name / 'tck.log'})")
PY
