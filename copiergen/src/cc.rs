//! `copiergen cc` / `copiergen c++`: clang-22 / clang++-22 with the pass
//! plugin, `copier.h` and libcopier added.
//!
//! Every clang argument passes through unchanged and in order; copiergen only
//! appends, according to the driver's action ([`crate::args::Action`]):
//!
//! | action | added |
//! | --- | --- |
//! | info (`--version`, `-v`, `-print-*` alone) | nothing |
//! | preprocess, syntax-only | `-idirafter <include>` (only if some input is preprocessed: not for `.s`, `.i`, `.ll`, `.bc` or objects alone; likewise below) |
//! | compile (`-c`, `-S`, `-emit-llvm`) | `-idirafter <include>`; `-fpass-plugin=<plugin>` and the plugin's options (in `COPIERGEN_OPTIONS`, also `-copiergen-link-runtime` without `--sanitize`) if some input is compiled to code (not only assembly: `.s`, `.S`, `-x assembler*`) |
//! | link | the above, then libcopier and what it needs (forced in with `-Wl,--undefined=__copier_csync_all` only at an `-flto` link of objects alone and with `--copier-no-rewrite`: otherwise the modules the pass compiled refer to it, unless they define a reserved libcopier name themselves); with `-flto` also `-fuse-ld=lld -Wl,--load-pass-plugin=<plugin>` so the pass runs at link time; an `-flto` link of objects alone one of which defines a reserved libcopier name (`__copier_csync`, [`crate::link_names`]) is refused with an error naming it |
//!
//! The pass calls only libcopier's reserved symbols (`__copier_csync`);
//! its public names (`csync`) are weak, so a program that defines its own
//! `csync` links and keeps it (`copier_abi::symbols`).
//!
//! libcopier is static by default (`libcopier.a` followed by the system
//! libraries a Rust staticlib needs). For `-shared` it is linked with
//! `-Wl,--exclude-libs,libcopier.a`, so the shared object is self-contained
//! and exports none of the runtime's symbols (each module waits on its own
//! copies: the pass places a csync before any buffer leaves the module's
//! code). `--copier-shared` links `libcopier.so` with an rpath instead.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::args::{classify, Action, Invocation};
use crate::error::Error;
use crate::options::{plugin_env, CopierOpts};
use crate::resources::Layout;

/// Which clang driver to wrap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// `clang-22` (`COPIERGEN_CLANG` overrides).
    C,
    /// `clang++-22` (`COPIERGEN_CLANGXX` overrides).
    Cxx,
}

impl Lang {
    /// The wrapper's name in messages.
    pub fn wrapper(self) -> &'static str {
        match self {
            Lang::C => "copiergen cc",
            Lang::Cxx => "copiergen c++",
        }
    }

    /// The compiler to run: the override variable, else the LLVM 22 driver.
    pub fn compiler(self) -> (OsString, &'static str) {
        let (var, default) = match self {
            Lang::C => ("COPIERGEN_CLANG", "clang-22"),
            Lang::Cxx => ("COPIERGEN_CLANGXX", "clang++-22"),
        };
        (std::env::var_os(var).filter(|v| !v.is_empty()).unwrap_or_else(|| default.into()), var)
    }
}

/// The plugin option that makes every module the pass compiles refer to
/// libcopier unless its names conflict with libcopier's (the pass's
/// `-copiergen-link-runtime`).
const LINK_RUNTIME_OPTION: &str = "-copiergen-link-runtime";

/// System libraries libcopier (a Rust staticlib) needs after it on a link
/// line, as `rustc --print native-static-libs` lists them for
/// x86_64-unknown-linux-gnu, minus `-lgcc_s` and `-lc` (added by the clang
/// driver unless `-nodefaultlibs`).
pub const STATIC_DEPS: &[&str] = &["-lpthread", "-ldl", "-lm", "-lrt", "-lutil"];

/// The runtime archive to link: libcopier, or the sanitizer runtime that
/// contains it (a sanitizer build links `libcopier_san.a` *instead*).
fn runtime_archive(opts: &CopierOpts) -> &'static str {
    if opts.sanitize {
        "libcopier_san.a"
    } else {
        "libcopier.a"
    }
}

/// Resolved additions for one command line.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Additions {
    /// Arguments appended after the user's.
    pub args: Vec<OsString>,
    /// Environment variables set for the compiler (read by the plugin).
    pub env: Vec<(&'static str, OsString)>,
    /// Whether the compiler loads the pass plugin (so it must be LLVM 22).
    pub loads_plugin: bool,
    /// Warnings copiergen prints before it runs the compiler.
    pub warnings: Vec<String>,
}

/// Where the pieces are; resolved lazily so that runs needing none of them
/// never fail on a missing one.
pub trait Resources {
    /// Path of `libcopiergen.so`.
    fn plugin(&self) -> Result<PathBuf, Error>;
    /// Directory holding `file`.
    fn lib_dir_with(&self, file: &str) -> Result<PathBuf, Error>;
    /// Directory holding `copier.h`.
    fn include_dir(&self) -> Result<PathBuf, Error>;
    /// The first `(input, name)` among the link inputs `objects` that
    /// defines a reserved name of libcopier's ([`crate::link_names`]).
    fn defined_runtime_name(&self, objects: &[OsString]) -> Option<(OsString, String)>;
}

