//! Builds the C++ shim (`cpp/*.cpp`) of libcopiergen.so with clang++-22 and
//! the flags of `llvm-config --cxxflags` from LLVM 22, found through
//! `LLVM_SYS_221_PREFIX` (default `/usr/lib/llvm-22`). The shim links no LLVM
//! library: like the Rust side (inkwell's `llvm22-1-no-llvm-linking`), it
//! binds to the LLVM of the process that loads the plugin.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-changed=cpp");

    let prefix = PathBuf::from(
        std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".to_owned()),
    );
    let llvm_config = prefix.join("bin/llvm-config");
    let cxxflags = run(&llvm_config, &["--cxxflags"]);
    let version = run(&llvm_config, &["--version"]);
    if !version.starts_with("22.") {
        panic!(
            "{} reports LLVM {version}; CopierGen needs LLVM 22 (set LLVM_SYS_221_PREFIX)",
            llvm_config.display()
        );
    }

    // Only the unit-test harness links LLVM (`#[link(name = "LLVM-22")]`
    // under cfg(test) in lib.rs); the plugin itself binds to its host's.
    println!("cargo:rustc-link-search=native={}", prefix.join("lib").display());

    let clangxx = prefix.join("bin/clang++");
    let mut build = cc::Build::new();
    build.cpp(true).compiler(&clangxx).pic(true).warnings(true);
    for flag in cxxflags.split_whitespace() {
        // -std and -fno-exceptions are kept; the shim never throws.
        build.flag(flag);
    }
    // The host LLVM may be built without RTTI (rustc's is): referencing
    // typeinfo of LLVM classes would then fail to load.
    build.flag("-fno-rtti");
    build.flag("-Wno-unused-parameter");

    let cpp_dir = Path::new("cpp");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(cpp_dir)
        .expect("passes/cpp exists")
        .map(|e| e.expect("readable passes/cpp entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "cpp"))
        .collect();
    sources.sort();
    for src in &sources {
        println!("cargo:rerun-if-changed={}", src.display());
        build.file(src);
    }
    build.include(cpp_dir);
    build.compile("copiergen_shim");
}

fn run(tool: &Path, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", tool.display()));
    assert!(
        out.status.success(),
        "{} {args:?} failed: {}",
        tool.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("llvm-config prints UTF-8").trim().to_owned()
}
