#!/usr/bin/env bash
# Copier's main job for a new user: installs what is needed, builds, and
# runs a real program on the in-process copy service
# (scripts/main-job-compiler.sh): examples/load_scan.c, a whole-file loader
# (malloc, memcpy from the file's mapping, scan) on dpkg's package database
# repeated to 64 MiB, built with the CopierGen pass and with plain clang-22;
# both must print the same result, then interleaved A/B runs give the
# ratio (median and spread), with the machine load and COPIER_STATS.
# Idempotent: run it again and it rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cargo build --release --locked
bash scripts/main-job-compiler.sh
