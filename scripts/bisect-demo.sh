#!/usr/bin/env bash
# Shows `git bisect run meshsim replay ...` finding the commit that broke a run, on a small
# throwaway repository: four commits of a runtime personality file, the third of which makes
# the runtime reap a task when its stream closes (so the naive consumer loses it, and
# `meshsim replay` exits 1). Prints git bisect's verdict and checks it names that commit.
# Usage: scripts/bisect-demo.sh [MESHSIM]   (default: target/release/meshsim, built if absent)
# Exit status: 0 when bisect found the breaking commit, 1 when it did not, 2 bad usage.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
meshsim="${1:-$repo/target/release/meshsim}"
if [[ $# -eq 0 && ! -x "$meshsim" ]]; then
  cargo build --release --locked --manifest-path "$repo/Cargo.toml" >&2
fi
[[ -x "$meshsim" ]] || { echo "bisect-demo: $meshsim is not an executable meshsim" >&2; exit 2; }
command -v git >/dev/null || { echo "bisect-demo: needs git" >&2; exit 2; }
meshsim="$(cd "$(dirname "$meshsim")" && pwd)/$(basename "$meshsim")"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q
git config user.name "bisect demo"
git config user.email "bisect-demo@example.invalid"
commit() { # commit MESSAGE JSON-LINES...
  local message=$1
  shift
  printf '%s\n' '{' '  "name": "our-runtime",' "$@" '  "card": {"name": "our-runtime", "version": "1.0.0"}' '}' \
    > personality.json
  git add personality.json
  git commit -q -m "$message"
  git rev-parse HEAD
}
first=$(commit "our runtime: resubscribe reattaches, follow-ups resume" \
  '  "description": "our runtime",')
commit "our runtime: describe it better" \
  '  "description": "our runtime, which keeps tasks across stream closes",' >/dev/null
broken=$(commit "our runtime: key the task store on the connection (faster lookups)" \
  '  "description": "our runtime, which keeps tasks across stream closes",' \
  '  "unknown_task": "new-task",' '  "reaping": "on-stream-close",')
commit "our runtime: a newer card version" \
  '  "description": "our runtime, which keeps tasks across stream closes (v2)",' >/dev/null
# The last commit still reaps (it only rewrote the description line): put the knobs back.
sed -i 's/"description": "our runtime, which keeps tasks across stream closes (v2)",/&\n  "unknown_task": "new-task",\n  "reaping": "on-stream-close",/' personality.json
git commit -q -am "our runtime: keep the connection-keyed store"

git bisect start HEAD "$first" >/dev/null
echo "\$ git bisect run meshsim replay --seed 7 --runtime personality.json --consumer naive --faults none"
output=$(git bisect run "$meshsim" replay --seed 7 --runtime personality.json --consumer naive --faults none 2>&1 | grep -v '^ *[0-9]*\.[0-9]* ms ' || true)
echo "$output" | grep -E "is the first bad commit|^commit|^    our runtime" | head -3 || true
if echo "$output" | grep -q "^$broken is the first bad commit"; then
  echo "bisect-demo: found the breaking commit ($broken)"
else
  echo "bisect-demo: expected $broken to be the first bad commit; git bisect said:" >&2
  echo "$output" >&2
  exit 1
fi
