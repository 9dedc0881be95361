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
//! --release` produces.

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
            return if p.is_file() {
                Ok(p)
            } else {
                Err(Error::missing(
                    format!("pass plugin {} (from {ENV_PLUGIN})", p.display()),
                    "fix or unset COPIERGEN_PLUGIN",
                ))
            };
        }
        find_file(&self.lib_dirs, PLUGIN_FILE).ok_or_else(|| {
            Error::missing(
                format!("pass plugin {PLUGIN_FILE} (looked in {})", show(&self.lib_dirs)),
                "build it with `cargo build --release` or set COPIERGEN_PLUGIN",
            )
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
    let dirs = match std::env::var_os(env).filter(|p| !p.is_empty()) {
        Some(d) => vec![PathBuf::from(d)],
        None => candidates.to_vec(),
    };
    dirs.iter()
        .find(|d| d.join(file).is_file())
        .cloned()
        .ok_or_else(|| Error::missing(format!("{file} (looked in {})", show(&dirs)), fix))
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
    fn install_layout_uses_prefix_lib_and_include() {
        let l = Layout::around(Path::new("/opt/copier/bin/copiergen"));
        assert_eq!(l.lib_dirs, [PathBuf::from("/opt/copier/bin"), PathBuf::from("/opt/copier/lib")]);
        assert_eq!(l.include_dirs, [PathBuf::from("/opt/copier/include")]);
    }
}