impl Resources for Layout {
    fn plugin(&self) -> Result<PathBuf, Error> {
        Layout::plugin(self)
    }
    fn lib_dir_with(&self, file: &str) -> Result<PathBuf, Error> {
        Layout::lib_dir_with(self, file)
    }
    fn include_dir(&self) -> Result<PathBuf, Error> {
        Layout::include_dir(self)
    }
    fn defined_runtime_name(&self, objects: &[OsString]) -> Option<(OsString, String)> {
        crate::link_names::defined_runtime_name(objects)
    }
}

fn os(s: impl AsRef<std::ffi::OsStr>) -> OsString {
    s.as_ref().to_owned()
}

fn joined(prefix: &str, p: &Path) -> OsString {
    let mut s = OsString::from(prefix);
    s.push(p.as_os_str());
    s
}

/// Compute what copiergen adds to clang `args` (see module docs).
///
/// Lines that only print information, and lines with no input file (clang
/// then says "no input files" itself), get nothing.
///
/// # Errors
/// [`Error::Missing`] for a plugin, library or header the action needs;
/// [`Error::Usage`] for a compile or link for a target other than x86-64
/// Linux with glibc (`--target=`, `-target`, `-m32`, `-mx32`, `-m16`: the
/// plugin's rewrite would call an `amemcpy` that no library for that target
/// provides), and for combinations that cannot work (`--copier-shared` with
/// `-static` or `--sanitize`, `--sanitize` with a clang sanitizer that keeps
/// shadow memory or interposes malloc, `-flto` with a linker other than lld).
pub fn additions(lang: Lang, args: &[OsString], opts: &CopierOpts, res: &dyn Resources) -> Result<Additions, Error> {
    let inv = classify(args);
    let mut add = Additions::default();
    let action = inv.action();
    if action == Action::Info || inv.has_no_input() {
        return Ok(add);
    }
    if opts.sanitize && opts.shared {
        // Refused like the other conflicting combinations (-fsanitize=address,
        // -static): the sanitizer build would otherwise drop --copier-shared.
        return Err(Error::Usage(
            "--sanitize with --copier-shared (or COPIERGEN_SHARED): the CopierSanitizer runtime (libcopier_san.a) links statically only; drop one".into(),
        ));
    }
    if opts.sanitize {
        if let Some(s) = conflicting_sanitizer(args) {
            let why = if s == "fuzzer" {
                "both runtimes intercept memcmp, strcmp and the like".to_owned()
            } else {
                format!(
                    "both runtimes intercept malloc/free{} (CopierSanitizer's shadow is at ASan's offset)",
                    if SHADOW_SANITIZERS.contains(&s.as_str()) { " and keep shadow memory" } else { "" }
                )
            };
            return Err(Error::Usage(format!("--sanitize cannot be combined with -fsanitize={s}: {why}; build the two separately")));
        }
        if let Some(lib) = user_libcopier(args) {
            // Linked ahead of libcopier_san.a, the plain runtime would take
            // every amemcpy/csync: no checks, and csync_ready_end answers
            // that differ from the sanitizer's (trial finding).
            return Err(Error::Usage(format!(
                "--sanitize with {lib}: the CopierSanitizer runtime (libcopier_san.a, linked by --sanitize) contains libcopier; drop {lib} (`pkg-config --libs copier`) from a --sanitize build"
            )));
        }
    }
    if let Some(flag) = inv.foreign_target().filter(|_| inv.adds_plugin()) {
        return Err(Error::Usage(format!(
            "{flag}: copiergen builds for x86_64 Linux (glibc) only, where libcopier runs; \
             build for this target with clang-22 itself"
        )));
    }
    if inv.preprocessed > 0 {
        // Only preprocessing jobs use it: on a line of .s, .i, .ll or
        // objects only, clang warns it unused (-Werror makes that an error).
        let inc = res.include_dir()?;
        add.args.push(os("-idirafter"));
        add.args.push(os(inc));
    }
    // One decision says where the plugin is loaded, and everything that needs
    // it loaded (plugin options, remarks, --sanitize's instrumentation option)
    // follows it: clang's compile jobs (cc1) for inputs it compiles to code,
    // and lld at an LTO link. Assembly inputs (.s, .S, -x assembler*) go to
    // the integrated assembler (cc1as), which loads no plugin and rejects
    // -mllvm -copiergen-*; -E, -fsyntax-only and plain links run no pass.
    let in_clang = !opts.no_rewrite && inv.compiles_code();
    let in_lld = !opts.no_rewrite && action == Action::Link && inv.lto;
    if in_lld && !in_clang && !opts.sanitize && inv.adds_runtime() {
        // An -flto link of objects alone must force libcopier in (the pass
        // runs after the archive members are chosen), which an input that
        // defines one of libcopier's reserved symbols clashes with.
        if let Some((input, name)) = res.defined_runtime_name(&inv.objects) {
            return Err(Error::Usage(format!(
                "{}: defines '{name}', a symbol reserved for libcopier (identifiers that begin with two underscores are reserved); rename it (libcopier's public names, such as csync, a program may define)",
                input.to_string_lossy()
            )));
        }
    }
    let plugin = if in_clang || in_lld { Some(res.plugin()?) } else { None };
    add.loads_plugin = plugin.is_some();
    if plugin.is_some() {
        // Read by the plugin wherever it is loaded (lld parses -mllvm before
        // it loads plugins); --sanitize's plugin_env::SANITIZE_OPTIONS too.
        // Each module refers to libcopier unless it defines a reserved name
        // of libcopier's itself ([`add_runtime`] then forces nothing in). In
        // the environment, which only the real plugin reads (an older or a
        // stub plugin would reject an unknown -mllvm option).
        let mut options = Vec::new();
        if !opts.sanitize {
            options.push(LINK_RUNTIME_OPTION.to_owned());
        }
        options.extend(opts.plugin_options());
        if let Some(v) = plugin_env::options_value(&options) {
            add.env.push((plugin_env::OPTIONS, v));
        }
    }
    if let Some(p) = plugin.as_ref().filter(|_| in_clang) {
        add.args.push(joined("-fpass-plugin=", p));
        if let Some(t) = opts.threshold {
            // Also on the command line, where build caches and
            // compile_commands.json see it. -Xclang hands it to the cc1 jobs
            // only (each loads -fpass-plugin before it parses -mllvm); a plain
            // -mllvm would also reach cc1as in a line mixing C and assembly.
            add.args.extend(["-Xclang", "-mllvm", "-Xclang"].map(os));
            add.args.push(format!("-copiergen-threshold={t}").into());
        }
        if opts.remarks {
            // Forwarded to cc1 jobs only; a line with a cc1 job uses them.
            add.args.push(os("-Rpass=copiergen"));
            add.args.push(os("-Rpass-missed=copiergen"));
        }
    }
    if action != Action::Link {
        return Ok(add);
    }
    if let Some(p) = plugin.as_ref().filter(|_| inv.lto) {
        add_lto_link(&inv, p, opts, &mut add)?;
    }
    if inv.adds_runtime() {
        add_runtime(lang, args, &inv, opts, res, &mut add)?;
    }
    Ok(add)
}

