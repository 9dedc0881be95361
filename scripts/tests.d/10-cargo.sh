#!/usr/bin/env bash
# Rust unit, integration and property tests of the whole workspace.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
# copier-testsuite runs in stage 30-pass (with its C toolchain checks) and
# copiergen-mlir in 35-mlir (it links MLIR statically), not twice.
cargo test --release --locked --workspace --exclude copier-testsuite --exclude copiergen-mlir
