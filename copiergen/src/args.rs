//! Classification of a clang driver command line: does it link, compile only,
//! preprocess only, or only ask for information?
//!
//! `copiergen cc` passes every clang argument through unchanged and only adds
//! its own (plugin, include directory, libcopier). What it adds depends on the
//! driver's *action*, which this module derives the way clang's driver does
//! (`clang/include/clang/Driver/Options.td`, `Driver::getFinalPhase`): the last
//! phase is chosen by `-E`/`-M`/`-MM` (preprocess), `-fsyntax-only`,
//! `-S`/`-c` (compile), otherwise link. Response files (`@file`) are expanded
//! for classification only; the original arguments still reach clang.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What the clang driver will do with a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Prints information only (`--version`, `-v` or `-print-*` with no input
    /// file): copiergen adds nothing.
    Info,
    /// Stops after preprocessing (`-E`, `-M`, `-MM`): copiergen adds only the
    /// include directory of `copier.h`.
    Preprocess,
    /// Parses and checks only (`-fsyntax-only`, `--analyze`): include directory only.
    SyntaxOnly,
    /// Compiles to assembly, IR or an object (`-S`, `-c`, `--precompile`):
    /// include directory and the pass plugin.
    Compile,
    /// Compiles (if given sources) and links: include directory, pass plugin,
    /// and libcopier at the end of the link line.
    Link,
}

/// Facts about a clang command line that decide what copiergen adds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Invocation {
    /// Last phase the driver runs; see [`Action`].
    pub action: Option<Action>,
    /// Number of input files (sources, objects, archives, `-` for stdin).
    pub inputs: usize,
    /// How many of the inputs clang compiles (C, C++, IR, preprocessed or
    /// `-x`-typed), as opposed to objects and libraries it only links.
    pub sources: usize,
    /// How many of [`Self::sources`] are assembly (`.s`, `.S`, `.sx`,
    /// `-x assembler`, `-x assembler-with-cpp`): clang only preprocesses
    /// and assembles them (cc1as), so no job for them loads the pass plugin.
    pub asm_sources: usize,
    /// How many inputs clang preprocesses (C-family sources and headers,
    /// `.S`, `-x assembler-with-cpp`; not `.s`, `.i`, `.ll`, `.bc`, objects):
    /// only their jobs use include directories.
    pub preprocessed: usize,
    /// The inputs clang only links (objects, bitcode files, archives), in
    /// order.
    pub objects: Vec<OsString>,
    /// `-shared`: the link produces a shared object.
    pub shared: bool,
    /// `-static` or `-static-pie`: no shared libraries at run time.
    pub static_link: bool,
    /// `-r` / `--relocatable` / `-Wl,-r`: a partial link whose output is an
    /// object file; libcopier is not added (it is added at the final link).
    pub relocatable: bool,
    /// `-nostdlib`: a freestanding link; libcopier is not added.
    pub nostdlib: bool,
    /// `-flto[=…]` not cancelled by a later `-fno-lto`.
    pub lto: bool,
    /// The value of the last `-fuse-ld=`, if any.
    pub fuse_ld: Option<OsString>,
    /// Options that hand the linker an input of its own (`-l`, `-Wl,`,
    /// `-Xlinker`, `-z`, `-e`): with these a line without input files still
    /// links, as in clang's driver (`LinkerInput` options in Options.td).
    pub linker_inputs: usize,
    /// The last `--target=`/`-target` value, if any.
    pub target: Option<OsString>,
    /// The last of `-m16`, `-m32`, `-mx32`, `-m64`, which overrides the
    /// target's architecture (clang's `computeTargetTriple`).
    pub arch_override: Option<&'static str>,
}

impl Invocation {
    /// The driver's action; `Link` when no flag stops it earlier.
    pub fn action(&self) -> Action {
        self.action.unwrap_or(Action::Link)
    }

