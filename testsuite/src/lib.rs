//! Helpers shared by Copier's cross-component tests: locating the LLVM 22
//! tools and the built plugin, compiling the test inputs of `testsuite/ir/`,
//! running CopierGen on them, normalising IR for snapshots, and building and
//! running the inputs as programs with and without the plugin.
//!
//! Inputs are C (`.c`), C++ (`.cpp`) or LLVM IR (`.ll`) files, each named for
//! what it proves. Directives in their first comment lines (`//` or `;`):
//! - `CFLAGS: ...` flags for the IR snapshot compile (default `-O1`);
//! - `OPTFLAGS: ...` plugin options for `opt-22` and the program builds
//!   (default `-copiergen-min-overlap=0`: the inputs test placement, so
//!   even copies waited for at once are rewritten; given flags replace it);
//! - `RUN: no` the input is not a program (no `main`);
//! - `RUN-LEVELS: -O0 -O2` optimisation levels of the program runs (default
//!   `-O0 -O1 -O2`);
//! - `LIBS: -lpthread` link flags;
//! - `EXPECT-ASYNC: no` the program submits no asynchronous copy (negative
//!   cases); by default at least one must be submitted.

use regex::Regex;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root (parent of `testsuite/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("testsuite has a parent").to_path_buf()
}

/// An LLVM 22 tool: `$LLVM_SYS_221_PREFIX/bin/<name>` (default
/// `/usr/lib/llvm-22`).
pub fn llvm_tool(name: &str) -> PathBuf {
    let prefix = std::env::var_os("LLVM_SYS_221_PREFIX").map_or_else(|| PathBuf::from("/usr/lib/llvm-22"), PathBuf::from);
    prefix.join("bin").join(name)
}

/// The built plugin: `$COPIERGEN_PLUGIN`, else `target/release/libcopiergen.so`.
///
/// # Panics
/// If the file does not exist (run `cargo build --release` first).
pub fn plugin_path() -> PathBuf {
    let p = std::env::var_os("COPIERGEN_PLUGIN")
        .map_or_else(|| workspace_root().join("target/release/libcopiergen.so"), PathBuf::from);
    assert!(p.exists(), "{} does not exist: run `cargo build --release` first", p.display());
    p
}

/// Directory of the test inputs.
pub fn inputs_dir() -> PathBuf {
    workspace_root().join("testsuite/ir")
}

/// Every test input, sorted by name.
pub fn inputs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(inputs_dir())
        .expect("testsuite/ir exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "cpp" | "ll")))
        .collect();
    v.sort();
    v
}

/// Source language of an input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// C, compiled with clang-22.
    C,
    /// C++, compiled with clang++-22.
    Cxx,
    /// LLVM IR text.
    Ir,
}

/// A parsed test input.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// Its language.
    pub lang: Lang,
    /// Flags for the snapshot compile.
    pub cflags: Vec<String>,
    /// Extra opt-22 flags.
    pub optflags: Vec<String>,
    /// Whether it is a program to run.
    pub run: bool,
    /// Optimisation levels of the runs.
    pub run_levels: Vec<String>,
    /// Link flags.
    pub libs: Vec<String>,
    /// Whether a run must submit at least one asynchronous copy.
    pub expect_async: bool,
}

impl Input {
    /// Reads an input and its directives.
    ///
    /// # Panics
    /// If the file cannot be read or has an unknown extension.
    pub fn load(path: &Path) -> Input {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let lang = match path.extension().and_then(|e| e.to_str()) {
            Some("c") => Lang::C,
            Some("cpp") => Lang::Cxx,
            Some("ll") => Lang::Ir,
            _ => panic!("{}: unknown input kind", path.display()),
        };
        let mut input = Input {
            path: path.to_path_buf(),
            lang,
            cflags: vec!["-O1".to_owned()],
            optflags: vec!["-copiergen-min-overlap=0".to_owned()],
            run: lang != Lang::Ir,
            run_levels: ["-O0", "-O1", "-O2"].map(String::from).to_vec(),
            libs: Vec::new(),
            expect_async: true,
        };
        for line in text.lines().take_while(|l| l.starts_with("//") || l.starts_with(';') || l.trim().is_empty()) {
            let body = line.trim_start_matches('/').trim_start_matches(';').trim();
            let Some((key, value)) = body.split_once(':') else { continue };
            let words = || value.split_whitespace().map(String::from).collect::<Vec<_>>();
            match key.trim() {
                "CFLAGS" => input.cflags = words(),
                "OPTFLAGS" => input.optflags = words(),
                "RUN" => input.run = value.trim() != "no",
                "RUN-LEVELS" => input.run_levels = words(),
                "LIBS" => input.libs = words(),
                "EXPECT-ASYNC" => input.expect_async = value.trim() != "no",
                _ => {}
            }
        }
        input
    }

    /// File name, e.g. `struct_copy_then_field_read.c`.
    pub fn name(&self) -> String {
        self.path.file_name().expect("a file").to_string_lossy().into_owned()
    }

    fn compiler(&self) -> PathBuf {
        match self.lang {
            Lang::Cxx => llvm_tool("clang++"),
            _ => llvm_tool("clang"),
        }
    }
}

fn run_tool(cmd: &mut Command) -> Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    if !out.status.success() {
        panic!("{cmd:?} failed ({}):\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    }
    out
}

/// The input's LLVM IR before CopierGen: compiled with its `CFLAGS` (plus
/// `-g` for source locations in remarks), or the `.ll` text itself.
pub fn input_ir(input: &Input) -> String {
    if input.lang == Lang::Ir {
        return std::fs::read_to_string(&input.path).expect("readable input");
    }
    let out = run_tool(
        Command::new(input.compiler())
            .args(["-S", "-emit-llvm", "-g", "-o", "-"])
            .args(&input.cflags)
            // Relative name: debug info and remarks carry no machine path.
            .arg(input.name())
            .current_dir(inputs_dir()),
    );
    String::from_utf8(out.stdout).expect("IR is UTF-8")
}

/// Output of one `opt-22 -passes=copiergen,verify` run.
#[derive(Debug, Clone)]
pub struct PassOutput {
    /// The IR after the pass.
    pub ir: String,
    /// The remarks, one per line, as opt prints them.
    pub remarks: Vec<String>,
    /// The warnings (`warning: ` lines), without that prefix.
    pub warnings: Vec<String>,
}

/// Runs `opt-22 -load-pass-plugin=<plugin> -passes=<passes>` on `ir` with
/// CopierGen's remarks enabled.
///
/// # Panics
/// If opt fails (the verifier rejects the result, the plugin crashes, ...).
pub fn run_opt(ir: &str, passes: &str, extra: &[String]) -> PassOutput {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("in.ll");
    std::fs::write(&input, ir).expect("write IR");
    let out = run_tool(
        Command::new(llvm_tool("opt"))
            .arg(format!("-load-pass-plugin={}", plugin_path().display()))
            .arg(format!("-passes={passes}"))
            .args(["-pass-remarks=copiergen", "-pass-remarks-missed=copiergen", "-S", "-o", "-"])
            .args(extra)
            .arg(&input),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines = |prefix: &str| -> Vec<String> {
        stderr.lines().filter_map(|l| l.strip_prefix(prefix)).map(str::to_owned).collect()
    };
    let (remarks, warnings) = (lines("remark: "), lines("warning: "));
    PassOutput { ir: String::from_utf8(out.stdout).expect("IR is UTF-8"), remarks, warnings }
}

fn metadata_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    // `, !dbg !12`, `, !tbaa !3`, ` !dbg !14` on a define line, `#0`.
    RE.get_or_init(|| Regex::new(r"(,? ![A-Za-z_.][A-Za-z0-9_.]* !\d+)|( #\d+\b)").expect("valid regex"))
}

