//! The reserved libcopier names that the inputs of an `-flto` link define
//! themselves (`void __copier_csync(void *, size_t) {...}` in a bitcode
//! object).
//!
//! At `-flto` the pass runs after the link has chosen its archive members,
//! so `copiergen cc` forces libcopier in (`--undefined=__copier_csync_all`);
//! an input that defines one of libcopier's reserved symbols
//! (`copier_abi::symbols::is_reserved`) would then clash with it ("duplicate
//! symbol"), and `copiergen cc` stops with an error naming it. The public
//! names (`csync`) are weak in libcopier: a program may define them. The
//! inputs' symbols are read with LLVM 22's `llvm-nm`, which reads bitcode,
//! ELF objects and archives alike.

use std::ffi::{OsStr, OsString};
use std::path::Path;
use std::process::{Command, Stdio};

use copier_abi::symbols;

/// The first `(input, name)` among `objects` (object files, bitcode files,
/// archives: `archive:member`) whose external definitions include one of
/// libcopier's reserved symbols. libcopier's own archives given as inputs
/// (`libcopier.a`, `libcopier_san.a`) are not looked at. `None` when there
/// is none, or when `llvm-nm` cannot be run or fails (the link then goes on
/// as before; its own error names any clash).
pub fn defined_runtime_name(objects: &[OsString]) -> Option<(OsString, String)> {
    let is_libcopier = |o: &OsString| Path::new(o).file_name().is_some_and(|f| f == "libcopier.a" || f == "libcopier_san.a");
    let objects: Vec<&OsString> = objects.iter().filter(|o| !is_libcopier(o)).collect();
    if objects.is_empty() {
        return None;
    }
    let out = Command::new(llvm_nm())
        .args(["-A", "-j", "--defined-only", "--extern-only"])
        // Inputs never start with '-' (classify takes those for options);
        // llvm-nm rejects a `--`.
        .args(objects)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    first_runtime_name(&String::from_utf8_lossy(&out.stdout))
}

/// The first line `input: name` of `llvm-nm -A -j` output whose name is
/// reserved for libcopier.
fn first_runtime_name(listing: &str) -> Option<(OsString, String)> {
    listing.lines().find_map(|l| {
        let (input, name) = l.rsplit_once(": ")?;
        symbols::is_reserved(name).then(|| (OsStr::new(input).to_owned(), name.to_owned()))
    })
}

/// `llvm-nm` of LLVM 22: `$LLVM_PREFIX/bin/llvm-nm` when set, else
/// `llvm-nm-22` on PATH.
fn llvm_nm() -> OsString {
    match std::env::var_os("LLVM_PREFIX").filter(|p| !p.is_empty()) {
        Some(p) => std::path::Path::new(&p).join("bin/llvm-nm").into_os_string(),
        None => "llvm-nm-22".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_runtime_name_in_objects_and_archive_members() {
        let l = "a.o: main\na.o: csync\nlib.a:m.o: helper\nlib.a:m.o: __copier_csync\n";
        assert_eq!(first_runtime_name(l), Some(("lib.a:m.o".into(), "__copier_csync".to_owned())));
        // Public names are the program's to define; __copiergen_* is the
        // pass's own (weak, hidden).
        assert_eq!(first_runtime_name("a.o: main\na.o: amemcpy_lazy\na.o: csync\na.o: __copiergen_runtime_anchor\n"), None);
    }
}
