//! Integration tests of the built `copiergen` executables: real clang-22,
//! opt-22, lld, make and CMake runs. The pass plugin is a stub
//! (`tests/data/stub_plugin.cpp`, a no-op pass that logs where it ran), so
//! these tests check copiergen's own behaviour, not the pass's.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const COPIERGEN: &str = env!("CARGO_BIN_EXE_copiergen");
const COPIERGEN_CC: &str = env!("CARGO_BIN_EXE_copiergen-cc");
const COPIERGEN_CXX: &str = env!("CARGO_BIN_EXE_copiergen-cxx");

/// Shared fixtures: the stub plugin, a header dir and libcopier built from a
/// one-file C stand-in (so the tests link without depending on the runtime's state).
struct Fixture {
    plugin: PathBuf,
    include: PathBuf,
    lib: PathBuf,
}

fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("copiergen-cli")
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tmp().join("fixture");
        std::fs::create_dir_all(dir.join("include")).unwrap();
        std::fs::create_dir_all(dir.join("lib")).unwrap();
        let plugin = dir.join("libcopiergen.so");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/stub_plugin.cpp");
        let cxxflags = Command::new("llvm-config-22").arg("--cxxflags").output().expect("llvm-config-22");
        let cxxflags = String::from_utf8(cxxflags.stdout).unwrap();
        let st = Command::new("clang++-22")
            .args(["-shared", "-fPIC", "-O1"])
            .args(cxxflags.split_whitespace())
            .arg(&src)
            .arg("-o")
            .arg(&plugin)
            .status()
            .unwrap();
        assert!(st.success(), "building the stub plugin");
        std::fs::write(
            dir.join("include/copier.h"),
            "#include <stddef.h>\nvoid *amemcpy(void *, const void *, size_t);\nvoid csync(const void *, size_t);\n",
        )
        .unwrap();
        let c = dir.join("copier_stub.c");
        std::fs::write(
            &c,
            "#include <string.h>\nint copier_stub_linked = 1;\n\
             void *amemcpy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n\
             void csync(const void *a, size_t n) { (void)a; (void)n; }\n",
        )
        .unwrap();
        let o = dir.join("copier_stub.o");
        assert!(Command::new("clang-22").args(["-c", "-fPIC", "-O1"]).arg(&c).arg("-o").arg(&o).status().unwrap().success());
        assert!(Command::new("ar").arg("rcs").arg(dir.join("lib/libcopier.a")).arg(&o).status().unwrap().success());
        assert!(Command::new("clang-22")
            .args(["-shared", "-fPIC"])
            .arg(&o)
            .arg("-o")
            .arg(dir.join("lib/libcopier.so"))
            .status()
            .unwrap()
            .success());
        Fixture { plugin, include: dir.join("include"), lib: dir.join("lib") }
    })
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let d = tmp().join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A command for one of the executables, with the fixture's resources and
/// the stub's log in `dir`.
fn cmd(exe: &str, dir: &Path) -> Command {
    let f = fixture();
    let mut c = Command::new(exe);
    c.current_dir(dir)
        .env("COPIERGEN_PLUGIN", &f.plugin)
        .env("COPIER_INCLUDE_DIR", &f.include)
        .env("COPIER_LIB_DIR", &f.lib)
        .env("STUB_PLUGIN_LOG", dir.join("plugin.log"))
        .env_remove("COPIERGEN_FLAGS")
        .env_remove("COPIERGEN_SHARED");
    c
}

fn run(c: &mut Command) -> Output {
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "copiergen panicked: {err}");
    out
}

fn ok(c: &mut Command) -> Output {
    let out = run(c);
    assert!(out.status.success(), "{:?} failed: {}", c, String::from_utf8_lossy(&out.stderr));
    out
}

fn plugin_log(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("plugin.log")).unwrap_or_default()
}

const PROG: &str = "#include <copier.h>\n#include <stdio.h>\n#include <string.h>\n\
    extern int copier_stub_linked;\n\
    static char a[1 << 16], b[1 << 16];\n\
    int main(void) { memset(a, 7, sizeof a); amemcpy(b, a, sizeof a); csync(b, sizeof b);\n\
    printf(\"%d %d\\n\", b[12345], copier_stub_linked); return 0; }\n";

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stdout_of(c: &mut Command) -> String {
    // cargo's LD_LIBRARY_PATH (target/release) would override the RUNPATH
    // the wrappers record, and load the workspace's libcopier.so instead.
    String::from_utf8(ok(c.env_remove("LD_LIBRARY_PATH")).stdout).unwrap()
}

#[test]
fn compile_and_link_in_one_step_runs_plugin_and_links_runtime() {
    let d = scratch("one-step");
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).args(["cc", "-O2", "t.c", "-o", "t", "--copier-threshold=64"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    assert_eq!(plugin_log(&d), "t.c 64\n");
}

#[test]
fn separate_compile_then_link_only() {
    let d = scratch("two-step");
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).args(["cc", "-O1", "-c", "t.c", "-o", "t.o"]));
    assert_eq!(plugin_log(&d), "t.c -\n");
    // Linking objects only: the runtime is added, the plugin has no IR to see.
    ok(cmd(COPIERGEN, &d).args(["cc", "t.o", "-o", "t"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    assert_eq!(plugin_log(&d), "t.c -\n");
}

#[test]
fn ir_output_and_opt_run_the_pass() {
    let d = scratch("ir");
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).args(["cc", "-O1", "-S", "-emit-llvm", "t.c", "-o", "t.ll"]));
    assert!(std::fs::read_to_string(d.join("t.ll")).unwrap().contains("@amemcpy"));
    ok(cmd(COPIERGEN, &d).args(["opt", "t.ll", "-o", "t.bc"]));
    ok(cmd(COPIERGEN, &d).args(["opt", "t.bc", "-S", "-o", "t2.ll", "--copier-threshold=1"]));
    assert!(std::fs::read(d.join("t.bc")).unwrap().starts_with(b"BC"));
    // A pipe is not read ahead (that would take bytes away from opt).
    let ll = std::fs::File::open(d.join("t.ll")).unwrap();
    ok(cmd(COPIERGEN, &d).args(["opt", "/dev/stdin", "-o", "t3.bc"]).stdin(ll));
    assert!(std::fs::read(d.join("t3.bc")).unwrap().starts_with(b"BC"));
    assert_eq!(plugin_log(&d), "t.c -\nt.ll -\nt.bc 1\n/dev/stdin -\n");
}