/// The functions of `ir` that copy or sync (they mention `amemcpy`,
/// `amemmove`, `csync`, `memcpy`, `memmove`), without metadata attachments,
/// debug records and attribute-group references: a stable, readable
/// snapshot of what CopierGen did.
pub fn normalize_ir(ir: &str) -> String {
    normalize_functions(ir, &["amemcpy", "amemmove", "csync", "memcpy", "memmove"])
}

/// The functions of `ir` that mention one of `keys`, normalised as by
/// [`normalize_ir`].
pub fn normalize_functions(ir: &str, keys: &[&str]) -> String {
    let mut out = String::new();
    let mut current: Vec<String> = Vec::new();
    let mut inside = false;
    for line in ir.lines() {
        if line.starts_with("define ") {
            inside = true;
            current.clear();
        }
        if !inside {
            continue;
        }
        if line.trim_start().starts_with("#dbg_") {
            continue;
        }
        current.push(metadata_re().replace_all(line, "").trim_end().to_owned());
        if line == "}" {
            inside = false;
            let body = current.join("\n");
            if keys.iter().any(|k| body.contains(k)) {
                out.push_str(&body);
                out.push_str("\n\n");
            }
        }
    }
    out.trim_end().to_owned() + "\n"
}

/// The snapshot of one input: its remarks and its rewritten functions.
pub fn snapshot(path: &Path) -> String {
    let input = Input::load(path);
    let out = run_opt(&input_ir(&input), "copiergen,verify", &input.optflags);
    let mut s = String::new();
    // (only inputs that warn have the section)
    if !out.warnings.is_empty() {
        s.push_str("warnings:\n");
        for w in &out.warnings {
            s.push_str("  ");
            s.push_str(w);
            s.push('\n');
        }
    }
    s.push_str("remarks:\n");
    for r in &out.remarks {
        s.push_str("  ");
        s.push_str(r);
        s.push('\n');
    }
    s.push_str("ir:\n");
    s.push_str(&normalize_ir(&out.ir));
    s
}

