#!/usr/bin/env bash
# loom model checks of the lock-free parts of the service: the per-thread
# SPSC copy queue (ring.rs) and the descriptor claim/complete/retire protocol
# (desc.rs). Separate target dir: --cfg loom rebuilds the crate. Budget: ~3 min.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
  cargo test --release --locked -p copier-adapter --lib -- loom_tests