/// Clang sanitizers whose runtime keeps shadow memory (ASan's mapping
/// uses CopierSanitizer's offset 0x7fff8000; the others map or protect
/// ranges that overlap it).
const SHADOW_SANITIZERS: &[&str] =
    &["address", "kernel-address", "hwaddress", "kernel-hwaddress", "memory", "kernel-memory", "thread", "dataflow", "type", "numerical"];

/// Clang sanitizers that cannot share a process with CopierSanitizer: the
/// shadow ones, those whose runtime also interposes malloc/free (both
/// interceptors then claim the same symbols: `free(): invalid pointer` at
/// start), and libFuzzer, whose interceptors define `memcmp`, `bcmp`,
/// `strcmp`... as CopierSanitizer's do (the link fails with multiple
/// definitions; `fuzzer-no-link` links no runtime and is allowed).
const CONFLICTING_SANITIZERS: &[&str] = &["leak", "realtime", "fuzzer"];

/// The first sanitizer enabled by the `-fsanitize=`/`-fno-sanitize=` list
/// of `args` (later flags win, as in clang) that conflicts with
/// `--sanitize`.
/// The argument that links libcopier itself (`-lcopier`, `-l:libcopier.*`,
/// a path to `libcopier.a` or `libcopier.so*`), if any.
fn user_libcopier(args: &[OsString]) -> Option<String> {
    let mut prev_l = false;
    for a in args {
        let a = a.to_string_lossy();
        let lib = if prev_l { Some(a.as_ref()) } else { a.strip_prefix("-l") };
        prev_l = a == "-l";
        let named = lib.is_some_and(|l| l == "copier" || l.starts_with(":libcopier.a") || l.starts_with(":libcopier.so"));
        let file = Path::new(a.as_ref()).file_name().and_then(|f| f.to_str()).is_some_and(|f| f == "libcopier.a" || f.starts_with("libcopier.so"));
        if named || (file && !a.starts_with('-')) {
            return Some(a.into_owned());
        }
    }
    None
}

fn conflicting_sanitizer(args: &[OsString]) -> Option<String> {
    let mut on: Vec<String> = Vec::new();
    for a in args {
        let a = a.to_string_lossy();
        let (enable, list) = if let Some(l) = a.strip_prefix("-fsanitize=") {
            (true, l)
        } else if let Some(l) = a.strip_prefix("-fno-sanitize=") {
            (false, l)
        } else {
            continue;
        };
        for name in list.split(',').filter(|n| !n.is_empty()) {
            if !enable && name == "all" {
                on.clear();
                continue;
            }
            on.retain(|n| n != name);
            if enable {
                on.push(name.to_string());
            }
        }
    }
    on.into_iter().find(|n| n == "all" || SHADOW_SANITIZERS.contains(&n.as_str()) || CONFLICTING_SANITIZERS.contains(&n.as_str()))
}