#[test]
fn preprocess_dependency_and_info_runs_pass_through_untouched() {
    let d = scratch("passthrough");
    write(&d, "t.c", PROG);
    let e = stdout_of(cmd(COPIERGEN, &d).args(["cc", "-E", "t.c"]));
    assert!(e.contains("amemcpy"), "copier.h found through the include dir");
    let m = stdout_of(cmd(COPIERGEN, &d).args(["cc", "-M", "t.c"]));
    assert!(m.contains("copier.h"), "{m}");
    let v = stdout_of(cmd(COPIERGEN, &d).args(["cc", "--version"]));
    assert!(v.contains("clang version 22"), "{v}");
    let out = ok(cmd(COPIERGEN, &d).args(["cc", "-v"]));
    assert!(String::from_utf8_lossy(&out.stderr).contains("clang version 22"));
    // No "argument unused" noise that would break -Werror builds.
    for args in [&["cc", "-Werror", "-E", "t.c"][..], &["cc", "-Werror", "-fsyntax-only", "t.c"], &["cc", "-Werror", "-MM", "t.c"]] {
        let out = ok(cmd(COPIERGEN, &d).args(args));
        assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"), "{args:?}");
    }
    assert_eq!(plugin_log(&d), "", "the plugin runs only when code is generated");
}

