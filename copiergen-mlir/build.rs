//! Builds the C++ helper (`cpp/effects.cpp`: memory effects, alias analysis,
//! remarks; MLIR's C API has none of them) with clang++-22 against the MLIR 22
//! headers found through `MLIR_SYS_220_PREFIX` (default `/usr/lib/llvm-22`).
//! It links into the same static MLIR archives mlir-sys links for melior.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
    println!("cargo:rerun-if-changed=cpp");
    let prefix = PathBuf::from(std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_owned()));
    let llvm_config = prefix.join("bin/llvm-config");
    let out = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", llvm_config.display()));
    assert!(out.status.success(), "{} --cxxflags failed", llvm_config.display());
    let cxxflags = String::from_utf8(out.stdout).expect("UTF-8 flags");

    let mut build = cc::Build::new();
    build.cpp(true).compiler(prefix.join("bin/clang++")).pic(true).warnings(true);
    for flag in cxxflags.split_whitespace() {
        build.flag(flag);
    }
    // Debian's MLIR archives are built without RTTI.
    build.flag("-fno-rtti");
    build.flag("-Wno-unused-parameter");
    let src = Path::new("cpp/effects.cpp");
    println!("cargo:rerun-if-changed={}", src.display());
    build.file(src);
    build.compile("copiergen_mlir_helper");
}