    /// Whether libcopier must be added to this command line: a final link
    /// (not partial, not freestanding).
    pub fn adds_runtime(&self) -> bool {
        self.action() == Action::Link && !self.relocatable && !self.nostdlib
    }

    /// Whether the pass plugin must be loaded by the compiler.
    pub fn adds_plugin(&self) -> bool {
        matches!(self.action(), Action::Compile | Action::Link)
    }

    /// Whether some job of this line compiles an input to code with clang's
    /// cc1 (C, C++, Objective-C, IR, …), the only jobs that load
    /// `-fpass-plugin` libraries and parse the plugin's `-mllvm` options. A
    /// line whose sources are all assembly runs none: the integrated
    /// assembler (cc1as) loads no plugin and rejects its options.
    pub fn compiles_code(&self) -> bool {
        self.adds_plugin() && self.sources > self.asm_sources
    }

    /// Whether the line names nothing to compile or link: clang then stops
    /// with "no input files", and copiergen adds nothing that would hide it.
    pub fn has_no_input(&self) -> bool {
        self.inputs == 0 && self.linker_inputs == 0
    }

    /// The flag that selects a target other than x86-64 Linux with glibc
    /// (the only one the plugin and libcopier are built for), rendered as
    /// the user wrote it (`--target=aarch64-linux-gnu`, `-m32`), or `None`.
    pub fn foreign_target(&self) -> Option<String> {
        let triple = self.target.as_ref().map(|t| t.to_string_lossy().into_owned());
        match self.arch_override {
            Some("-m64") => {
                // -m64 turns an x86 triple into its x86-64 form.
                let t = triple?;
                let x86 = x86_family(t.split('-').next().unwrap_or(""));
                let rest = t.split_once('-').map_or("", |(_, r)| r);
                (!x86 || !linux_gnu(rest)).then(|| format!("--target={t}"))
            }
            Some(m) => Some(m.to_owned()),
            None => triple.filter(|t| !target_supported(t)).map(|t| format!("--target={t}")),
        }
    }
}

fn x86_family(arch: &str) -> bool {
    matches!(arch, "x86_64" | "amd64" | "x86" | "i386" | "i486" | "i586" | "i686")
}

/// `<vendor>-linux[-gnu]` or `linux[-gnu]` after the architecture of a triple.
fn linux_gnu(rest: &str) -> bool {
    let parts: Vec<&str> = rest.split('-').collect();
    let Some(os) = parts.iter().position(|p| p.starts_with("linux")) else { return false };
    os <= 1 && matches!(&parts[os + 1..], [] | ["gnu"])
}

/// Whether a target triple (`--target=` value) is x86-64 Linux with glibc:
/// `x86_64-linux-gnu`, `x86_64-pc-linux-gnu`, `x86_64-unknown-linux-gnu`,
/// `x86_64-linux`, `amd64-…` (LLVM's `Triple` parses `amd64` as x86-64).
/// x32 (`-gnux32`), musl, Android and other OSes are not.
pub fn target_supported(triple: &str) -> bool {
    let (arch, rest) = triple.split_once('-').unwrap_or((triple, ""));
    matches!(arch, "x86_64" | "amd64") && linux_gnu(rest)
}