/// The CopierSanitizer snapshot of one input: its IR after
/// `opt-22 -passes=copiergen,copier-sanitizer,verify` (CopierGen's output
/// instrumented, as `copiergen cc --sanitize` builds it), keeping the
/// functions that call the sanitizer runtime (`__copier_san_*`).
pub fn sanitizer_snapshot(path: &Path) -> String {
    let input = Input::load(path);
    let out = run_opt(&input_ir(&input), "copiergen,copier-sanitizer,verify", &input.optflags);
    normalize_functions(&out.ir, &["__copier_san_"])
}

/// Which copy runtime a program is linked with.
#[derive(Debug, Clone)]
pub enum CopyRuntime {
    /// `testsuite/support/copier_deferred.c`: copies wait until a sync needs
    /// them (the adversarial oracle for placement).
    Deferred,
    /// The workspace's `target/release/libcopier.a`.
    Libcopier(PathBuf),
}

/// The workspace's libcopier static library, if it is built and provides
/// the C entry points (the runtime may still be a placeholder).
pub fn libcopier() -> Option<PathBuf> {
    let lib = workspace_root().join("target/release/libcopier.a");
    if !lib.exists() {
        return None;
    }
    let out = Command::new(llvm_tool("llvm-nm")).args(["--defined-only", "-g"]).arg(&lib).output().ok()?;
    let syms = String::from_utf8_lossy(&out.stdout);
    ["__copier_amemcpy", "__copier_amemmove", "__copier_csync", "__copier_csync_all", "__copier_csync_ready_end"]
        .iter()
        .all(|s| syms.lines().any(|l| l.ends_with(&format!(" T {s}"))))
        .then_some(lib)
}

/// The deferred runtime (`testsuite/support/copier_deferred.c`), compiled
/// once per test process.
pub fn deferred_runtime_object() -> PathBuf {
    deferred_object()
}

fn deferred_object() -> PathBuf {
    static OBJ: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    OBJ.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let obj = dir.path().join("copier_deferred.o");
        run_tool(
            Command::new(llvm_tool("clang"))
                .args(["-O1", "-c", "-o"])
                .arg(&obj)
                .arg(workspace_root().join("testsuite/support/copier_deferred.c")),
        );
        (dir, obj)
    })
    .1
    .clone()
}

/// Builds `input` as a program at optimisation level `level` (e.g. `-O2`),
/// with or without the plugin, linked with `runtime`, into `out`.
pub fn build_program(input: &Input, level: &str, plugin: bool, runtime: &CopyRuntime, out: &Path) {
    let mut cmd = Command::new(input.compiler());
    cmd.arg(level).arg("-g").arg("-o").arg(out).arg(&input.path);
    if plugin {
        cmd.arg(format!("-fpass-plugin={}", plugin_path().display()));
        cmd.args(input.optflags.iter().flat_map(|f| ["-mllvm".to_owned(), f.clone()]));
    }
    // Flags of the snapshot compile other than the optimisation level
    // (-D_FORTIFY_SOURCE=2, -fexceptions, ...).
    cmd.args(input.cflags.iter().filter(|f| !f.starts_with("-O")));
    match runtime {
        CopyRuntime::Deferred => {
            cmd.arg(deferred_object());
        }
        CopyRuntime::Libcopier(lib) => {
            cmd.arg(lib).args(["-lpthread", "-ldl", "-lm"]);
        }
    }
    cmd.arg("-lpthread").args(&input.libs);
    run_tool(&mut cmd);
}

/// Result of one program run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// Exit code (None if killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs a built program with `COPIER_DEFERRED_STATS=1` and the extra
/// environment `env`.
pub fn run_program(exe: &Path, env: &[(&str, &str)]) -> RunResult {
    let out = Command::new(exe)
        .env("COPIER_DEFERRED_STATS", "1")
        .envs(env.iter().copied())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    RunResult {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The `submitted=N` count printed by the deferred runtime, if any.
pub fn deferred_submitted(stderr: &str) -> Option<u64> {
    let line = stderr.lines().find(|l| l.starts_with("copier-deferred: submitted="))?;
    line.trim_start_matches("copier-deferred: submitted=").split_whitespace().next()?.parse().ok()
}

/// `stderr` without the deferred runtime's statistics line.
pub fn program_stderr(stderr: &str) -> String {
    stderr.lines().filter(|l| !l.starts_with("copier-deferred: submitted=")).collect::<Vec<_>>().join("\n")
}