fn add_lto_link(inv: &Invocation, plugin: &Path, opts: &CopierOpts, add: &mut Additions) -> Result<(), Error> {
    match &inv.fuse_ld {
        None => add.args.push(os("-fuse-ld=lld")),
        Some(ld) if ld.to_string_lossy().contains("lld") => {}
        Some(ld) => {
            return Err(Error::Usage(format!(
                "-flto with -fuse-ld={}: the pass runs at LTO link time only under lld; use -fuse-ld=lld",
                ld.to_string_lossy()
            )))
        }
    }
    add.args.push(joined("-Wl,--load-pass-plugin=", plugin));
    if opts.remarks {
        add.args.push(os("-Wl,-mllvm,-pass-remarks=copiergen"));
        add.args.push(os("-Wl,-mllvm,-pass-remarks-missed=copiergen"));
    }
    Ok(())
}

fn add_runtime(
    lang: Lang,
    args: &[OsString],
    inv: &Invocation,
    opts: &CopierOpts,
    res: &dyn Resources,
    add: &mut Additions,
) -> Result<(), Error> {
    // A trailing `-x lang` would apply to the files appended here.
    if args.iter().any(|a| a.as_encoded_bytes().starts_with(b"-x")) {
        add.args.push(os("-x"));
        add.args.push(os("none"));
    }
    if opts.shared {
        if inv.static_link {
            return Err(Error::Usage(
                "--copier-shared (or COPIERGEN_SHARED=1) with -static: a static link cannot use libcopier.so; drop one".into(),
            ));
        }
        let dir = res.lib_dir_with("libcopier.so")?;
        add.args.push(joined("-L", &dir));
        add.args.push(joined("-Wl,-rpath,", &dir));
        add.args.push(os("-l:libcopier.so"));
        return Ok(());
    }
    if opts.sanitize && inv.shared {
        // CopierSanitizer keeps one runtime per process (one shadow, one
        // tracker of pending copies): a shared library leaves its
        // __copier_san_* and libcopier references to the executable, which
        // links libcopier_san.a and exports them (as ASan's static runtime).
        return Ok(());
    }
    let archive = runtime_archive(opts);
    let dir = res.lib_dir_with(archive)?;
    if inv.shared {
        let mut a = OsString::from("-Wl,--exclude-libs,");
        a.push(archive);
        add.args.push(a);
    }
    if !inv.shared && !opts.sanitize && (opts.no_rewrite || (inv.lto && inv.sources == 0)) {
        // Pull the runtime in even when no copy was rewritten, so
        // COPIER_STATS=1 still prints its (zero) line (runtime finding).
        // Other links get it from the modules the pass compiled
        // (LINK_RUNTIME_OPTION), and not for a module that defines a
        // reserved name of libcopier's (`int __copier_csync;`: the pass
        // warns and the program links as with clang), since libcopier.a is
        // one object defining every entry point. At -flto the pass runs
        // after the archive members are chosen (the modules this line
        // compiles refer to libcopier from their pre-link run, and record a
        // clash for the link-time run), and without the pass nothing
        // refers to the runtime.
        add.args.push(os("-Wl,--undefined=__copier_csync_all"));
    }
    add.args.push(os(dir.join(archive)));
    if opts.sanitize {
        // Other copies of libcopier in the process (the hidden runtime of
        // a shared object built without --sanitize) find the sanitizer by
        // this symbol and leave it the unknown COPIER_OPTIONS names.
        add.args.push(os(format!("-Wl,--export-dynamic-symbol={}", copier_abi::CHECKER_SYMBOL)));
    }
    // Only what libcopier uses becomes a DT_NEEDED entry (today none of
    // them: each library loaded costs every process start-up time).
    add.args.push(os("-Wl,--push-state,--as-needed"));
    add.args.extend(STATIC_DEPS.iter().map(os));
    add.args.push(os("-Wl,--pop-state"));
    if static_unwinder(lang, args, inv) {
        // libcopier's only libgcc_s reference is the unwinder
        // (`_Unwind_Resume`): a C executable takes it from libgcc_eh.a, as
        // gcc's `-static-libgcc`, instead of loading libgcc_s.so.1 at start.
        add.args.push(os("-static-libgcc"));
    }
    if args.iter().any(|a| a == "-nodefaultlibs") {
        // The driver adds neither the unwinder nor libc: libcopier needs both.
        add.args.push(os(if inv.static_link { "-lgcc_eh" } else { "-lgcc_s" }));
        add.args.push(os("-lc"));
    }
    Ok(())
}

/// Whether the link takes the unwinder from libgcc_eh.a: a dynamic C
/// executable that names no C++ runtime and no libgcc choice of its own.
/// C++ links keep libgcc_s.so.1, which libstdc++ loads anyway and whose
/// single copy its exceptions must unwind with.
fn static_unwinder(lang: Lang, args: &[OsString], inv: &Invocation) -> bool {
    const KEEPS_LIBGCC_S: &[&[u8]] = &[
        b"-shared-libgcc",
        b"-static-libgcc",
        b"-lstdc++",
        b"-lc++",
        b"-nodefaultlibs",
        b"-nostdlib",
        b"--rtlib=compiler-rt",
        b"-rtlib=compiler-rt",
        b"--unwindlib=libunwind",
        b"-unwindlib=libunwind",
    ];
    lang == Lang::C
        && !inv.shared
        && !inv.static_link
        && !args.iter().any(|a| KEEPS_LIBGCC_S.contains(&a.as_encoded_bytes()))
}