/// Clang driver options whose value is the *next* argument when the option is
/// given alone (`Separate` and `JoinedOrSeparate` kinds in clang's
/// Options.td). Only exact matches consume the next argument: a joined form
/// (`-Ifoo`, `-o out`'s `-oout`) is one token.
const SEPARATE_VALUE: &[&str] = &[
    "-o", "-x", "-I", "-L", "-l", "-D", "-U", "-F", "-B", "-T", "-u", "-z", "-e",
    "-include", "-imacros", "-include-pch", "-isystem", "-idirafter", "-iquote",
    "-isysroot", "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-iframework",
    "-iwithsysroot", "-isystem-after", "-cxx-isystem", "-iframeworkwithsysroot",
    "-MF", "-MT", "-MQ", "-MJ", "-Xlinker", "-Xclang", "-Xassembler",
    "-Xpreprocessor", "-Xanalyzer", "-Xopenmp-target", "-Xcuda-ptxas",
    "-Xcuda-fatbinary", "-Xoffload-linker", "-mllvm", "-target", "-arch",
    "-rpath", "-install_name", "-working-directory", "-dependency-file",
    "-dependency-dot", "-serialize-diagnostics", "-ccc-install-dir",
    "-ccc-gcc-name", "-ccc-arcmt-migrate", "-ccc-objcmt-migrate", "-aux-info",
    "-G", "-A", "-b", "-V", "-exported_symbols_list", "-bundle_loader",
    "--output", "--language", "--include-directory", "--include-directory-after",
    "--include-prefix", "--include-with-prefix", "--include-with-prefix-before",
    "--include-with-prefix-after", "--define-macro", "--undefine-macro",
    "--library-directory", "--include", "--imacros", "--sysroot", "--config",
    "--param", "--prefix", "--serialize-diagnostics", "--system-header-prefix",
    "--no-system-header-prefix", "--assert", "--dependent-lib", "--entry",
    "--for-linker", "--force-link", "--mhwdiv", "--output-class-directory",
];

/// Options that print information and, without input files, make the driver
/// do nothing else.
fn is_info_flag(a: &[u8]) -> bool {
    matches!(
        a,
        b"--version" | b"-v" | b"--verbose" | b"-dumpversion" | b"-dumpmachine"
            | b"-dumpspecs" | b"--help" | b"-help" | b"--help-hidden" | b"-###"
    ) || a.starts_with(b"-print-")
        || a.starts_with(b"--print-")
}

/// Whether a file name has an extension clang compiles (rather than passing
/// the file to the linker), per clang's `types::lookupTypeForExtension`.
fn is_source_file(name: &[u8]) -> bool {
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else { return false };
    matches!(
        &name[dot + 1..],
        b"c" | b"i" | b"cc" | b"cp" | b"cxx" | b"cpp" | b"CPP" | b"c++" | b"C" | b"ii" | b"m" | b"mi"
            | b"mm" | b"M" | b"mii" | b"ll" | b"bc" | b"cppm" | b"ixx" | b"cu" | b"hip" | b"S" | b"s" | b"sx"
    )
}

/// Whether a file name is assembly by its extension (`.s`; `.S` and `.sx`
/// are preprocessed first), per clang's `types::lookupTypeForExtension`.
fn is_asm_file(name: &[u8]) -> bool {
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else { return false };
    matches!(&name[dot + 1..], b"s" | b"S" | b"sx")
}

/// Whether clang preprocesses a source file, by its extension (clang's
/// `types::getPreprocessedType` is set for these).
fn is_preprocessed_file(name: &[u8]) -> bool {
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else { return false };
    matches!(
        &name[dot + 1..],
        b"c" | b"cc" | b"cp" | b"cxx" | b"cpp" | b"CPP" | b"c++" | b"C" | b"m" | b"mm" | b"M" | b"cppm" | b"ixx" | b"cu"
            | b"hip" | b"S" | b"sx"
    )
}

/// Whether clang preprocesses an input of `-x` language `l`: every language
/// but assembly, IR and the already preprocessed (`*cpp-output`) ones.
fn language_is_preprocessed(l: &[u8]) -> bool {
    !(matches!(l, b"assembler" | b"ir" | b"ast" | b"pcm" | b"precompiled-header") || l.ends_with(b"cpp-output"))
}

/// Whether a file name is a header clang precompiles (`.h`, `.hpp`, …).
fn is_header_file(name: &[u8]) -> bool {
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else { return false };
    matches!(&name[dot + 1..], b"h" | b"hh" | b"hpp" | b"hxx" | b"H" | b"h++" | b"hp" | b"tcc")
}

/// Maximum nesting of `@file` response files followed (clang's own limit is
/// also finite; a cycle must not hang the wrapper).
const MAX_RESPONSE_DEPTH: usize = 16;

