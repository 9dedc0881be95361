//! The command line of `copiergen-mlir` (also `copiergen mlir`): rewrite a
//! `.mlir` file, or lower it all the way to an executable linked with
//! libcopier through `copiergen cc` (so the LLVM pass may still run).

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::{Parser, ValueEnum};

use crate::diag::Diag;
use crate::pipeline::{self, Failure, DEFAULT_LOWERING};
use crate::placement::Placement;

/// Exit status of a bad option.
pub const EXIT_USAGE: i32 = 2;
/// Exit status of a missing tool (`copiergen` for the link step).
pub const EXIT_TOOL: i32 = 3;
/// Exit status of an input that is missing, unreadable or malformed MLIR.
pub const EXIT_INPUT: i32 = 4;
/// Exit status of a failed pass pipeline, translation or output write.
pub const EXIT_FAILED: i32 = 1;

/// copiergen mlir: memref copies become asynchronous copies (libcopier)
/// with waits placed by memory effects and alias analysis.
#[derive(Parser, Debug)]
#[command(name = "copiergen mlir", version, about, long_about = None)]
#[command(after_help = "Examples:\n  copiergen mlir in.mlir -o out.mlir --remarks\n  \
copiergen mlir --lower in.mlir -o prog\n  \
copiergen mlir --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries})' --lower t.mlir -o prog\n\
The output of the rewrite uses the unregistered `copier` dialect: mlir-opt-22 reads it with --allow-unregistered-dialect.")]
pub struct Args {
    /// Input .mlir file (`-` for standard input).
    pub input: String,
    /// Output file (default, or `-`: standard output, except for executables).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Passes to run before the rewrite, in mlir-opt's --pass-pipeline
    /// syntax (`builtin.module(...)`).
    #[arg(long = "pass-pipeline", value_name = "PIPELINE")]
    pub pass_pipeline: Option<String>,
    /// Lower after the rewrite: to an executable (default) or to what --emit names.
    #[arg(long)]
    pub lower: bool,
    /// What to write: the rewritten MLIR, the LLVM dialect, LLVM IR, or an executable.
    #[arg(long, value_enum)]
    pub emit: Option<Emit>,
    /// The lowering to the LLVM dialect after the copier lowering.
    #[arg(long = "lower-pipeline", value_name = "PIPELINE", default_value = DEFAULT_LOWERING)]
    pub lower_pipeline: String,
    /// Leave every copy as it is (a baseline for A/B runs).
    #[arg(long = "no-rewrite")]
    pub no_rewrite: bool,
    /// Copies below this many bytes stay synchronous (static sizes in the
    /// rewrite, dynamic ones at run time): the cost model.
    #[arg(long, value_name = "BYTES", default_value_t = crate::placement::DEFAULT_THRESHOLD)]
    pub threshold: u64,
    /// Print a remark per copy: asynchronous (where its waits are) or synchronous (why).
    #[arg(long)]
    pub remarks: bool,
    /// Link with `copiergen cc --copier-no-rewrite` (no LLVM pass).
    #[arg(long = "no-llvm-pass")]
    pub no_llvm_pass: bool,
    /// Link with CopierSanitizer (`copiergen cc --sanitize -g`).
    #[arg(long)]
    pub sanitize: bool,
    /// An argument for the link step (`copiergen cc`), repeatable: -X -O3.
    #[arg(short = 'X', long = "cc-arg", value_name = "ARG", allow_hyphen_values = true)]
    pub cc_args: Vec<String>,
}

/// What `copiergen mlir` writes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// The rewritten module (copier dialect).
    Mlir,
    /// The module lowered to the LLVM dialect.
    LlvmDialect,
    /// LLVM IR text (.ll).
    Llvm,
    /// An executable linked with libcopier.
    Exe,
}