#[test]
fn shared_library_is_self_contained_and_exports_no_runtime() {
    let d = scratch("shared");
    write(&d, "lib.c", "#include <copier.h>\nstatic char buf[1 << 16];\nvoid put(const char *s) { amemcpy(buf, s, sizeof buf); csync(buf, sizeof buf); }\n");
    ok(cmd(COPIERGEN, &d).args(["cc", "-O2", "-shared", "-fPIC", "lib.c", "-o", "libput.so"]));
    let nm = stdout_of(Command::new("nm").args(["-D", "libput.so"]).current_dir(&d));
    assert!(nm.contains(" T put"), "{nm}");
    assert!(!nm.contains("amemcpy") && !nm.contains("csync"), "runtime must be inside and hidden: {nm}");
    // --copier-shared links libcopier.so with an rpath instead.
    ok(cmd(COPIERGEN, &d).args(["cc", "--copier-shared", "-shared", "-fPIC", "lib.c", "-o", "libput2.so"]));
    let dynamic = stdout_of(Command::new("readelf").args(["-d", "libput2.so"]).current_dir(&d));
    assert!(dynamic.contains("libcopier.so") && dynamic.contains("RUNPATH"), "{dynamic}");
    // COPIERGEN_SHARED=1 does the same for an executable.
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).env("COPIERGEN_SHARED", "1").args(["cc", "t.c", "-o", "t"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    assert!(stdout_of(Command::new("readelf").args(["-d", "t"]).current_dir(&d)).contains("libcopier.so"));
}

/// Trial findings: `COPIERGEN_SHARED=true`/`yes` was taken as unset (a
/// static link), anything else silently too; `--copier-shared --sanitize`
/// dropped --copier-shared; `--copier-threshold=16k` was rejected.
#[test]
fn boolean_environment_sanitize_conflict_and_size_suffixes() {
    let d = scratch("env-bool");
    write(&d, "t.c", PROG);
    for v in ["true", "yes", "ON"] {
        let out = ok(cmd(COPIERGEN, &d).env("COPIERGEN_SHARED", v).args(["cc", "t.c", "-o", "t"]));
        assert!(out.stderr.is_empty(), "{v}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(stdout_of(Command::new("readelf").args(["-d", "t"]).current_dir(&d)).contains("libcopier.so"), "{v}");
    }
    for v in ["0", "off", "false", ""] {
        let out = ok(cmd(COPIERGEN, &d).env("COPIERGEN_SHARED", v).args(["cc", "t.c", "-o", "t"]));
        assert!(out.stderr.is_empty(), "{v}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!stdout_of(Command::new("readelf").args(["-d", "t"]).current_dir(&d)).contains("libcopier.so"), "{v}");
    }
    // Not a boolean: one warning line, then a static link.
    let out = ok(cmd(COPIERGEN, &d).env("COPIERGEN_SHARED", "maybe").args(["cc", "t.c", "-o", "t"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("copiergen: warning: COPIERGEN_SHARED='maybe' is not a boolean"), "{err}");
    assert!(!stdout_of(Command::new("readelf").args(["-d", "t"]).current_dir(&d)).contains("libcopier.so"));
    // --sanitize cannot honour --copier-shared: refused, exit 2, one line.
    for shared in [&["--copier-shared"][..], &[]] {
        let mut c = cmd(COPIERGEN, &d);
        if shared.is_empty() {
            c.env("COPIERGEN_SHARED", "yes");
        }
        let out = run(c.args(["cc", "--sanitize", "t.c", "-o", "t"]).args(shared));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.starts_with("copiergen: error: --sanitize with --copier-shared") && err.lines().count() == 1, "{err}");
    }
    // Sizes as in COPIER_OPTIONS.
    ok(cmd(COPIERGEN, &d).args(["cc", "-c", "t.c", "--copier-threshold=16k"]));
    assert_eq!(plugin_log(&d).lines().last(), Some("t.c 16384"));
    let out = run(cmd(COPIERGEN, &d).args(["cc", "-c", "t.c", "--copier-threshold=16kb"]));
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lto_runs_plugin_inside_lld() {
    let d = scratch("lto");
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).args(["cc", "-O2", "-flto", "-c", "t.c", "-o", "t.o"]));
    let out = ok(cmd(COPIERGEN, &d).args(["cc", "-Werror", "-O2", "-flto", "t.o", "-o", "t", "--copier-threshold=5"]));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    // The threshold reaches the plugin inside lld (through the environment).
    assert!(plugin_log(&d).lines().any(|l| l == "ld-temp.o 5"), "{}", plugin_log(&d));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    let out = run(cmd(COPIERGEN, &d).args(["cc", "-flto", "-fuse-ld=bfd", "t.o", "-o", "t"]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("-fuse-ld=bfd"));
}

#[test]
fn cxx_wrappers_and_program_name_dispatch() {
    let d = scratch("cxx");
    write(&d, "t.cc", "#include <copier.h>\n#include <vector>\n#include <cstdio>\nextern \"C\" int copier_stub_linked;\n\
        int main() { std::vector<char> a(1 << 16, 3), b(a); std::printf(\"%d %d\\n\", b[100], copier_stub_linked); }\n");
    ok(cmd(COPIERGEN, &d).args(["c++", "-O2", "t.cc", "-o", "t1"]));
    ok(cmd(COPIERGEN_CXX, &d).args(["-O2", "t.cc", "-o", "t2"]));
    let link = d.join("copiergen-c++");
    std::os::unix::fs::symlink(COPIERGEN, &link).unwrap();
    ok(cmd(link.to_str().unwrap(), &d).args(["-O2", "t.cc", "-o", "t3"]));
    for t in ["t1", "t2", "t3"] {
        assert_eq!(stdout_of(&mut Command::new(d.join(t))), "3 1\n", "{t}");
    }
    assert_eq!(plugin_log(&d).lines().count(), 3);
}

#[test]
fn response_files_are_understood() {
    let d = scratch("rsp");
    write(&d, "t.c", PROG);
    ok(cmd(COPIERGEN, &d).args(["cc", "-c", "t.c", "-o", "t.o"]));
    write(&d, "link.rsp", "t.o -o t\n");
    ok(cmd(COPIERGEN, &d).args(["cc", "@link.rsp"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
}

#[test]
fn make_with_cc_variable() {
    let d = scratch("make");
    write(&d, "t.c", PROG);
    write(&d, "Makefile", "t: t.o\n\t$(CC) $(LDFLAGS) t.o -o t\nt.o: t.c\n\t$(CC) $(CFLAGS) -c t.c -o t.o\n");
    ok(cmd("make", &d).arg(format!("CC={COPIERGEN} cc")).arg("CFLAGS=-O2 -Wall -Werror"));
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    assert_eq!(plugin_log(&d), "t.c -\n");
}

#[test]
fn cmake_with_single_executable_compilers() {
    let d = scratch("cmake");
    write(&d, "t.c", PROG);
    write(&d, "u.cc", "#include <copier.h>\n#include <string>\n#include <cstdio>\nint main() { std::string s(100000, 'x'); std::string t = s; std::printf(\"%c\\n\", t[99999]); }\n");
    write(&d, "CMakeLists.txt", "cmake_minimum_required(VERSION 3.16)\nproject(t C CXX)\nadd_executable(t t.c)\nadd_executable(u u.cc)\n");
    ok(cmd("cmake", &d).args(["-S", ".", "-B", "build"]).arg(format!("-DCMAKE_C_COMPILER={COPIERGEN_CC}")).arg(format!("-DCMAKE_CXX_COMPILER={COPIERGEN_CXX}")));
    ok(cmd("cmake", &d).args(["--build", "build"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("build/t"))), "7 1\n");
    assert_eq!(stdout_of(&mut Command::new(d.join("build/u"))), "x\n");
    let log = plugin_log(&d);
    assert!(log.lines().any(|l| l.ends_with("t.c -")) && log.lines().any(|l| l.ends_with("u.cc -")), "{log}");
}

#[test]
fn install_layout_is_found_without_overrides() {
    let d = scratch("install");
    let prefix = d.join("prefix");
    ok(cmd(COPIERGEN, &d).args(["install", "--prefix"]).arg(&prefix));
    for f in ["bin/copiergen", "bin/copiergen-cc", "bin/copiergen-c++", "lib/libcopiergen.so", "lib/libcopier.a", "lib/libcopier.so", "include/copier.h"] {
        assert!(prefix.join(f).exists(), "{f}");
    }
    write(&d, "t.c", PROG);
    let out = ok(Command::new(prefix.join("bin/copiergen-cc"))
        .current_dir(&d)
        .env_remove("COPIERGEN_PLUGIN")
        .env_remove("COPIER_LIB_DIR")
        .env_remove("COPIER_INCLUDE_DIR")
        .env("STUB_PLUGIN_LOG", d.join("plugin.log"))
        .args(["--copier-verbose", "t.c", "-o", "t"]));
    let shown = String::from_utf8_lossy(&out.stderr);
    assert!(shown.contains(&format!("{}", prefix.join("lib/libcopier.a").display())), "{shown}");
    assert_eq!(stdout_of(&mut Command::new(d.join("t"))), "7 1\n");
    assert_eq!(plugin_log(&d), "t.c -\n");

    // pkg-config: the installed copier.pc has absolute paths and the libraries
    // copiergen links; a plain clang build with it works from any directory.
    let pc_path = prefix.join("lib/pkgconfig");
    let pc = |args: &[&str]| stdout_of(Command::new("pkg-config").env("PKG_CONFIG_PATH", &pc_path).args(args).arg("copier"));
    assert_eq!(pc(&["--cflags"]).trim(), format!("-I{}", prefix.join("include").display()));
    let libs = pc(&["--libs", "--static"]);
    assert!(libs.starts_with(&format!("-L{} -lcopier", prefix.join("lib").display())), "{libs}");
    assert!(libs.contains(&copiergen_cli::cc::STATIC_DEPS.join(" ")), "{libs}");
    let elsewhere = scratch("install-user");
    write(&elsewhere, "t.c", PROG);
    let cflags = pc(&["--cflags"]);
    ok(Command::new("clang-22")
        .current_dir(&elsewhere)
        .args(cflags.split_whitespace())
        .args(["t.c", "-o", "t", "-static-libgcc"])
        .arg(prefix.join("lib/libcopier.a"))
        .args(libs.split_whitespace().skip(2)));
    assert_eq!(stdout_of(&mut Command::new(elsewhere.join("t"))), "7 1\n");
}

/// A relative prefix with `..` is recorded in copier.pc as the canonical
/// absolute directory.
#[test]
fn install_records_a_canonical_prefix() {
    let d = scratch("install-rel");
    std::fs::create_dir_all(d.join("sub")).unwrap();
    ok(cmd(COPIERGEN, &d.join("sub")).args(["install", "--prefix", "../p"]));
    let pc = std::fs::read_to_string(d.join("p/lib/pkgconfig/copier.pc")).unwrap();
    let want = format!("prefix={}", d.join("p").canonicalize().unwrap().display());
    assert!(pc.lines().any(|l| l == want), "{want} in:\n{pc}");
}

/// The build-tree runtime/copier.pc, named by an absolute PKG_CONFIG_PATH,
/// gives absolute flags that name the real header directory.
#[test]
fn build_tree_pkg_config_works_from_any_directory() {
    let d = scratch("tree-pc");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime").canonicalize().unwrap();
    let out = stdout_of(Command::new("pkg-config").current_dir(&d).env("PKG_CONFIG_PATH", &runtime).args(["--cflags", "copier"]));
    let inc = out.trim().strip_prefix("-I").expect("-I flag");
    assert!(Path::new(inc).is_absolute() && Path::new(inc).join("copier.h").is_file(), "{out}");
}

/// Exit code and the one stderr line of a failing run.
fn failure(c: &mut Command) -> (i32, String) {
    let out = run(c);
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<_> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected: {err}");
    (out.status.code().unwrap(), lines[0].to_owned())
}

#[test]
fn errors_are_one_line_with_distinct_exit_codes() {
    let d = scratch("errors");
    write(&d, "t.c", PROG);
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["cc", "--copier-treshold=9", "-c", "t.c"]));
    assert_eq!(code, 2);
    assert!(msg.contains("--copier-threshold"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_PLUGIN", d.join("none.so")).args(["cc", "-c", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("none.so") && msg.contains("COPIERGEN_PLUGIN"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIER_LIB_DIR", &d).args(["cc", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("libcopier.a") && msg.contains("COPIER_LIB_DIR"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_CLANG", "clang-does-not-exist").args(["cc", "-c", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("clang-does-not-exist") && msg.contains("COPIERGEN_CLANG"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_OPT", "opt-does-not-exist").args(["opt", "t.c", "-o", "x"]));
    assert_eq!(code, 3, "{msg}");
    write(&d, "bad.ll", "this is not IR\n");
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["opt", "bad.ll", "-o", "x.bc"]));
    assert_eq!(code, 4);
    assert!(msg.contains("bad.ll") && msg.contains("not valid LLVM IR"), "{msg}");
    assert!(!d.join("x.bc").exists(), "a failed opt run leaves no output behind");
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["opt", "missing.ll", "-o", "x.bc"]));
    assert_eq!(code, 4);
    assert!(msg.contains("missing.ll"), "{msg}");
    // A module that parses but fails verification: the verifier's message,
    // naming the instructions, on the one line (trial finding: only "input
    // module is broken!").
    write(&d, "dom.ll", "define i32 @f(i32 %a) {\nentry:\n  br label %next\nnext:\n  %y = add i32 %x, 1\n  %x = add i32 %a, 1\n  ret i32 %y\n}\n");
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["opt", "dom.ll", "-o", "x.bc"]));
    assert_eq!(code, 4);
    assert!(msg.contains("dom.ll: not valid LLVM IR: input module is broken!"), "{msg}");
    assert!(msg.contains("Instruction does not dominate all uses!") && msg.contains("%y = add i32 %x, 1"), "{msg}");
    let (code, _) = failure(cmd(COPIERGEN, &d).args(["frobnicate"]));
    assert_eq!(code, 2);
    // The compiler's own failure keeps its exit status and its diagnostics.
    write(&d, "broken.c", "int main( {\n");
    let out = run(cmd(COPIERGEN, &d).args(["cc", "-c", "broken.c"]));
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.c:1"));
    // So does a missing source for `cc` (clang reports it, status 1), as
    // docs/copiergen.md's exit status list says; 4 is `copiergen opt`'s
    // (trial finding: the list promised 4 for any missing input).
    let out = run(cmd(COPIERGEN, &d).args(["cc", "nofile.c"]));
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("nofile.c") && err.contains("no such file") && !err.contains("copiergen:"), "{err}");
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/copiergen.md")).unwrap();
    let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(doc.contains("4 for a `copiergen opt` input that is missing, unreadable or not LLVM IR"), "docs/copiergen.md's exit status list");
    assert!(doc.contains("a compiler's own errors (a syntax error, a missing source file) keep its status"), "docs/copiergen.md's exit status list");
}

