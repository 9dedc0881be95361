#!/usr/bin/env bash
# Copier's main job for a new user: installs what is needed, builds, and runs
# a real program on the in-process copy service.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
. scripts/env.sh
cargo build --release --locked
bash scripts/main-job-compiler.sh