/// Runs the command on its arguments (without the program name); returns
/// the exit status.
pub fn main_with(argv: Vec<OsString>) -> i32 {
    let mut full = vec![OsString::from("copiergen mlir")];
    full.extend(argv);
    let args = match Args::try_parse_from(full) {
        Ok(a) => a,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_USAGE } else { 0 };
        }
    };
    run(&args)
}

fn print_diags(diags: &[Diag], remarks: bool) {
    for d in diags {
        if d.severity != "remark" || remarks {
            eprintln!("{d}");
        }
    }
}

fn fail(f: Failure, code: i32) -> i32 {
    print_diags(&f.diags, false);
    eprintln!("copiergen mlir: error: {}", f.what);
    code
}

/// Runs parsed arguments; returns the exit status.
pub fn run(args: &Args) -> i32 {
    let emit = args.emit.unwrap_or(if args.lower { Emit::Exe } else { Emit::Mlir });
    if emit == Emit::Exe && args.output.is_none() {
        eprintln!("copiergen mlir: error: an executable needs -o FILE");
        return EXIT_USAGE;
    }
    if emit != Emit::Exe && (args.sanitize || args.no_llvm_pass || !args.cc_args.is_empty()) {
        eprintln!("copiergen mlir: error: --sanitize, --no-llvm-pass and -X apply to executables only (--lower without --emit, or --emit=exe)");
        return EXIT_USAGE;
    }
    let (ctx, diags) = pipeline::context();
    let parsed = if args.input == "-" {
        let mut text = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut text) {
            eprintln!("copiergen mlir: error: cannot read standard input: {e}");
            return EXIT_INPUT;
        }
        pipeline::parse_str(&ctx, &diags, &text)
    } else {
        if let Err(e) = std::fs::File::open(&args.input) {
            eprintln!("copiergen mlir: error: cannot read {}: {e}", args.input);
            return EXIT_INPUT;
        }
        pipeline::parse_file(&ctx, &diags, &args.input)
    };
    let mut module = match parsed {
        Ok(m) => m,
        Err(f) => return fail(f, EXIT_INPUT),
    };
    if let Some(p) = &args.pass_pipeline {
        if let Err(f) = pipeline::run_pipeline(&ctx, &diags, &mut module, p) {
            return fail(f, EXIT_FAILED);
        }
    }
    if !args.no_rewrite {
        crate::rewrite::run(&ctx, &module, Placement { threshold: args.threshold });
        print_diags(&diags.take(), args.remarks);
        if let Err(f) = pipeline::verify(&module, &diags, "the rewritten module") {
            return fail(f, EXIT_FAILED);
        }
    }
    if emit == Emit::Mlir {
        return write_out(args.output.as_deref(), &module.as_operation().to_string());
    }
    if let Err(e) = crate::lower::run(&ctx, &module, args.threshold) {
        print_diags(&diags.take(), false);
        eprintln!("copiergen mlir: error: {e}");
        return EXIT_FAILED;
    }
    if let Err(f) = pipeline::run_pipeline(&ctx, &diags, &mut module, &args.lower_pipeline) {
        return fail(f, EXIT_FAILED);
    }
    if emit == Emit::LlvmDialect {
        return write_out(args.output.as_deref(), &module.as_operation().to_string());
    }
    if let Err(f) = pipeline::check_llvm_only(&module, &diags) {
        return fail(f, EXIT_FAILED);
    }
    let ll = match pipeline::translate(&module, &diags) {
        Ok(t) => t,
        Err(f) => return fail(f, EXIT_FAILED),
    };
    if emit == Emit::Llvm {
        return write_out(args.output.as_deref(), &ll);
    }
    // Without -X inputs (which may define it), the link would fail with
    // the linker's "undefined reference to `main'".
    if args.cc_args.is_empty() && !defines_main(&ll) {
        eprintln!(
            "copiergen mlir: error: the module defines no `main` function, which an executable needs (--lower, --emit=exe); \
             add `func.func @main() -> i32`, link one in with -X FILE, or use --emit=llvm (or mlir, llvm-dialect)"
        );
        return EXIT_INPUT;
    }
    link(args, &ll)
}

