#!/usr/bin/env bash
# copier.ko in a VM: kernel-adapter/vmtest/run.sh builds the module against
# Debian's 6.1 headers, boots that kernel under QEMU (TCG here) with a
# busybox initramfs and runs the module's tests there, and libcopier's C
# tests with backend=kernel against it (runtime.sh). Functional results
# only: TCG timings are emulation. Budget: < 5 minutes (about 1 minute on a
# quiet 2-core machine for the module's tests, whose VM part is ~35 s;
# libcopier's tests add ~50 s, measured in the VM on a loaded machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/env.sh
[ -f target/release/libcopier.so ] || cargo build --release --locked -p copier
bash kernel-adapter/vmtest/run.sh
