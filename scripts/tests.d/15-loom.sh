#!/usr/bin/env bash
# loom model checks of the lock-free parts of the service: the per-thread
# SPSC copy queue (ring.rs), the descriptor claim/complete/retire protocol
# (desc.rs), the waiters' park/notify protocol (progress.rs), the submit/fork
# handshake (fork_guard.rs), the retirement handoff to the service thread
# (handoff.rs), the change watch (watch.rs), the user side of
# /dev/copier's copy ring (backend/proto.rs, ~20 s) and the inline fast
# path's hold protocol (gate.rs; preemption
# bound 3, ~15 s; COPIER_LOOM_GATE_BOUND=4 checks deeper in ~4 min). Separate
# target dir: --cfg loom rebuilds the crate. Budget: ~3 min.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
  cargo test --release --locked -p copier-adapter --lib -- loom_tests