/// Classify a clang command line (arguments after the program name).
///
/// Response files (`@path`) are read and classified as if inline; an
/// unreadable one is left to clang, which reports it.
pub fn classify(args: &[OsString]) -> Invocation {
    let mut flat = Vec::with_capacity(args.len());
    expand_response_files(args, &mut flat, 0);
    classify_flat(&flat)
}

fn classify_flat(args: &[OsString]) -> Invocation {
    let mut inv = Invocation::default();
    let mut saw_info = false;
    let mut preprocess = false;
    let mut syntax_only = false;
    let mut compile = false;
    let mut only_args = false;
    let mut headers = 0usize;
    let mut language: Option<&[u8]> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_bytes();
        i += 1;
        if only_args || arg == b"-" || !arg.starts_with(b"-") {
            inv.inputs += 1;
            let header = match language {
                Some(l) if l != b"none" => l.ends_with(b"-header"),
                _ => is_header_file(arg),
            };
            let typed = language.filter(|l| *l != b"none");
            if typed.map_or(header || is_preprocessed_file(arg), language_is_preprocessed) {
                inv.preprocessed += 1;
            }
            if header {
                headers += 1;
            } else if let Some(l) = language.filter(|l| *l != b"none") {
                inv.sources += 1;
                if matches!(l, b"assembler" | b"assembler-with-cpp") {
                    inv.asm_sources += 1;
                }
            } else if is_source_file(arg) {
                inv.sources += 1;
                if is_asm_file(arg) {
                    inv.asm_sources += 1;
                }
            } else if arg != b"-" {
                inv.objects.push(OsStr::from_bytes(arg).to_owned());
            }
            continue;
        }
        if arg == b"-x" || arg == b"--language" {
            language = args.get(i).map(|l| l.as_bytes());
        } else if let Some(l) = arg.strip_prefix(b"-x").or_else(|| arg.strip_prefix(b"--language=")) {
            language = Some(l);
        }
        if arg == b"--" {
            only_args = true;
            continue;
        }
        if matches!(arg, b"-l" | b"-Xlinker" | b"-z" | b"-e" | b"--entry" | b"--for-linker" | b"--force-link") {
            inv.linker_inputs += 1;
        }
        // clang spells it `--target=T` or `-target T` (Options.td `target`,
        // `target_legacy_spelling`); other spellings are its own errors.
        if arg == b"-target" {
            inv.target = args.get(i).cloned();
        } else if let Some(t) = arg.strip_prefix(b"--target=") {
            inv.target = Some(OsStr::from_bytes(t).to_owned());
        }
        if SEPARATE_VALUE.iter().any(|s| s.as_bytes() == arg) {
            // The value names no input file (for -l it is a library, which the
            // driver treats as a linker input but not as a reason to link).
            i += 1;
            continue;
        }
        if arg.starts_with(b"-Xarch_") {
            i += 1;
            continue;
        }
        match arg {
            b"-E" | b"--preprocess" | b"-M" | b"-MM" | b"--dependencies"
            | b"--user-dependencies" => preprocess = true,
            b"-fsyntax-only" | b"--analyze" | b"-emit-ast" => syntax_only = true,
            b"-c" | b"--compile" | b"-S" | b"--assemble" | b"--precompile" => compile = true,
            b"-shared" | b"--shared" => inv.shared = true,
            b"-static" | b"--static" | b"-static-pie" => inv.static_link = true,
            b"-r" | b"--relocatable" => inv.relocatable = true,
            b"-nostdlib" | b"--no-standard-libraries" => inv.nostdlib = true,
            b"-fno-lto" => inv.lto = false,
            b"-m16" => inv.arch_override = Some("-m16"),
            b"-m32" => inv.arch_override = Some("-m32"),
            b"-mx32" => inv.arch_override = Some("-mx32"),
            b"-m64" => inv.arch_override = Some("-m64"),
            _ => {
                if is_info_flag(arg) {
                    saw_info = true;
                } else if arg == b"-flto" || arg.starts_with(b"-flto=") {
                    inv.lto = true;
                } else if let Some(v) = arg.strip_prefix(b"-fuse-ld=") {
                    inv.fuse_ld = Some(OsStr::from_bytes(v).to_owned());
                } else if arg.starts_with(b"-l") || arg.starts_with(b"-Wl,") {
                    inv.linker_inputs += 1;
                }
                if let Some(list) = arg.strip_prefix(b"-Wl,") {
                    if list.split(|&b| b == b',').any(|w| w == b"-r" || w == b"--relocatable") {
                        inv.relocatable = true;
                    }
                }
            }
        }
    }
    inv.action = Some(if saw_info && inv.inputs == 0 {
        Action::Info
    } else if preprocess {
        Action::Preprocess
    } else if syntax_only || headers > 0 {
        // A header input makes the driver precompile it (-emit-pch): no
        // code is generated and nothing is linked.
        Action::SyntaxOnly
    } else if compile {
        Action::Compile
    } else {
        Action::Link
    });
    inv
}

