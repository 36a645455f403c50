#!/usr/bin/env bash
# Installs the real A2A SDKs the interop tests run against, from the package registries,
# under target/interop/ (reused when already present, so a second run does nothing):
#   target/interop/venv   python venv with interop/python/requirements.txt
#                         (a2a-sdk[http-server]==1.3.0 and uvicorn)
#   target/interop/node   npm prefix with interop/js/package.json
#                         (@a2a-js/sdk@1.3.0 and express)
# Usage: interop/install.sh [python] [js]   (both when neither is named)
# Needs python3 with venv for python, node and npm for js. MESHSIM_INTEROP_DIR overrides
# target/interop. Prints one line per SDK.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
root="${MESHSIM_INTEROP_DIR:-$repo/target/interop}"
sdks=("$@")
[[ ${#sdks[@]} -gt 0 ]] || sdks=(python js)
mkdir -p "$root"

# An install is reused while the manifest it was made from is unchanged (a copy of the
# manifest is its stamp, written last, so an interrupted install is redone).
install_python() {
  local req="$repo/interop/python/requirements.txt" venv="$root/venv"
  if [[ -f "$venv/.meshsim-installed" ]] && cmp -s "$req" "$venv/.meshsim-installed"; then
    echo "interop: python SDK already installed in $venv"
    return
  fi
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$venv/.meshsim-installed"
  echo "interop: python SDK installed in $venv"
}

install_js() {
  local pkg="$repo/interop/js/package.json" dir="$root/node"
  if [[ -f "$dir/.meshsim-installed" ]] && cmp -s "$pkg" "$dir/.meshsim-installed"; then
    echo "interop: js SDK already installed in $dir"
    return
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  cp "$pkg" "$dir/package.json"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error >/dev/null
  cp "$pkg" "$dir/.meshsim-installed"
  echo "interop: js SDK installed in $dir"
}

for sdk in "${sdks[@]}"; do
  case "$sdk" in
    python) install_python ;;
    js) install_js ;;
    *) echo "install.sh: unknown SDK '$sdk' (python or js)" >&2; exit 2 ;;
  esac
done