#[test]
fn help_documents_every_option() {
    let d = scratch("help");
    let top = stdout_of(cmd(COPIERGEN, &d).arg("--help"));
    for s in ["cc", "c++", "opt", "cargo", "install", "COPIERGEN_PLUGIN", "COPIER_LIB_DIR", "COPIER_INCLUDE_DIR"] {
        assert!(top.contains(s), "{s} missing: {top}");
    }
    let cc = stdout_of(cmd(COPIERGEN, &d).args(["help", "cc"]));
    let ours = stdout_of(cmd(COPIERGEN, &d).args(["cc", "--copier-help"]));
    for s in ["--copier-threshold", "--copier-no-rewrite", "--copier-remarks", "--copier-shared", "--sanitize"] {
        assert!(cc.contains(s) && ours.contains(s), "{s}");
    }
    // --copier-help starts with the subcommand's own description, as `help cc`.
    let first = ours.lines().next().unwrap();
    assert!(first.starts_with("Compile and link C like clang-22"), "{first}");
    assert!(cc.contains(first), "{cc}");
    let cargo = stdout_of(cmd(COPIERGEN, &d).args(["cargo", "--copier-help"]));
    assert!(cargo.starts_with("Run cargo so the crate is built through the plugin"), "{cargo}");
    // `copiergen cc --help` is clang's help: a drop-in replacement.
    assert!(stdout_of(cmd(COPIERGEN, &d).args(["cc", "--help"])).contains("OVERVIEW: clang LLVM compiler"));
    assert!(stdout_of(cmd(COPIERGEN, &d).arg("--version")).starts_with("copiergen "));
}

