//! Where copiergen finds the pass plugin, libcopier and `copier.h`.
//!
//! Two layouts are recognised relative to the running executable, plus
//! environment overrides that win over both:
//!
//! | what | cargo layout (`<repo>/target/<profile>/copiergen`) | install layout (`<prefix>/bin/copiergen`) | override |
//! | --- | --- | --- | --- |
//! | pass plugin | `target/<profile>/libcopiergen.so` | `<prefix>/lib/libcopiergen.so` | `COPIERGEN_PLUGIN` (file) |
//! | libcopier | `target/<profile>/libcopier.{a,so}` | `<prefix>/lib/libcopier.{a,so}` | `COPIER_LIB_DIR` (dir) |
//! | header | `<repo>/runtime/include/copier.h` | `<prefix>/include/copier.h` | `COPIER_INCLUDE_DIR` (dir) |
//!
//! In the cargo layout a debug `copiergen` also finds the release plugin and
//! libraries (`target/release/`), since those are what `cargo build
//! --release` produces. The header is last looked for in the source tree
//! copiergen was built from, for a `CARGO_TARGET_DIR` outside the checkout.

use std::path::{Path, PathBuf};

use crate::error::Error;

/// Environment variable naming the pass plugin file.
pub const ENV_PLUGIN: &str = "COPIERGEN_PLUGIN";
/// Environment variable naming the directory holding `libcopier.{a,so}`.
pub const ENV_LIB_DIR: &str = "COPIER_LIB_DIR";
/// Environment variable naming the directory holding `copier.h`.
pub const ENV_INCLUDE_DIR: &str = "COPIER_INCLUDE_DIR";

/// File name of the pass plugin.
pub const PLUGIN_FILE: &str = "libcopiergen.so";
/// File name of the header.
pub const HEADER_FILE: &str = "copier.h";

/// The directories copiergen searches, in order, derived from the executable.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Candidate directories for the plugin and libraries.
    pub lib_dirs: Vec<PathBuf>,
    /// Candidate directories for `copier.h`.
    pub include_dirs: Vec<PathBuf>,
}

impl Layout {
    /// Layout around the running executable (symlinks resolved, so a
    /// `copiergen-cc` symlink elsewhere still finds the real tree).
    pub fn from_current_exe() -> Layout {
        let exe = std::env::current_exe()
            .and_then(|p| p.canonicalize())
            .unwrap_or_else(|_| PathBuf::from("copiergen"));
        Layout::around(&exe)
    }

    /// Layout around an executable path `exe`.
    pub fn around(exe: &Path) -> Layout {
        let bin_dir = exe.parent().unwrap_or(Path::new(".")).to_path_buf();
        let mut lib_dirs = vec![bin_dir.clone()];
        let mut include_dirs = Vec::new();
        // Install layout: <prefix>/bin → <prefix>/lib, <prefix>/include.
        if let Some(prefix) = bin_dir.parent() {
            lib_dirs.push(prefix.join("lib"));
            include_dirs.push(prefix.join("include"));
        }
        // Cargo layout: the nearest ancestor holding target/ and the sources.
        for dir in bin_dir.ancestors() {
            if dir.file_name().is_some_and(|n| n == "target") {
                lib_dirs.push(dir.join("release"));
                if let Some(repo) = dir.parent() {
                    include_dirs.push(repo.join("runtime").join("include"));
                }
                break;
            }
        }
        // Last resort: the source tree copiergen was built from (a cargo
        // build with CARGO_TARGET_DIR outside the checkout).
        include_dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("runtime").join("include"));
        let mut seen = std::collections::HashSet::new();
        lib_dirs.retain(|d| seen.insert(d.clone()));
        Layout { lib_dirs, include_dirs }
    }

    /// The pass plugin: `COPIERGEN_PLUGIN`, else the first candidate that exists.
    ///
    /// # Errors
    /// [`Error::Missing`] naming the places searched and how to build it.
    pub fn plugin(&self) -> Result<PathBuf, Error> {
        if let Some(p) = std::env::var_os(ENV_PLUGIN).filter(|p| !p.is_empty()) {
            let p = PathBuf::from(p);
            if !p.is_file() {
                return Err(Error::missing(
                    format!("pass plugin {} (from {ENV_PLUGIN})", p.display()),
                    "fix or unset COPIERGEN_PLUGIN",
                ));
            }
            return match check_plugin(&p) {
                Ok(()) => Ok(p),
                Err(reason) => Err(Error::Unusable {
                    what: format!("{} (from {ENV_PLUGIN})", p.display()),
                    reason,
                    fix: "point COPIERGEN_PLUGIN at libcopiergen.so or unset it".into(),
                }),
            };
        }
        let p = find_file(&self.lib_dirs, PLUGIN_FILE).ok_or_else(|| {
            Error::missing(
                format!("pass plugin {PLUGIN_FILE} (looked in {})", show(&self.lib_dirs)),
                "build it with `cargo build --release` or set COPIERGEN_PLUGIN",
            )
        })?;
        check_plugin(&p).map(|()| p.clone()).map_err(|reason| Error::Unusable {
            what: p.display().to_string(),
            reason,
            fix: "rebuild it with `cargo build --release`".into(),
        })
    }

    /// Directory holding `file` (`libcopier.a`, `libcopier.so`,
    /// `libcopier_san.a`): `COPIER_LIB_DIR`, else the first candidate.
    ///
    /// # Errors
    /// [`Error::Missing`] naming the places searched and how to build it.
    pub fn lib_dir_with(&self, file: &str) -> Result<PathBuf, Error> {
        find_dir(ENV_LIB_DIR, &self.lib_dirs, file, "build it with `cargo build --release` or set COPIER_LIB_DIR")
    }

    /// Directory holding `copier.h`: `COPIER_INCLUDE_DIR`, else the first candidate.
    ///
    /// # Errors
    /// [`Error::Missing`] naming the places searched.
    pub fn include_dir(&self) -> Result<PathBuf, Error> {
        find_dir(ENV_INCLUDE_DIR, &self.include_dirs, HEADER_FILE, "set COPIER_INCLUDE_DIR or run `copiergen install --prefix DIR`")
    }
}

