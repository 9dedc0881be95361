//! CopierGen: the LLVM 22 pass plugin `libcopiergen.so`.
//!
//! It rewrites large and variable-length `memcpy`/`memmove` (and their
//! `_chk` and intrinsic forms) into libcopier's asynchronous `amemcpy` /
//! `amemmove`, and places `csync` by memory-access analysis where the
//! program first needs the bytes (see [`copiergen`]).
//!
//! # Loading it
//! One `.so` serves every host of LLVM 22 (it links no LLVM and binds to the
//! LLVM of the process that loads it: inkwell's `llvm22-1-no-llvm-linking`):
//! - `clang-22 -fpass-plugin=libcopiergen.so` (runs at the end of the
//!   default pipeline, -O0 ... -O3, and in ThinLTO backends);
//! - `opt-22 -load-pass-plugin=libcopiergen.so -passes=copiergen`
//!   (parameters: `-passes='copiergen<threshold=4096;no-window>'`);
//! - `ld.lld-22 --load-pass-plugin=libcopiergen.so` with full LTO
//!   (`clang-22 -flto -fuse-ld=lld -Wl,--load-pass-plugin=...`);
//! - rustc 1.95: `RUSTFLAGS="-C linker-plugin-lto -C linker=clang-22
//!   -C link-arg=-fuse-ld=lld -C link-arg=-Wl,--load-pass-plugin=<plugin>"`
//!   with an explicit `--target`.
//!
//! Options are LLVM command-line options ([`options`]), each owned by its
//! pass (`copiergen/options.rs`, `sanitizer/options.rs`): `opt-22
//! -copiergen-threshold=N`, `clang-22 -fpass-plugin=P -mllvm
//! -copiergen-threshold=N` (clang 22 loads pass plugins before it parses
//! `-mllvm`), `ld.lld-22 -mllvm=-copiergen-threshold=N`.
//!
//! # Adding a pass (extension point)
//! The plugin is a registry of Rust module passes ([`registry::PASSES`]).
//! To add one, e.g. the CopierSanitizer instrumentation:
//! 1. write a module `src/sanitizer/` with a unit struct implementing
//!    [`pass::ModulePass`] (`name()` = `"copier-sanitizer"`,
//!    `schedule()`, `run()`), and declare it here (`pub mod sanitizer;`);
//! 2. add one line to [`registry::PASSES`]: `&crate::sanitizer::CopierSanitizer`,
//!    after CopierGen so it sees the `amemcpy`/`csync` calls;
//! 3. declare its options (prefix `copier-sanitizer-`) in its own
//!    `options.rs` and return them from [`pass::ModulePass::options`].
//!
//! `run` gets a [`context::ModuleContext`]: the module (inkwell
//! [`inkwell::module::Module`] and raw LLVM-C handle) and, per function,
//! [`context::FunctionAnalyses`] (alias analysis, call facts, loop depth,
//! mem2reg, remarks). [`ir`] has LLVM-C helpers to walk and build IR. If an
//! analysis the C API lacks is needed, add an `extern "C"` function to
//! `passes/cpp/shim.cpp` (LLVM types in, FFI-stable enums and opaque
//! pointers out; types in `shim.h` mirrored in `ffi.rs`) and a safe wrapper
//! in `context.rs`.

#![allow(rustdoc::private_intra_doc_links)]

// The plugin links no LLVM (it binds to its host's); the unit-test harness
// has no host, so it links LLVM 22's shared library itself.
#[cfg(test)]
#[link(name = "LLVM-22")]
unsafe extern "C" {}

// The plugin is a cdylib: nothing outside this crate calls its Rust items,
// so the modules that traffic in raw LLVM-C handles stay crate-private.
mod context;
mod copiergen;
mod ffi;
mod ir;
pub mod options;
pub mod pass;
mod plugin;
pub mod registry;
pub mod sanitizer;
