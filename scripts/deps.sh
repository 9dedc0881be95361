#!/usr/bin/env bash
# Install every system package Copier's build, tests and main job need.
# Idempotent: does nothing (and needs no network) when all are installed.
set -euo pipefail

# One package per line; keep sorted within each group.
PACKAGES=(
  # LLVM 22 toolchain (../TOOLCHAIN facts: matches the LLVM inside rustc 1.95)
  clang-22
  libmlir-22-dev
  libpolly-22-dev
  libzstd-dev
  lld-22
  llvm-22-dev
  mlir-22-tools
  # copiergen tests: csmith differential runs, third-party builds
  # (testsuite/thirdparty/run.sh: apt-get source needs dpkg-dev; protobuf-c's
  # and Redis's build and test dependencies; libpng's zlib)
  csmith
  dpkg-dev
  libcsmith-dev
  libjemalloc-dev
  libprotobuf-dev
  libprotoc-dev
  procps
  protobuf-compiler
  tcl
  zlib1g-dev
  # bench/sanitizer/run.sh: the AddressSanitizer baseline (clang's runtimes)
  # and protoc-gen-c for its protobuf-c workload
  libclang-rt-22-dev
  protobuf-c-compiler
  # CopierGen shim formatting check (scripts/tests.d/30-pass.sh)
  clang-format-22
  # instruction-count gate (scripts/tests.d/65-callgrind-gate.sh)
  valgrind
  # copier-abi's binding staleness test (kernel-adapter/abi/tests/uapi.rs):
  # bindgen loads libclang at run time; the UAPI header includes <linux/types.h>
  libclang1-22
  linux-libc-dev
  # kernel-adapter/vmtest/run.sh: copier.ko built against Debian's 6.1
  # kernel and tested in a busybox VM under QEMU
  busybox-static
  cpio
  linux-headers-amd64
  linux-image-amd64
  qemu-system-x86
  # build helpers
  binutils
  cmake
  make
  pkg-config
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -eq 0 ]; then
  exit 0
fi

SUDO=""
if [ "$(id -u)" != 0 ]; then
  command -v sudo >/dev/null || { echo "deps.sh: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
$SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
