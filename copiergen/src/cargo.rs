//! `copiergen cargo …`: cargo with flags that build the crate through the
//! pass plugin and link libcopier.
//!
//! The recipe (TOOLCHAIN.md): rustc emits bitcode (`-C linker-plugin-lto`),
//! clang-22 drives the link with lld, and lld runs the plugin during LTO
//! (`-Wl,--load-pass-plugin=`). An explicit `--target` keeps these flags off
//! build scripts and proc-macros, which cargo then builds for the host
//! without them; copiergen adds `--target <host>` to build-like commands
//! that name none. The precompiled standard library is not rewritten (it is
//! not bitcode). libcopier is linked as `libcopier.so` with an rpath: a Rust
//! program already carries a standard library, and the staticlib's own copy
//! has archive members whose symbols can collide with the program's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::process::Command;

use crate::error::Error;
use crate::options::{plugin_env, CopierOpts};
use crate::resources::Layout;

/// The target copiergen adds when cargo is not told one.
pub const HOST_TARGET: &str = "x86_64-unknown-linux-gnu";

/// cargo subcommands that compile and accept `--target`.
const BUILD_LIKE: &[&str] = &["build", "b", "run", "r", "test", "t", "bench", "rustc", "check", "c", "install", "doc", "d"];

/// The RUSTFLAGS copiergen adds, one flag per element.
///
/// # Errors
/// [`Error::Missing`] for the plugin or libcopier.so.
pub fn rustflags(layout: &Layout, opts: &CopierOpts) -> Result<Vec<String>, Error> {
    let mut f = vec!["-Clinker-plugin-lto".to_owned()];
    let (clang, _) = crate::cc::Lang::C.compiler();
    f.push(format!("-Clinker={}", clang.to_string_lossy()));
    f.push("-Clink-arg=-fuse-ld=lld".into());
    if !opts.no_rewrite {
        let plugin = layout.plugin()?;
        f.push(format!("-Clink-arg=-Wl,--load-pass-plugin={}", plugin.display()));
        if opts.remarks {
            f.push("-Clink-arg=-Wl,-mllvm,-pass-remarks=copiergen".into());
            f.push("-Clink-arg=-Wl,-mllvm,-pass-remarks-missed=copiergen".into());
            f.push("-Wlinker-messages".into());
        }
    }
    let dir = layout.lib_dir_with("libcopier.so")?;
    f.push(format!("-Clink-arg=-L{}", dir.display()));
    f.push(format!("-Clink-arg=-Wl,-rpath,{}", dir.display()));
    f.push("-Clink-arg=-l:libcopier.so".into());
    Ok(f)
}

/// Insert `--target <host>` after a build-like subcommand unless a target is
/// already chosen (argument, `CARGO_BUILD_TARGET`).
pub fn with_target(args: &[OsString], env_target: bool) -> Vec<OsString> {
    let mut out = args.to_vec();
    let named = args.iter().take_while(|a| *a != "--").any(|a| a == "--target" || a.as_encoded_bytes().starts_with(b"--target="));
    if named || env_target {
        return out;
    }
    // The subcommand is the first argument that is not a `+toolchain` or option.
    if let Some(i) = args.iter().position(|a| !a.as_encoded_bytes().starts_with(b"-") && !a.as_encoded_bytes().starts_with(b"+")) {
        if BUILD_LIKE.iter().any(|s| args[i] == *s) {
            out.insert(i + 1, "--target".into());
            out.insert(i + 2, HOST_TARGET.into());
        }
    }
    out
}

/// The targets a cargo command line names (`--target T`, `--target=T`,
/// before any `--`; cargo accepts several), else `CARGO_BUILD_TARGET`'s.
pub fn named_targets(args: &[OsString], env_target: Option<&str>) -> Vec<String> {
    let mut out = Vec::new();
    let mut it = args.iter().take_while(|a| *a != "--");
    while let Some(a) = it.next() {
        if a == "--target" {
            out.extend(it.next().map(|t| t.to_string_lossy().into_owned()));
        } else if let Some(t) = a.to_str().and_then(|a| a.strip_prefix("--target=")) {
            out.push(t.to_owned());
        }
    }
    if out.is_empty() {
        out.extend(env_target.map(str::to_owned));
    }
    out
}