/// Whether LLVM IR text `ll` defines a function named `main`.
fn defines_main(ll: &str) -> bool {
    ll.lines().any(|l| l.starts_with("define ") && l.contains(" @main("))
}

fn write_out(path: Option<&Path>, text: &str) -> i32 {
    let text = if text.ends_with('\n') { text.to_owned() } else { format!("{text}\n") };
    match path.filter(|p| *p != Path::new("-")) {
        None => {
            print!("{text}");
            0
        }
        Some(p) => match std::fs::write(p, text) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("copiergen mlir: error: cannot write {}: {e}", p.display());
                EXIT_FAILED
            }
        },
    }
}

/// The `copiergen` executable for the link step: `COPIERGEN`, else the one
/// next to this executable.
fn copiergen_exe() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COPIERGEN") {
        return Some(PathBuf::from(p));
    }
    let me = std::env::current_exe().ok()?;
    let p = me.parent()?.join("copiergen");
    p.is_file().then_some(p)
}

fn link(args: &Args, ll: &str) -> i32 {
    let out = args.output.as_ref().expect("checked above");
    let Some(cg) = copiergen_exe() else {
        eprintln!("copiergen mlir: error: no `copiergen` next to this executable (set COPIERGEN)");
        return EXIT_TOOL;
    };
    let tmp = std::env::temp_dir().join(format!("copiergen-mlir-{}.ll", std::process::id()));
    if let Err(e) = std::fs::write(&tmp, ll) {
        eprintln!("copiergen mlir: error: cannot write {}: {e}", tmp.display());
        return EXIT_FAILED;
    }
    let prefix = std::env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let libdir = Path::new(&prefix).join("lib");
    let mut cmd = Command::new(&cg);
    cmd.arg("cc");
    if args.no_llvm_pass {
        cmd.arg("--copier-no-rewrite");
    }
    if args.sanitize {
        cmd.args(["--sanitize", "-g"]);
    }
    if !args.no_llvm_pass {
        // The LLVM pass applies this cost model's threshold, so a copy left
        // synchronous here stays so after lowering; the user's
        // COPIERGEN_OPTIONS come after it and win.
        let user = std::env::var("COPIERGEN_OPTIONS").unwrap_or_default();
        cmd.env("COPIERGEN_OPTIONS", format!("-copiergen-threshold={} {user}", args.threshold).trim_end());
    }
    cmd.args(["-O2", "-Wno-override-module"]);
    cmd.args(&args.cc_args);
    cmd.arg(&tmp).arg("-o").arg(out);
    // printF64 & co. and memrefCopy (strided memref.copy) live here.
    cmd.arg(format!("-L{}", libdir.display()))
        .arg(format!("-Wl,-rpath,{}", libdir.display()))
        .arg("-lmlir_c_runner_utils");
    let status = cmd.status();
    let _ = std::fs::remove_file(&tmp);
    match status {
        Ok(s) if s.success() => 0,
        Ok(s) => {
            eprintln!("copiergen mlir: error: the link step ({}) failed", cg.display());
            s.code().unwrap_or(EXIT_FAILED)
        }
        Err(e) => {
            eprintln!("copiergen mlir: error: cannot run {}: {e}", cg.display());
            EXIT_TOOL
        }
    }
}

#[cfg(test)]
mod tests {
    use super::defines_main;

    #[test]
    fn defines_main_only_for_a_definition() {
        assert!(defines_main("define i32 @main() {\n  ret i32 0\n}\n"));
        assert!(defines_main("define dso_local i32 @main(i32 %0, ptr %1) {"));
        assert!(!defines_main("; ModuleID = 'LLVMDialectModule'\n"));
        assert!(!defines_main("declare i32 @main()\ndefine void @f() {"));
        assert!(!defines_main("define void @main_loop() {"));
    }
}