/// The directory holding `file`: the one named by `env` if set (and then
/// only that one), else the first of `candidates`.
fn find_dir(env: &str, candidates: &[PathBuf], file: &str, fix: &str) -> Result<PathBuf, Error> {
    if let Some(d) = std::env::var_os(env).filter(|p| !p.is_empty()) {
        let d = PathBuf::from(d);
        return if d.join(file).is_file() {
            Ok(d)
        } else {
            Err(Error::missing(format!("{file} in {} (from {env})", d.display()), format!("fix or unset {env}")))
        };
    }
    candidates
        .iter()
        .find(|d| d.join(file).is_file())
        .cloned()
        .ok_or_else(|| Error::missing(format!("{file} (looked in {})", show(candidates)), fix))
}

/// Check that `path` is an LLVM pass plugin clang-22 and opt-22 can load:
/// an x86-64 ELF shared object defining `llvmGetPassPluginInfo` (the entry
/// point of LLVM's `PassPlugin::Load`, llvm/Passes/PassPlugin.h). Reads only
/// the ELF headers and dynamic symbol table.
///
/// # Errors
/// A one-phrase reason.
pub fn check_plugin(path: &Path) -> Result<(), String> {
    use object::read::elf::ElfFile64;
    use object::{Object, ObjectKind, ObjectSymbol};
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let cache = object::ReadCache::new(file);
    let not_plugin = "not an LLVM pass plugin (not a 64-bit ELF shared object)";
    let elf = ElfFile64::<object::Endianness, _>::parse(&cache).map_err(|_| not_plugin.to_owned())?;
    if elf.kind() != ObjectKind::Dynamic {
        return Err(not_plugin.into());
    }
    if elf.architecture() != object::Architecture::X86_64 {
        return Err(format!("built for {:?}, not x86-64", elf.architecture()));
    }
    let entry = elf
        .dynamic_symbols()
        .any(|s| !s.is_undefined() && s.name_bytes().is_ok_and(|n| n == b"llvmGetPassPluginInfo"));
    if !entry {
        return Err("not an LLVM pass plugin (it defines no llvmGetPassPluginInfo)".into());
    }
    Ok(())
}

fn find_file(dirs: &[PathBuf], file: &str) -> Option<PathBuf> {
    dirs.iter().map(|d| d.join(file)).find(|p| p.is_file())
}

fn show(dirs: &[PathBuf]) -> String {
    dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_layout_searches_profile_then_release_and_repo_headers() {
        let l = Layout::around(Path::new("/r/target/debug/copiergen"));
        assert_eq!(l.lib_dirs[0], Path::new("/r/target/debug"));
        assert!(l.lib_dirs.contains(&PathBuf::from("/r/target/release")));
        assert!(l.include_dirs.contains(&PathBuf::from("/r/runtime/include")));
        let l = Layout::around(Path::new("/r/target/x86_64-unknown-linux-gnu/release/copiergen"));
        assert!(l.include_dirs.contains(&PathBuf::from("/r/runtime/include")));
    }

    #[test]
    fn plugin_check_rejects_files_that_are_not_plugins() {
        let dir = std::env::temp_dir().join(format!("copiergen-plugin-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("text.so");
        std::fs::write(&text, "root:x:0:0:root:/root:/bin/bash\n").unwrap();
        assert!(check_plugin(&text).unwrap_err().contains("not an LLVM pass plugin"));
        // A real shared object that is not a plugin (the C library).
        let libc = Path::new("/lib/x86_64-linux-gnu/libc.so.6");
        assert!(check_plugin(libc).unwrap_err().contains("llvmGetPassPluginInfo"));
        // An executable is not a shared object.
        assert!(check_plugin(Path::new("/bin/sh")).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn header_falls_back_to_the_source_tree_copiergen_was_built_from() {
        let l = Layout::around(Path::new("/elsewhere/target/release/copiergen"));
        let last = l.include_dirs.last().unwrap();
        assert!(last.join(HEADER_FILE).is_file(), "{}", last.display());
    }

    #[test]
    fn install_layout_uses_prefix_lib_and_include() {
        let l = Layout::around(Path::new("/opt/copier/bin/copiergen"));
        assert_eq!(l.lib_dirs, [PathBuf::from("/opt/copier/bin"), PathBuf::from("/opt/copier/lib")]);
        assert_eq!(l.include_dirs[0], PathBuf::from("/opt/copier/include"));
    }
}