/// Exec cargo with the added flags. Returns only on failure.
pub fn run(args: &[OsString], opts: &CopierOpts) -> Error {
    let env_target = std::env::var("CARGO_BUILD_TARGET").ok();
    if let Some(t) = named_targets(args, env_target.as_deref()).into_iter().find(|t| !crate::args::target_supported(t)) {
        return Error::Usage(format!(
            "--target {t}: copiergen builds for x86_64 Linux (glibc) only, where libcopier runs; build for this target with cargo itself"
        ));
    }
    let (clang, var) = crate::cc::Lang::C.compiler();
    if !opts.no_rewrite && std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
        if let Err(e) = crate::tools::check_llvm_major(&clang, var) {
            return e;
        }
    }
    let layout = Layout::from_current_exe();
    let ours = match rustflags(&layout, opts) {
        Ok(f) => f,
        Err(e) => return e,
    };
    // CARGO_ENCODED_RUSTFLAGS wins over RUSTFLAGS in cargo; keep the user's.
    let mut flags: Vec<String> = match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(enc) if !enc.is_empty() => enc.split('\x1f').map(str::to_owned).collect(),
        _ => std::env::var("RUSTFLAGS").unwrap_or_default().split_whitespace().map(str::to_owned).collect(),
    };
    flags.extend(ours);
    let cargo = std::env::var_os("CARGO").filter(|v| !v.is_empty()).unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(&cargo);
    cmd.args(with_target(args, std::env::var_os("CARGO_BUILD_TARGET").is_some()));
    cmd.env("CARGO_ENCODED_RUSTFLAGS", flags.join("\x1f")).env_remove("RUSTFLAGS");
    // lld parses -mllvm before it loads plugins: options go through the env.
    if let Some(v) = plugin_env::options_value(&opts.plugin_options()) {
        cmd.env(plugin_env::OPTIONS, v);
    }
    if opts.verbose {
        eprintln!("CARGO_ENCODED_RUSTFLAGS={:?} {}", flags.join(" "), crate::show_command(&cmd));
    }
    let err = cmd.exec();
    Error::Spawn { program: cargo.to_string_lossy().into_owned(), source: err, fix: "put cargo on PATH or set CARGO".into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn os(v: &[&str]) -> Vec<OsString> {
        v.iter().map(OsString::from).collect()
    }

    #[test]
    fn named_targets_come_from_arguments_then_environment() {
        assert_eq!(named_targets(&os(&["build", "--target", "aarch64-unknown-linux-gnu"]), None), ["aarch64-unknown-linux-gnu"]);
        assert_eq!(named_targets(&os(&["build", "--target=a", "--target=b"]), Some("c")), ["a", "b"]);
        assert_eq!(named_targets(&os(&["build"]), Some("c")), ["c"]);
        assert!(named_targets(&os(&["run", "--", "--target=x"]), None).is_empty());
        assert!(crate::args::target_supported(HOST_TARGET));
    }

    #[test]
    fn adds_host_target_to_build_like_commands_only() {
        assert_eq!(with_target(&os(&["build", "--release"]), false), os(&["build", "--target", HOST_TARGET, "--release"]));
        assert_eq!(with_target(&os(&["+stable", "run", "--", "x"]), false), os(&["+stable", "run", "--target", HOST_TARGET, "--", "x"]));
        assert_eq!(with_target(&os(&["clean"]), false), os(&["clean"]));
        assert_eq!(with_target(&os(&["build", "--target=aarch64-unknown-linux-gnu"]), false), os(&["build", "--target=aarch64-unknown-linux-gnu"]));
        assert_eq!(with_target(&os(&["build"]), true), os(&["build"]));
        // `--target` after `--` belongs to the program, not to cargo.
        assert_eq!(with_target(&os(&["run", "--", "--target"]), false)[1], "--target");
    }
}
