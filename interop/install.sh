#!/usr/bin/env bash
# Installs the real A2A SDKs the interop tests run against, from the package registries,
# under target/interop/ (reused when already present, so a second run does nothing), each
# exactly as locked, every file checked against its hash:
#   target/interop/venv   python venv with interop/python/requirements.lock
#                         (pip --require-hashes; the lock pins a2a-sdk[http-server]==1.3.0,
#                         uvicorn and every transitive dependency), installed by the pip
#                         interop/python/pip.lock pins (why: that file)
#   target/interop/node   npm prefix with interop/js/package.json and package-lock.json
#                         (npm ci: @a2a-js/sdk@1.3.0, express and their dependencies)
# Usage: interop/install.sh [python] [js]   (both when neither is named)
# Needs python3 with venv for python, node and npm for js: a missing one is reported and
# skipped, but under CI=true it fails the run (status 1). MESHSIM_INTEROP_DIR overrides
# target/interop. Prints one line per SDK.
#
# Refreshing the locks after changing a manifest (needs pip-tools; Python 3.11 resolved it):
#   cd interop/python && pip-compile --strip-extras --generate-hashes --allow-unsafe \
#       --no-emit-index-url --no-emit-find-links --output-file requirements.lock requirements.txt
#   cd interop/js && npm install --package-lock-only
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${MESHSIM_INTEROP_DIR:-$repo/target/interop}"
sdks=("$@")
[[ ${#sdks[@]} -gt 0 ]] || sdks=(python js)
mkdir -p "$root"

# Whether the programs an SDK needs are here. Outside CI a missing one skips that SDK (its
# tests say so); under CI=true the run must not pass without them.
have_tools() {
  local sdk=$1 tool
  shift
  for tool in "$@"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      if [[ "${CI:-}" == "true" ]]; then
        echo "interop: the $sdk SDK needs \`$tool\`, which is not installed; CI=true requires every interop peer" >&2
        exit 1
      fi
      echo "interop: skipping the $sdk SDK: \`$tool\` is not installed"
      return 1
    fi
  done
}

# An install is reused while the locks it was made from are unchanged (a copy of the locks
# is its stamp, written last, so an interrupted install is redone).
install_python() {
  local pip_lock="$repo/interop/python/pip.lock"
  local lock="$repo/interop/python/requirements.lock" venv="$root/venv"
  have_tools python python3 || return 0
  if [[ -f "$venv/.meshsim-installed" ]] &&
    cat "$pip_lock" "$lock" | cmp -s - "$venv/.meshsim-installed"; then
    echo "interop: python SDK already installed in $venv"
    return
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  local pip=("$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes)
  "${pip[@]}" --only-binary :all: -r "$pip_lock"
  "${pip[@]}" -r "$lock"
  cat "$pip_lock" "$lock" > "$venv/.meshsim-installed"
  echo "interop: python SDK installed in $venv"
}

install_js() {
  local pkg="$repo/interop/js/package.json" lock="$repo/interop/js/package-lock.json"
  local dir="$root/node"
  have_tools js node npm || return 0
  if [[ -f "$dir/.meshsim-installed" ]] && cmp -s "$lock" "$dir/.meshsim-installed"; then
    echo "interop: js SDK already installed in $dir"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$pkg" "$lock" "$dir/"
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
  cp "$lock" "$dir/.meshsim-installed"
  echo "interop: js SDK installed in $dir"
}

for sdk in "${sdks[@]}"; do
  case "$sdk" in
    python) install_python ;;
    js) install_js ;;
    *) echo "install.sh: unknown SDK '$sdk' (python or js)" >&2; exit 2 ;;
  esac
done
