# Sourced by Copier's scripts: points every build at LLVM 22 (Debian's plain
# llvm-config is LLVM 14).
export LLVM_PREFIX=/usr/lib/llvm-22
export LLVM_SYS_221_PREFIX=$LLVM_PREFIX
export MLIR_SYS_220_PREFIX=$LLVM_PREFIX
export TABLEGEN_220_PREFIX=$LLVM_PREFIX
export LIBCLANG_PATH=$LLVM_PREFIX/lib
export PATH="$LLVM_PREFIX/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "Copier needs Rust 1.95 (cargo) on PATH; install it with rustup first." >&2; exit 1; }