fn expand_response_files(args: &[OsString], out: &mut Vec<OsString>, depth: usize) {
    for arg in args {
        let bytes = arg.as_bytes();
        if bytes.len() > 1 && bytes[0] == b'@' && depth < MAX_RESPONSE_DEPTH {
            let path = Path::new(OsStr::from_bytes(&bytes[1..]));
            if let Ok(text) = std::fs::read(path) {
                let inner = split_response_file(&text);
                expand_response_files(&inner, out, depth + 1);
                continue;
            }
        }
        out.push(arg.clone());
    }
}

/// Split a response file the way GNU tools do (LLVM's
/// `cl::TokenizeGNUCommandLine`): whitespace separates arguments; single
/// quotes keep everything literally; double quotes keep whitespace; a
/// backslash outside single quotes escapes the next character.
pub fn split_response_file(text: &[u8]) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut in_token = false;
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        match c {
            b'\\' if i + 1 < text.len() => {
                cur.push(text[i + 1]);
                in_token = true;
                i += 2;
                continue;
            }
            b'\'' | b'"' => {
                in_token = true;
                let quote = c;
                i += 1;
                while i < text.len() && text[i] != quote {
                    if quote == b'"' && text[i] == b'\\' && i + 1 < text.len() {
                        i += 1;
                    }
                    cur.push(text[i]);
                    i += 1;
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {
                if in_token {
                    out.push(OsStr::from_bytes(&cur).to_owned());
                    cur.clear();
                    in_token = false;
                }
            }
            _ => {
                cur.push(c);
                in_token = true;
            }
        }
        i += 1;
    }
    if in_token {
        out.push(OsStr::from_bytes(&cur).to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inv(line: &str) -> Invocation {
        let args: Vec<OsString> = line.split_whitespace().map(OsString::from).collect();
        classify(&args)
    }

    #[test]
    fn compile_only_flags_do_not_link() {
        assert_eq!(inv("-c a.c").action(), Action::Compile);
        assert_eq!(inv("-O2 -S -emit-llvm a.c -o a.ll").action(), Action::Compile);
        assert_eq!(inv("--precompile a.cppm").action(), Action::Compile);
        assert!(!inv("-c a.c -o a.o").adds_runtime());
        assert!(inv("-c a.c").adds_plugin());
    }

    #[test]
    fn preprocess_and_dependency_runs_get_no_plugin() {
        for line in ["-E a.c", "-M a.c", "-MM a.c -MF a.d", "-E -x c -"] {
            let i = inv(line);
            assert_eq!(i.action(), Action::Preprocess, "{line}");
            assert!(!i.adds_plugin(), "{line}");
            assert!(!i.adds_runtime(), "{line}");
        }
        // -MD/-MMD write dependencies as a side effect of a real compile.
        assert_eq!(inv("-MD -MF a.d -c a.c").action(), Action::Compile);
        assert_eq!(inv("-MMD a.c -o prog").action(), Action::Link);
        assert_eq!(inv("-fsyntax-only a.c").action(), Action::SyntaxOnly);
        // Precompiled headers: no code, no link.
        assert_eq!(inv("-x c-header pre.h -o pre.h.pch").action(), Action::SyntaxOnly);
        assert_eq!(inv("pre.hpp").action(), Action::SyntaxOnly);
    }

    #[test]
    fn sources_objects_and_link_only_lines_link() {
        assert_eq!(inv("a.c -o prog").action(), Action::Link);
        assert_eq!(inv("a.o b.o -o prog -lm").action(), Action::Link);
        assert_eq!(inv("a.o b.o -o prog -lm").inputs, 2);
        assert_eq!(inv("a.o b.o -o prog -lm").sources, 0);
        assert_eq!(inv("a.c b.o x.cpp -o prog").sources, 2);
        assert_eq!(inv("-x c - -x none b.o").sources, 1);
        assert!(inv("a.o -o prog").adds_runtime());
        let s = inv("-shared -fPIC a.o -o libx.so");
        assert!(s.shared && s.adds_runtime());
    }

    #[test]
    fn assembly_inputs_compile_no_code() {
        for line in ["-c a.S", "-c a.s", "-c a.sx -o a.o", "-c -x assembler-with-cpp a.asm", "-x assembler a.txt -o prog",
            "-x c -c a.c -x assembler-with-cpp -c b.c"] {
            let i = inv(line);
            assert_eq!(i.asm_sources, if line.starts_with("-x c ") { 1 } else { i.sources }, "{line}");
            assert_eq!(i.compiles_code(), line.starts_with("-x c "), "{line}");
        }
        for line in ["-c a.c b.S", "a.c b.s -o prog", "-c a.S -x c b.inc", "-c -x assembler a.s -x none b.cc", "-c a.ll b.S"] {
            let i = inv(line);
            assert!(i.asm_sources == 1 && i.compiles_code(), "{line}");
        }
        // Include directories are used by preprocessed inputs only.
        for (line, n) in [("-c a.s", 0), ("-c a.S", 1), ("-c a.ll a.i b.bc", 0), ("-c -x assembler a.S", 0), ("a.o -o p", 0),
            ("-c a.c b.s x.h", 2), ("-x c - -x none a.s", 1), ("-x cpp-output a.c", 0), ("-x assembler-with-cpp a.s", 1)] {
            assert_eq!(inv(line).preprocessed, n, "{line}");
        }
        // No job at all compiles code for these.
        assert!(!inv("-E a.c").compiles_code());
        assert!(!inv("a.o b.o -o prog").compiles_code());
        assert!(!inv("-fsyntax-only a.c").compiles_code());
    }

    #[test]
    fn separate_values_are_not_inputs() {
        let i = inv("-o prog -I inc -D X=1 -include pre.h -MF dep.d -x c -l m -Xlinker --gc-sections -v");
        assert_eq!(i.inputs, 0);
        assert_eq!(i.action(), Action::Info);
        assert_eq!(inv("-isystem inc -c a.c").inputs, 1);
    }

    #[test]
    fn info_only_invocations_get_nothing() {
        for line in ["--version", "-v", "-dumpmachine", "-print-search-dirs", "--print-resource-dir", "-###"] {
            assert_eq!(inv(line).action(), Action::Info, "{line}");
            assert!(!inv(line).adds_plugin(), "{line}");
        }
        // -v with an input is a verbose compile or link.
        assert_eq!(inv("-v a.c").action(), Action::Link);
        assert_eq!(inv("-v -c a.c").action(), Action::Compile);
    }

    #[test]
    fn partial_and_freestanding_links_get_no_runtime() {
        assert!(!inv("-r a.o b.o -o ab.o").adds_runtime());
        assert!(!inv("-Wl,-r a.o b.o -o ab.o").adds_runtime());
        assert!(!inv("-nostdlib a.o -o k").adds_runtime());
        assert!(inv("-nodefaultlibs a.o -o k").adds_runtime());
    }

    #[test]
    fn lto_and_linker_choice_are_tracked() {
        assert!(inv("-flto=thin a.o -o p").lto);
        assert!(!inv("-flto -fno-lto a.o -o p").lto);
        assert_eq!(inv("-fuse-ld=lld a.o").fuse_ld.as_deref(), Some(OsStr::new("lld")));
        assert!(inv("-static a.o").static_link);
    }

    #[test]
    fn response_files_are_expanded_for_classification() {
        let dir = std::env::temp_dir().join(format!("copiergen-rsp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let rsp = dir.join("objs.rsp");
        std::fs::write(&rsp, "a.o 'b c.o'\n\"-c\"").unwrap();
        let i = classify(&[OsString::from(format!("@{}", rsp.display()))]);
        assert_eq!(i.inputs, 2);
        assert_eq!(i.action(), Action::Compile);
        std::fs::write(&rsp, format!("@{}", rsp.display())).unwrap();
        // A self-including response file terminates.
        let i = classify(&[OsString::from(format!("@{}", rsp.display()))]);
        assert_eq!(i.action(), Action::Link);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn targets_other_than_x86_64_linux_gnu_are_named() {
        for ok in ["a.c", "--target=x86_64-linux-gnu a.c", "-target x86_64-pc-linux-gnu a.c", "--target=x86_64-unknown-linux-gnu -c a.c",
            "--target=amd64-linux a.c", "-m64 a.c", "--target=i686-linux-gnu -m64 a.c", "-m32 -m64 a.c"] {
            assert_eq!(inv(ok).foreign_target(), None, "{ok}");
        }
        for (bad, flag) in [
            ("--target=aarch64-linux-gnu -c a.c", "--target=aarch64-linux-gnu"),
            ("-target riscv64-linux-gnu a.c", "--target=riscv64-linux-gnu"),
            ("--target=i686-linux-gnu a.c", "--target=i686-linux-gnu"),
            ("--target=wasm32-unknown-unknown a.c", "--target=wasm32-unknown-unknown"),
            ("--target=x86_64-linux-gnux32 a.c", "--target=x86_64-linux-gnux32"),
            ("--target=x86_64-linux-musl a.c", "--target=x86_64-linux-musl"),
            ("--target=x86_64-w64-mingw32 a.c", "--target=x86_64-w64-mingw32"),
            ("--target=aarch64-linux-gnu -m64 a.c", "--target=aarch64-linux-gnu"),
            ("-m32 -c a.c", "-m32"),
            ("-m64 -mx32 a.o", "-mx32"),
            ("-m16 a.c", "-m16"),
        ] {
            assert_eq!(inv(bad).foreign_target().as_deref(), Some(flag), "{bad}");
        }
        // `-target T` takes its value: T is not an input.
        assert_eq!(inv("-target aarch64-linux-gnu -c a.c").inputs, 1);
    }

    #[test]
    fn lines_without_inputs_are_told_apart_from_linker_only_lines() {
        assert!(inv("").has_no_input());
        assert!(inv("-O2 -o prog").has_no_input());
        assert!(inv("-c").has_no_input());
        for line in ["-lm", "-l m", "-Wl,foo.o", "-Xlinker x.o", "-z now", "a.o"] {
            assert!(!inv(line).has_no_input(), "{line}");
        }
    }

    #[test]
    fn gnu_response_file_quoting() {
        let v = split_response_file(br#"a\ b 'c d' "e \"f\"" g"#);
        let v: Vec<_> = v.iter().map(|s| s.to_str().unwrap()).collect();
        assert_eq!(v, ["a b", "c d", "e \"f\"", "g"]);
    }
}