#[test]
fn cargo_rustflags_recipe_is_printed() {
    let d = scratch("print");
    let f = stdout_of(cmd(COPIERGEN, &d).args(["print", "rustflags"]));
    assert!(f.contains("-Clinker-plugin-lto") && f.contains("--load-pass-plugin=") && f.contains("-fuse-ld=lld"), "{f}");
    let p = stdout_of(cmd(COPIERGEN, &d).args(["print", "plugin"]));
    assert_eq!(p.trim(), fixture().plugin.to_str().unwrap());
}

/// copiergen's classification agrees with clang's own driver: for each line,
/// `clang-22 -###` shows a linker job exactly when copiergen says "link",
/// and a compile job (`-cc1` with code generation) when it loads the plugin.
#[test]
fn classification_matches_clang_driver() {
    use copiergen_cli::args::{classify, Action};
    let d = scratch("driver");
    write(&d, "a.c", "int main(void) { return 0; }\n");
    write(&d, "b.o", "");
    write(&d, "link.rsp", "b.o -o prog\n");
    write(&d, "pre.h", "int f(void);\n");
    for f in ["a.S", "b.s", "a.sx", "a.ll"] {
        write(&d, f, "");
    }
    let lines = [
        "a.c", "-c a.c", "-S a.c", "-S -emit-llvm a.c", "-c -emit-llvm a.c", "-E a.c", "-M a.c", "-MM a.c",
        "-MD -c a.c", "-MMD a.c -o prog", "-fsyntax-only a.c", "b.o -o prog", "-shared b.o -o x.so",
        "-x c a.c -o prog", "-o prog -I inc -D X -include a.c b.o", "-v a.c", "-flto b.o -o prog",
        "@link.rsp", "-r b.o -o c.o", "-Xlinker --as-needed b.o", "-MF dep.d -MT t -c a.c",
        "-x c-header a.c -o a.pch", "pre.h", "-c a.S", "-c b.s", "-S a.S", "a.S -o prog", "a.c a.S -o prog", "-c a.c b.s",
        "-c b.s a.S", "-x assembler-with-cpp -c a.c", "-x assembler -c b.s", "-c a.ll b.s", "-c a.sx", "-E a.S",
        "-x c -c b.s -x none a.S",
    ];
    for line in lines {
        let args: Vec<std::ffi::OsString> = line.split_whitespace().map(Into::into).collect();
        let out = Command::new("clang-22").arg("-###").args(&args).current_dir(&d).output().unwrap();
        let jobs = String::from_utf8_lossy(&out.stderr).to_string();
        let links = jobs.lines().any(|l| l.contains("ld\"") || l.contains("ld.lld\"") || l.contains("/ld\""));
        let codegen = jobs.lines().any(|l| l.contains("\"-cc1\"") && (l.contains("\"-emit-obj\"") || l.contains("\"-S\"") || l.contains("\"-emit-llvm")));
        let inv = classify(&args);
        assert_eq!(inv.action() == Action::Link, links, "{line}: link? driver jobs:\n{jobs}");
        if inv.asm_sources == 0 {
            assert_eq!(inv.adds_plugin(), codegen || (links && inv.sources == 0), "{line}: codegen? jobs:\n{jobs}");
        }
        // The plugin (and its options) go exactly to lines with a cc1 job
        // that generates code: not to assembly (cc1as), -E or links alone.
        assert_eq!(inv.compiles_code(), codegen, "{line}: cc1 code generation? jobs:\n{jobs}");
    }
}

