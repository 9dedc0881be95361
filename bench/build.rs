//! Export the binaries' symbols (`-rdynamic`), as a C program linked with
//! `libcopier.so` has them: libcopier's `sigaction` interposer is then the
//! process's global binding, and `fault::ensure_first` costs one load, not
//! two system calls (see `runtime/src/signals.rs`).
fn main() {
    println!("cargo:rustc-link-arg-bins=-rdynamic");
}