/// Run clang (by `exec`, so its exit status and signals are the caller's)
/// with `args` plus copiergen's additions. Returns only on failure.
///
/// # Errors
/// As [`additions`], and [`Error::Spawn`] when the compiler cannot be run.
pub fn run(lang: Lang, args: &[OsString], opts: &CopierOpts) -> Error {
    let layout = Layout::from_current_exe();
    let add = match additions(lang, args, opts, &layout) {
        Ok(a) => a,
        Err(e) => return e,
    };
    let (compiler, var) = lang.compiler();
    if add.loads_plugin && std::env::var_os(var).is_some_and(|v| !v.is_empty()) {
        if let Err(e) = crate::tools::check_llvm_major(&compiler, var) {
            return e;
        }
    }
    for w in &add.warnings {
        eprintln!("{}: warning: {w}", lang.wrapper());
    }
    let mut cmd = Command::new(&compiler);
    cmd.args(args).args(&add.args);
    for (k, v) in &add.env {
        cmd.env(k, v);
    }
    if opts.verbose {
        eprintln!("{}", crate::show_command(&cmd));
    }
    let err = cmd.exec();
    Error::Spawn {
        program: compiler.to_string_lossy().into_owned(),
        fix: format!("install it (bash scripts/deps.sh installs clang-22) or set {var}"),
        source: err,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        has_plugin: bool,
    }

    impl Resources for Fake {
        fn plugin(&self) -> Result<PathBuf, Error> {
            if self.has_plugin {
                Ok("/p/libcopiergen.so".into())
            } else {
                Err(Error::missing("pass plugin", "build it"))
            }
        }
        fn lib_dir_with(&self, file: &str) -> Result<PathBuf, Error> {
            if file == "libcopier_san.a" {
                return Err(Error::missing(file, "build the sanitizer"));
            }
            Ok("/l".into())
        }
        fn defined_runtime_name(&self, objects: &[OsString]) -> Option<(OsString, String)> {
            objects.iter().find(|o| o.to_string_lossy().contains("defines_reserved")).map(|o| (o.clone(), "__copier_csync".to_owned()))
        }
        fn include_dir(&self) -> Result<PathBuf, Error> {
            Ok("/i".into())
        }
    }

    fn add(line: &str, opts: &CopierOpts) -> Result<Vec<String>, Error> {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        let a = additions(Lang::C, &args, opts, &Fake { has_plugin: true })?;
        Ok(a.args.iter().map(|s| s.to_str().unwrap().to_owned()).collect())
    }

    fn d() -> CopierOpts {
        CopierOpts::default()
    }

    #[test]
    fn compile_adds_plugin_and_header_but_no_library() {
        let a = add("-O2 -c a.c -o a.o", &d()).unwrap();
        assert_eq!(a, ["-idirafter", "/i", "-fpass-plugin=/p/libcopiergen.so"]);
    }

    #[test]
    fn link_appends_static_runtime_and_its_deps() {
        let a = add("a.o b.o -o prog", &d()).unwrap();
        // No job compiles code: no plugin.
        assert!(!a.iter().any(|x| x.contains("pass-plugin")), "{a:?}");
        let at = a.iter().position(|x| x == "/l/libcopier.a").expect("archive");
        let deps = &a[at + 2..at + 2 + STATIC_DEPS.len()];
        assert_eq!(a[at + 1], "-Wl,--push-state,--as-needed");
        assert_eq!(deps, STATIC_DEPS);
        assert_eq!(a[at + 2 + STATIC_DEPS.len()..], ["-Wl,--pop-state", "-static-libgcc"]);
    }

    #[test]
    fn sanitize_refuses_a_libcopier_of_the_users() {
        let san = CopierOpts { sanitize: true, ..CopierOpts::default() };
        for line in ["a.c -lcopier -o p", "a.c -l copier -o p", "a.c -l:libcopier.so -o p", "a.o /x/lib/libcopier.a -o p", "a.o libcopier.so.0 -o p"] {
            match add(line, &san) {
                Err(Error::Usage(m)) => assert!(m.contains("--sanitize with"), "{line}: {m}"),
                other => panic!("{line}: {other:?}"),
            }
        }
        for line in ["a.c -lcopiergen_x -o p", "a.c -lm -o p"] {
            // (the fake resources have no libcopier_san.a: Missing, not Usage)
            assert!(!matches!(add(line, &san), Err(Error::Usage(_))), "{line}");
        }
        assert!(add("a.c -lcopier -o p", &d()).is_ok());
    }

    #[test]
    fn only_dynamic_c_executables_take_the_static_unwinder() {
        let has = |a: &[String]| a.iter().any(|x| x == "-static-libgcc");
        assert!(has(&add("-O2 a.c -o prog", &d()).unwrap()));
        for line in ["a.o -lstdc++ -o prog", "a.o -shared-libgcc -o prog", "-static a.o -o prog", "-shared -fPIC a.c -o libx.so", "a.o -rtlib=compiler-rt -o prog"] {
            assert!(!has(&add(line, &d()).unwrap()), "{line}");
        }
        let cxx = additions(Lang::Cxx, &["a.o", "-o", "prog"].map(OsString::from), &d(), &Fake { has_plugin: true }).unwrap();
        assert!(!cxx.args.iter().any(|x| x == "-static-libgcc"), "{:?}", cxx.args);
        assert!(cxx.args.iter().any(|x| x == "-Wl,--push-state,--as-needed"), "{:?}", cxx.args);
    }

    #[test]
    fn shared_objects_hide_the_static_runtime() {
        let a = add("-shared -fPIC a.c -o libx.so", &d()).unwrap();
        assert!(a.contains(&"-Wl,--exclude-libs,libcopier.a".to_owned()));
        assert!(a.contains(&"/l/libcopier.a".to_owned()));
    }

    #[test]
    fn copier_shared_links_the_so_with_rpath() {
        let o = CopierOpts { shared: true, ..d() };
        let a = add("a.o -o prog", &o).unwrap();
        assert!(a.ends_with(&["-L/l".into(), "-Wl,-rpath,/l".into(), "-l:libcopier.so".into()]));
        let e = add("-static a.o -o prog", &o).unwrap_err();
        assert!(matches!(e, Error::Usage(_)) && e.to_string().contains("-static"), "{e}");
    }

    #[test]
    fn lto_link_loads_plugin_into_lld() {
        let a = add("-flto a.o -o prog", &d()).unwrap();
        assert!(a.contains(&"-fuse-ld=lld".to_owned()));
        assert!(a.contains(&"-Wl,--load-pass-plugin=/p/libcopiergen.so".to_owned()));
        let a = add("-flto -fuse-ld=lld a.o -o prog", &d()).unwrap();
        assert_eq!(a.iter().filter(|x| x.starts_with("-fuse-ld")).count(), 0);
        let e = add("-flto -fuse-ld=bfd a.o -o prog", &d()).unwrap_err();
        assert!(e.to_string().contains("-fuse-ld=bfd"), "{e}");
        // Without LTO the linker is the user's business.
        assert!(!add("a.o -o prog", &d()).unwrap().iter().any(|x| x.contains("load-pass-plugin")));
    }

    #[test]
    fn info_and_preprocess_runs_stay_clean() {
        assert!(add("--version", &d()).unwrap().is_empty());
        assert!(add("-v", &d()).unwrap().is_empty());
        assert_eq!(add("-E a.c", &d()).unwrap(), ["-idirafter", "/i"]);
        assert_eq!(add("-MM a.c", &d()).unwrap(), ["-idirafter", "/i"]);
    }

    #[test]
    fn no_rewrite_links_runtime_without_plugin() {
        let o = CopierOpts { no_rewrite: true, ..d() };
        let a = add("a.c -o prog", &o).unwrap();
        assert!(!a.iter().any(|x| x.contains("pass-plugin")));
        assert!(a.contains(&"/l/libcopier.a".to_owned()));
        // And needs no plugin at all.
        let args: Vec<OsString> = ["a.c"].iter().map(OsString::from).collect();
        assert!(additions(Lang::C, &args, &o, &Fake { has_plugin: false }).is_ok());
        assert!(matches!(additions(Lang::C, &args, &d(), &Fake { has_plugin: false }), Err(Error::Missing { .. })));
    }

    #[test]
    fn trailing_language_is_reset_before_runtime() {
        let a = add("-x c - -o prog", &d()).unwrap();
        let x = a.iter().position(|s| s == "none").unwrap();
        assert!(x < a.iter().position(|s| s == "/l/libcopier.a").unwrap());
    }

    #[test]
    fn foreign_targets_are_refused_by_name_at_compile_and_link() {
        for line in ["-m32 a.o -o prog", "-m32 -c a.c", "--target=aarch64-linux-gnu -c a.c", "-target riscv64-linux-gnu a.c",
            "--target=i686-linux-gnu a.o"] {
            for o in [d(), CopierOpts { no_rewrite: true, ..d() }] {
                let e = add(line, &o).unwrap_err();
                assert!(matches!(e, Error::Usage(_)), "{line}: {e}");
                assert!(e.to_string().contains("x86_64 Linux"), "{e}");
            }
        }
        let e = add("-mx32 -c a.c", &d()).unwrap_err();
        assert!(e.to_string().starts_with("-mx32: "), "{e}");
        // Nothing is generated: clang's own work, with copier.h at hand.
        assert_eq!(add("--target=aarch64-linux-gnu -E a.c", &d()).unwrap(), ["-idirafter", "/i"]);
        assert!(add("--target=aarch64-linux-gnu --version", &d()).unwrap().is_empty());
        assert!(add("--target=x86_64-linux-gnu -c a.c", &d()).is_ok());
    }

    #[test]
    fn no_input_lines_get_nothing_so_clang_reports_them() {
        assert!(add("", &d()).unwrap().is_empty());
        assert!(add("-O2 -o prog", &d()).unwrap().is_empty());
        assert!(add("-c -O2", &d()).unwrap().is_empty());
        // Linker-only inputs still link the runtime.
        assert!(add("-lm -o prog", &d()).unwrap().contains(&"/l/libcopier.a".to_owned()));
        // even with no copy rewritten: the runtime (and its stats line) is
        // linked, forced in where no pass can refer to it (-flto,
        // --copier-no-rewrite), else through the modules' references
        let forced = |line: &str, o: &CopierOpts| add(line, o).unwrap().contains(&"-Wl,--undefined=__copier_csync_all".to_owned());
        assert!(forced("-flto -lm -o prog", &d()));
        assert!(forced("-lm -o prog", &CopierOpts { no_rewrite: true, ..d() }));
        assert!(!forced("-lm -o prog", &d()));
        assert!(!forced("a.c -o prog", &d()));
        // -flto with a source: its pre-link run refers to libcopier, or
        // records a clash of names for the link-time run.
        assert!(!forced("-flto a.c -o prog", &d()));
        assert!(forced("-flto a.o -o prog", &d()));
        let a = additions(Lang::C, &["-c", "a.c"].map(OsString::from), &d(), &Fake { has_plugin: true }).unwrap();
        assert!(a.env.iter().any(|(k, v)| *k == plugin_env::OPTIONS && v == "-copiergen-link-runtime"), "{a:?}");
    }

    #[test]
    fn lto_link_of_an_object_defining_a_reserved_name_is_refused() {
        let e = additions(Lang::C, &["-flto", "defines_reserved.o", "-o", "prog"].map(OsString::from), &d(), &Fake { has_plugin: true }).unwrap_err();
        let m = e.to_string();
        assert!(matches!(e, Error::Usage(_)) && m.contains("defines_reserved.o: defines '__copier_csync', a symbol reserved for libcopier"), "{m}");
        // A program's own public name is no clash (libcopier's is weak).
        let a = additions(Lang::C, &["-flto", "defines_csync.o", "-o", "prog"].map(OsString::from), &d(), &Fake { has_plugin: true }).unwrap();
        assert!(a.loads_plugin && a.warnings.is_empty() && a.args.contains(&"-Wl,--undefined=__copier_csync_all".into()), "{a:?}");
    }

    #[test]
    fn nodefaultlibs_gets_unwinder_and_libc() {
        let a = add("-nodefaultlibs a.o -o prog", &d()).unwrap();
        assert!(a.ends_with(&["-lgcc_s".into(), "-lc".into()]));
    }

    #[test]
    fn partial_link_gets_nothing_from_runtime() {
        let a = add("-r a.o b.o -o ab.o", &d()).unwrap();
        assert!(!a.iter().any(|x| x.contains("libcopier.")));
    }

    #[test]
    fn sanitize_rejects_sanitizers_that_share_its_shadow_or_malloc() {
        let o = CopierOpts { sanitize: true, ..d() };
        for (flags, bad) in [
            (&["-fsanitize=address"][..], Some("address")),
            (&["-fsanitize=undefined,memory"][..], Some("memory")),
            (&["-fsanitize=thread"][..], Some("thread")),
            (&["-fsanitize=leak"][..], Some("leak")),
            (&["-fsanitize=fuzzer"][..], Some("fuzzer")),
            (&["-fsanitize=fuzzer-no-link"][..], None),
            (&["-fsanitize=address", "-fno-sanitize=address"][..], None),
            (&["-fsanitize=undefined"][..], None),
            (&["-fsanitize=safe-stack"][..], None),
        ] {
            let mut a: Vec<OsString> = flags.iter().map(OsString::from).collect();
            a.extend(["x.c", "-o", "x"].map(OsString::from));
            assert_eq!(conflicting_sanitizer(&a).as_deref(), bad, "{flags:?}");
            if let Some(bad) = bad {
                match additions(Lang::C, &a, &o, &Fake { has_plugin: true }) {
                    Err(Error::Usage(m)) => assert!(m.contains(&format!("-fsanitize={bad}")) && !m.contains('\n'), "{m}"),
                    other => panic!("{flags:?}: {other:?}"),
                }
            }
        }
        // Without --sanitize every sanitizer passes through.
        let a: Vec<OsString> = ["-fsanitize=address", "x.c"].map(OsString::from).to_vec();
        assert!(additions(Lang::C, &a, &d(), &Fake { has_plugin: true }).is_ok());
    }

    /// Trial finding: `--copier-shared --sanitize` silently dropped
    /// --copier-shared. Refused (exit 2) on every line with an input, as
    /// --sanitize with -fsanitize=address is.
    #[test]
    fn sanitize_refuses_copier_shared() {
        let o = CopierOpts { sanitize: true, shared: true, ..d() };
        for line in ["a.c -o prog", "-c a.c", "a.o -o prog", "-shared -fPIC a.c -o a.so"] {
            match add(line, &o) {
                Err(e @ Error::Usage(_)) => {
                    let m = e.to_string();
                    assert!(m.contains("--copier-shared") && m.contains("--sanitize") && !m.contains('\n'), "{m}");
                    assert_eq!(e.exit_code(), crate::error::EXIT_USAGE);
                }
                other => panic!("{line}: {other:?}"),
            }
        }
        // Lines that build nothing are left alone.
        assert!(add("--version", &o).unwrap().is_empty());
    }

    #[test]
    fn sanitize_selects_sanitizer_runtime_and_reports_it_missing() {
        let o = CopierOpts { sanitize: true, ..d() };
        let args: Vec<OsString> = ["a.o"].iter().map(OsString::from).collect();
        let e = additions(Lang::C, &args, &o, &Fake { has_plugin: true }).unwrap_err();
        assert!(e.to_string().contains("libcopier_san.a"), "{e}");
        assert!(additions(Lang::C, &[OsString::from("-c"), OsString::from("a.c")], &o, &Fake { has_plugin: true }).is_ok());
    }

    #[test]
    fn threshold_reaches_plugin_as_option_and_env() {
        let o = CopierOpts { threshold: Some(1), ..d() };
        let a = additions(Lang::C, &[OsString::from("-c"), OsString::from("a.c")], &o, &Fake { has_plugin: true }).unwrap();
        // The env var reaches the plugin inside lld too, where -mllvm cannot.
        let env = a.env.iter().find(|(k, _)| *k == plugin_env::OPTIONS).expect("COPIERGEN_OPTIONS");
        assert!(env.1.to_str().unwrap().ends_with("-copiergen-threshold=1"), "{env:?}");
        assert!(a.args.ends_with(&["-Xclang", "-mllvm", "-Xclang", "-copiergen-threshold=1"].map(OsString::from)));
        assert!(env.1.to_str().unwrap().starts_with("-copiergen-link-runtime "), "{env:?}");
        // A link of objects compiles nothing and loads no plugin.
        let a = additions(Lang::C, &[OsString::from("a.o")], &o, &Fake { has_plugin: true }).unwrap();
        assert!(!a.args.contains(&OsString::from("-mllvm")) && a.env.is_empty() && !a.loads_plugin, "{a:?}");
        // An LTO link loads it into lld: options through the environment only.
        let a = additions(Lang::C, &["-flto", "a.o"].map(OsString::from), &o, &Fake { has_plugin: true }).unwrap();
        assert!(!a.args.contains(&OsString::from("-mllvm")) && a.env.len() == 1 && a.loads_plugin, "{a:?}");
    }

    #[test]
    fn plugin_options_go_exactly_where_the_plugin_is_loaded() {
        let all = CopierOpts { threshold: Some(1), remarks: true, sanitize: true, ..d() };
        let run = |line: &str| {
            let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
            additions(Lang::C, &args, &all, &Fake { has_plugin: true }).unwrap()
        };
        // Only assembled, preprocessed or checked: no plugin, nothing for it.
        for line in ["-c a.S", "-c a.s -o a.o", "-c a.sx", "-c -x assembler-with-cpp a.asm", "-c -x assembler a.txt",
            "-E a.c", "-M a.c", "-fsyntax-only a.c", "-c a.S b.s"] {
            let a = run(line);
            assert!(!a.loads_plugin && a.env.is_empty(), "{line}: {a:?}");
            let only_asm = ["-c a.s -o a.o", "-c -x assembler a.txt"].contains(&line);
            let expect: &[&str] = if only_asm { &[] } else { &["-idirafter", "/i"] };
            assert_eq!(a.args, expect, "{line}");
        }
        // Some input compiled to code: the plugin, its options for cc1 only
        // (-Xclang), remarks and the environment.
        for line in ["-c a.c", "-c a.c b.S", "-flto -c a.c b.s", "-c -x assembler a.s -x none b.cc", "-c a.S -x c b.inc"] {
            let a = run(line);
            let s: Vec<&str> = a.args.iter().map(|x| x.to_str().unwrap()).collect();
            assert!(a.loads_plugin && s.contains(&"-fpass-plugin=/p/libcopiergen.so"), "{line}: {s:?}");
            assert!(s.windows(4).any(|w| w == ["-Xclang", "-mllvm", "-Xclang", "-copiergen-threshold=1"]), "{line}: {s:?}");
            assert_eq!(s.iter().filter(|x| **x == "-mllvm").count(), 1, "{line}: {s:?}");
            assert!(s.contains(&"-Rpass=copiergen"), "{line}: {s:?}");
            let env = a.env.iter().find(|(k, _)| *k == plugin_env::OPTIONS).expect("COPIERGEN_OPTIONS").1.to_str().unwrap();
            assert!(env.contains("-copiergen-threshold=1") && env.contains("-copier-sanitizer"), "{line}: {env}");
        }
        // --copier-no-rewrite loads no plugin anywhere.
        let o = CopierOpts { no_rewrite: true, ..all.clone() };
        let a = additions(Lang::C, &["-c", "a.c"].map(OsString::from), &o, &Fake { has_plugin: true }).unwrap();
        assert!(!a.loads_plugin && a.env.is_empty() && !a.args.iter().any(|x| x == "-mllvm" || x == "-Rpass=copiergen"), "{a:?}");
    }
}