#[test]
fn internal_errors_are_one_line_without_backtrace() {
    let d = scratch("internal");
    // stdout is a pipe nobody reads: printing fails (EPIPE) inside copiergen.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = run(cmd(COPIERGEN, &d).args(["print", "plugin"]).stdout(writer).env("RUST_BACKTRACE", "1"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(70), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("copiergen: internal error:") && !err.contains("stack backtrace"), "{err}");
}

/// A script that prints `banner` for `--version` (a stand-in for a tool of
/// another LLVM version).
fn fake_tool(dir: &Path, name: &str, banner: &str) -> PathBuf {
    let p = write(dir, name, &format!("#!/bin/sh\necho '{banner}'\n"));
    let mut perm = std::fs::metadata(&p).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&p, perm).unwrap();
    p
}

#[test]
fn foreign_targets_are_refused_at_every_step() {
    let d = scratch("targets");
    write(&d, "t.c", PROG);
    for args in [
        &["cc", "-O2", "--target=aarch64-linux-gnu", "-c", "t.c", "-o", "t.o"][..],
        &["cc", "--target=riscv64-linux-gnu", "t.c", "-o", "t"],
        &["cc", "-target", "wasm32-unknown-unknown", "t.c", "-o", "t"],
        &["cc", "--target=i686-linux-gnu", "-c", "t.c", "-o", "t.o"],
        &["cc", "-m32", "-c", "t.c", "-o", "t.o"],
        &["cc", "-m32", "t.c", "-o", "t"],
        &["cc", "--copier-no-rewrite", "-mx32", "-c", "t.c", "-o", "t.o"],
        &["c++", "--target=aarch64-linux-gnu", "-x", "c++", "-c", "t.c", "-o", "t.o"],
    ] {
        let (code, msg) = failure(cmd(COPIERGEN, &d).args(args));
        assert_eq!(code, 2, "{args:?}: {msg}");
        assert!(msg.starts_with("copiergen: error: ") && msg.contains("x86_64 Linux"), "{msg}");
        let flag = args.iter().find(|a| a.starts_with("--target=") || a.starts_with("-m")).copied().unwrap_or("wasm32");
        assert!(msg.contains(flag), "{args:?}: {msg}");
        assert!(!d.join("t.o").exists() && !d.join("t").exists(), "{args:?} wrote output");
    }
    assert_eq!(plugin_log(&d), "");
    // Preprocessing for another target produces no code: clang's business.
    write(&d, "h.c", "#include <copier.h>\nint f(void);\n");
    ok(cmd(COPIERGEN, &d).args(["cc", "--target=aarch64-linux-gnu", "-E", "h.c", "-o", "h.i"]));
    // The host spelled out is fine.
    ok(cmd(COPIERGEN, &d).args(["cc", "--target=x86_64-pc-linux-gnu", "-c", "t.c", "-o", "t.o"]));
    // cargo: refused before cargo runs (no Cargo.toml needed to see that).
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["cargo", "build", "--target", "aarch64-unknown-linux-gnu"]));
    assert_eq!(code, 2);
    assert!(msg.contains("aarch64-unknown-linux-gnu") && msg.contains("x86_64 Linux"), "{msg}");
}

#[test]
fn no_input_files_is_clangs_own_message() {
    let d = scratch("no-input");
    for args in [&["cc"][..], &["cc", "-O2"], &["cc", "-c"], &["c++", "-O2", "-o", "prog"]] {
        let out = run(cmd(COPIERGEN, &d).args(args));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("no input files") && !err.contains("undefined reference"), "{args:?}: {err}");
    }
}

#[test]
fn unusable_resources_and_tools_are_copiergens_own_errors() {
    let d = scratch("unusable");
    write(&d, "t.c", PROG);
    // A plugin path that is not a plugin: a text file, and a shared object without the entry point.
    let libc = "/lib/x86_64-linux-gnu/libc.so.6";
    for (plugin, why) in [("/etc/passwd", "not a 64-bit ELF shared object"), (libc, "llvmGetPassPluginInfo")] {
        let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_PLUGIN", plugin).args(["cc", "-c", "t.c"]));
        assert_eq!(code, 3, "{msg}");
        assert!(msg.starts_with("copiergen: error: ") && msg.contains(plugin) && msg.contains(why), "{msg}");
        let (code, _) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_PLUGIN", plugin).args(["opt", "t.c", "-o", "x.bc"]));
        assert_eq!(code, 3);
    }
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIER_INCLUDE_DIR", d.join("nonexistent")).args(["cc", "-c", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("copier.h") && msg.contains("COPIER_INCLUDE_DIR") && msg.contains("nonexistent"), "{msg}");
    // Tools of another LLVM version, or not LLVM tools, are named as such.
    let opt14 = fake_tool(&d, "opt-old", "Debian LLVM version 14.0.6");
    write(&d, "t.ll", "define void @f() {\n  ret void\n}\n");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_OPT", &opt14).args(["opt", "t.ll", "-o", "x.bc"]));
    assert_eq!(code, 3);
    assert!(msg.contains("COPIERGEN_OPT") && msg.contains("LLVM 14") && !msg.contains("t.ll"), "{msg}");
    let clang14 = fake_tool(&d, "clang-old", "Debian clang version 14.0.6");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_CLANG", &clang14).args(["cc", "-c", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("COPIERGEN_CLANG") && msg.contains("LLVM 14"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_CLANG", "/bin/true").args(["cc", "-c", "t.c"]));
    assert_eq!(code, 3);
    assert!(msg.contains("not an LLVM tool"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).env("COPIERGEN_CLANG", &clang14).args(["cargo", "build"]));
    assert_eq!(code, 3);
    assert!(msg.contains("COPIERGEN_CLANG") && msg.contains("LLVM 14"), "{msg}");
    // The real LLVM 22 tools pass the check.
    ok(cmd(COPIERGEN, &d).env("COPIERGEN_CLANG", "clang-22").args(["cc", "-c", "t.c", "-o", "t.o"]));
    ok(cmd(COPIERGEN, &d).env("COPIERGEN_OPT", "opt-22").args(["opt", "t.ll", "-o", "x.bc"]));
    // An output that cannot be written: copiergen's line, with the file name.
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["opt", "t.ll", "-o", "/nonexistent/dir/x"]));
    assert_eq!(code, 1);
    assert!(msg.starts_with("copiergen: error: ") && msg.contains("/nonexistent/dir/x"), "{msg}");
}

