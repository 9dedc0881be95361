#!/usr/bin/env bash
# Rust unit, integration and property tests of the whole workspace.
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
cargo test --release --locked --workspace
