#!/usr/bin/env bash
# vendor/turmoil is turmoil 0.7.2 as published on crates.io with vendor/turmoil.patch applied,
# and nothing else: this downloads the published crate, checks its checksum against the one
# the crates.io index gives, applies the patch, compares the result with vendor/turmoil file
# by file, and then runs turmoil's own test suite on the patched copy.
#
# vendor/turmoil/Cargo.lock is not the published one: it pins turmoil's dependencies to the
# versions this workspace's Cargo.lock builds it with (tokio, bytes, tracing, rand ...), plus
# turmoil's own test dependencies, so the suite tests the turmoil the project runs. After a
# `cargo update` of the workspace, refresh it: copy Cargo.lock over it and run turmoil's
# tests once without --locked.
set -euo pipefail
cd "$(dirname "$0")/.."
published_sha256=0061c28f1469e94771bb8aa626ce6b29265c2fb5034115046a170b0cba2e33d2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# python3 is on every CI machine already (the interop peers need it); curl may not be.
python3 -c 'import sys, urllib.request; urllib.request.urlretrieve(sys.argv[1], sys.argv[2])' \
    https://static.crates.io/crates/turmoil/turmoil-0.7.2.crate "$work/turmoil.crate"
echo "$published_sha256  $work/turmoil.crate" | sha256sum --check --quiet
tar xzf "$work/turmoil.crate" -C "$work"
git -C "$work/turmoil-0.7.2" apply "$PWD/vendor/turmoil.patch"
# The crate's .github folder (upstream's CI) is not vendored; target/ is a local build.
if ! diff -r --exclude=.github --exclude=target --exclude=Cargo.lock "$work/turmoil-0.7.2" vendor/turmoil; then
    echo "vendor/turmoil differs from turmoil 0.7.2 + vendor/turmoil.patch (diff above)" >&2
    exit 1
fi
echo "vendor/turmoil = turmoil 0.7.2 (crates.io, sha256 $published_sha256) + vendor/turmoil.patch"
for package in tokio bytes tracing rand; do
    version() { grep -A1 "^name = \"$package\"$" "$1" | sed -n 's/^version = "\(.*\)"/\1/p' | head -1; }
    if [ "$(version Cargo.lock)" != "$(version vendor/turmoil/Cargo.lock)" ]; then
        echo "vendor/turmoil/Cargo.lock has $package $(version vendor/turmoil/Cargo.lock), the workspace $(version Cargo.lock): refresh it (see the top of this script)" >&2
        exit 1
    fi
done
# From inside the crate, so that its .cargo/config.toml (--cfg tokio_unstable) applies as in
# upstream's CI. Both builds below start from nothing (their flags differ from the
# workspace's); without debug info they take 90 s instead of 115 s on 2 cores.
cd vendor/turmoil
export CARGO_PROFILE_DEV_DEBUG=false
CARGO_TARGET_DIR="$OLDPWD/target/vendor-turmoil" cargo test --locked
# Its unit tests once more as this project builds turmoil, without tokio_unstable (RUSTFLAGS,
# even empty, takes the place of the crate's config): there a quiet step leaves a host's
# runtime out entirely (Rt::tick_idle), where under tokio_unstable it still enters it once.
RUSTFLAGS="" CARGO_TARGET_DIR="$OLDPWD/target/vendor-turmoil-plain" cargo test --locked --lib