#[test]
fn usage_errors_keep_the_missing_arguments_and_usage_on_one_line() {
    let d = scratch("usage");
    let (code, msg) = failure(cmd(COPIERGEN, &d).arg("opt"));
    assert_eq!(code, 2);
    assert!(msg.contains("-o <OUT>") && msg.contains("<INPUT>") && msg.contains("usage: copiergen opt"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["opt", "x.bc"]));
    assert_eq!(code, 2);
    assert!(msg.contains("-o <OUT>") && msg.contains("usage: copiergen opt"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).arg("install"));
    assert_eq!(code, 2);
    assert!(msg.contains("--prefix <DIR>"), "{msg}");
    let (code, msg) = failure(cmd(COPIERGEN, &d).args(["cc", "--copier-treshold=9", "-c", "t.c"]));
    assert_eq!(code, 2);
    assert!(msg.contains("'--copier-threshold'"), "{msg}");
    // Bare `copiergen`: the usage and the list of subcommands, exit 2.
    let out = run(&mut cmd(COPIERGEN, &d));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(err.contains("Usage: copiergen <COMMAND>") && err.contains("  opt ") && err.contains("  install "), "{err}");
}

/// Assembly with a C-preprocessor line (for `.S`/`assembler-with-cpp`):
/// `answer` returns 42.
const ASM_CPP: &str = "#define ANSWER 42\n.text\n.globl answer\n.type answer,@function\nanswer:\n  movl $ANSWER, %eax\n  ret\n\
    .section .note.GNU-stack,\"\",@progbits\n";
/// The same without preprocessor lines (for `.s`/`-x assembler`).
const ASM: &str = ".text\n.globl answer\n.type answer,@function\nanswer:\n  movl $42, %eax\n  ret\n\
    .section .note.GNU-stack,\"\",@progbits\n";

#[test]
fn assembly_inputs_get_no_plugin_options_and_mixed_lines_give_them_to_c_only() {
    let d = scratch("asm");
    write(&d, "a.S", ASM_CPP);
    write(&d, "b.s", ASM);
    write(&d, "c.asm", ASM_CPP);
    write(&d, "t.c", "#include <copier.h>\n#include <stdio.h>\nint answer(void);\nextern int copier_stub_linked;\n\
        int main(void) { printf(\"%d %d\\n\", answer(), copier_stub_linked); return 0; }\n");
    let asm_lines: [&[&str]; 4] = [
        &["-c", "a.S", "-o", "a.o"],
        &["-c", "b.s", "-o", "a.o"],
        &["-c", "-x", "assembler-with-cpp", "c.asm", "-o", "a.o"],
        &["-c", "-x", "assembler", "b.s", "-o", "a.o"],
    ];
    let copier_opts: [&[&str]; 3] = [&["--copier-threshold=1"], &["--copier-remarks", "--copier-threshold", "7"], &["--sanitize"]];
    for line in asm_lines {
        for opts in copier_opts {
            for env in [None, Some("-copiergen-threshold=3")] {
                let _ = std::fs::remove_file(d.join("a.o"));
                let mut c = cmd(COPIERGEN, &d);
                if let Some(e) = env {
                    c.env("COPIERGEN_OPTIONS", e);
                }
                // -Werror: nothing the wrapper adds may be an unused argument.
                let out = ok(c.arg("cc").arg("-Werror").args(line).args(opts));
                assert!(out.stderr.is_empty(), "{line:?} {opts:?}: {}", String::from_utf8_lossy(&out.stderr));
                assert!(std::fs::read(d.join("a.o")).unwrap().starts_with(b"\x7fELF"), "{line:?} {opts:?}: no object");
            }
        }
    }
    assert_eq!(plugin_log(&d), "", "the plugin ran for assembly");

    // Mixed lines: clang's compile job for t.c loads the plugin and gets the
    // threshold; the assembler jobs get none of it.
    for asm in [&["a.S"][..], &["b.s"], &["-x", "assembler-with-cpp", "c.asm", "-x", "none"], &["a.S", "b.s"][..1]] {
        let _ = std::fs::remove_file(d.join("plugin.log"));
        let _ = std::fs::remove_file(d.join("prog"));
        ok(cmd(COPIERGEN, &d).args(["cc", "-Werror", "-O1", "--copier-threshold=1", "t.c"]).args(asm).args(["-o", "prog"]));
        assert_eq!(stdout_of(&mut Command::new(d.join("prog"))), "42 1\n", "{asm:?}");
        assert_eq!(plugin_log(&d), "t.c 1\n", "{asm:?}");
    }
    // Compile only, assembly first, with COPIERGEN_OPTIONS from the user.
    let _ = std::fs::remove_file(d.join("plugin.log"));
    ok(cmd(COPIERGEN, &d).env("COPIERGEN_OPTIONS", "-copiergen-threshold=9").args(["cc", "-Werror", "-c", "a.S", "t.c", "--copier-remarks"]));
    assert_eq!(plugin_log(&d), "t.c 9\n");
    for o in ["a.o", "t.o"] {
        assert!(std::fs::read(d.join(o)).unwrap().starts_with(b"\x7fELF"), "{o}");
    }
    ok(cmd(COPIERGEN, &d).args(["cc", "-c", "b.s", "t.c", "--copier-threshold=2", "--copier-remarks"]));
    assert_eq!(plugin_log(&d), "t.c 9\nt.c 2\n");
    assert!(std::fs::read(d.join("b.o")).unwrap().starts_with(b"\x7fELF"));
    ok(cmd(COPIERGEN, &d).args(["cc", "b.o", "t.o", "-o", "prog2"]));
    assert_eq!(stdout_of(&mut Command::new(d.join("prog2"))), "42 1\n");
}

#[test]
fn mlir_front_end_missing_is_exit_3_and_is_run_with_its_arguments() {
    let d = scratch("mlir");
    let out = run(Command::new(COPIERGEN).args(["mlir", "in.mlir"]).env("COPIERGEN_MLIR", d.join("none")));
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("COPIERGEN_MLIR="), "{out:?}");
    // A stand-in front end: copiergen execs it with the arguments unchanged
    // and COPIERGEN naming itself (for the link step).
    let fe = write(&d, "fe.sh", "#!/bin/sh\necho \"$COPIERGEN|$*\"\nexit 5\n");
    assert!(Command::new("chmod").arg("+x").arg(&fe).status().unwrap().success());
    let out = run(Command::new(COPIERGEN).args(["mlir", "--lower", "a b.mlir", "-o", "p"]).env("COPIERGEN_MLIR", &fe).env_remove("COPIERGEN"));
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.ends_with("|--lower a b.mlir -o p\n") && s.contains("copiergen"), "{s}");
}

/// `copiergen report`: a malformed site line is one error naming FILE:LINE
/// (trial finding: no file, or a partial sum), and a reader that stops
/// early (`| head`) ends the output quietly (it was an internal error).
#[test]
fn report_names_file_and_line_and_stops_quietly_on_a_closed_pipe() {
    let d = scratch("report");
    let line = |i: usize| {
        format!("copier: site a{i}.c:1:1 fn=f copies=1 bytes={i} async=0 observed=0 unpaid=0 window_ns=0 wait_ns=0 waits=0 state=async\n")
    };
    write(&d, "good.log", &line(1));
    write(&d, "bad.log", &format!("program output\n{}copier: site b.c:2:3 fn=g copies=4 bytes=x\n", line(2)));
    let out = run(cmd(COPIERGEN, &d).args(["report", "good.log", "bad.log"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end(), "copiergen: error: bad.log:3: site b.c:2:3: bytes=x is not a number");

    write(&d, "big.log", &(0..5000).map(line).collect::<String>());
    let mut child = cmd(COPIERGEN, &d)
        .args(["report", "big.log"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.is_empty(), "{:?}: {err}", out.status);
}

/// Trial finding: `COPIERGEN_FLAGS=-O2` was reported as "unexpected
/// argument '-O' found", as if on the command line. An error about
/// `COPIERGEN_FLAGS` names it, with the word it cannot take; its options
/// still work, and the command line's override them.
#[test]
fn copiergen_flags_errors_name_the_variable() {
    let d = scratch("env-flags");
    write(&d, "t.c", PROG);
    for (flags, want) in [
        ("-O2", "copiergen: error: COPIERGEN_FLAGS=\"-O2\": '-O2' is not a copiergen option (it takes copiergen's own options (--copier-*, --sanitize) only; compiler flags go on the command line)"),
        ("--copier-remarks -Wall", "copiergen: error: COPIERGEN_FLAGS=\"--copier-remarks -Wall\": '-Wall' is not a copiergen option"),
        ("--copier-bogus", "copiergen: error: COPIERGEN_FLAGS=\"--copier-bogus\": unexpected argument '--copier-bogus'"),
        ("--copier-threshold=abc", "copiergen: error: COPIERGEN_FLAGS=\"--copier-threshold=abc\": invalid value 'abc'"),
    ] {
        let out = run(cmd(COPIERGEN, &d).env("COPIERGEN_FLAGS", flags).args(["cc", "t.c", "-o", "t"]));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flags}: {err}");
        assert!(err.starts_with(want) && err.lines().count() == 1, "{flags}: {err}");
    }
    // copiergen's own options, --sanitize among them (third-party builds set it there)
    // (the fixture has no sanitizer runtime: a --sanitize link fails later, for that)
    for flags in ["  --copier-threshold 16k ", "--copier-remarks --sanitize", "--sanitize"] {
        let out = run(cmd(COPIERGEN, &d).env("COPIERGEN_FLAGS", flags).args(["cc", "t.c", "-o", "t"]));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("COPIERGEN_FLAGS"), "{flags}: {err}");
        assert!(out.status.success() || flags.contains("--sanitize"), "{flags}: {err}");
    }
}
