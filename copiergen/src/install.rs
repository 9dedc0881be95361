//! `copiergen install --prefix DIR`: the install layout that
//! [`crate::resources`] finds relative to `<prefix>/bin/copiergen`.
//!
//! ```text
//! <prefix>/bin/copiergen
//! <prefix>/bin/copiergen-cc, copiergen-c++, copiergen-cxx  -> copiergen (symlinks)
//! <prefix>/lib/libcopiergen.so, libcopier.a, libcopier.so [, libcopier_san.a]
//! <prefix>/include/copier.h (and the rest of runtime/include)
//! <prefix>/lib/pkgconfig/copier.pc (absolute paths; see [`pkg_config`])
//! ```

use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::resources::Layout;

/// Arguments of `copiergen install`.
#[derive(clap::Args, Debug, Clone)]
pub struct InstallArgs {
    /// Installation prefix (created if missing).
    #[arg(long, value_name = "DIR")]
    pub prefix: PathBuf,
}

fn io(context: String) -> impl FnOnce(std::io::Error) -> Error {
    move |source| Error::Io { context, source }
}

fn copy(from: &Path, to: &Path) -> Result<(), Error> {
    // Copy to a temporary name and rename, so a running copiergen is never
    // overwritten in place.
    let tmp = to.with_extension("copiergen-tmp");
    std::fs::copy(from, &tmp).map_err(io(format!("copying {} to {}", from.display(), tmp.display())))?;
    std::fs::rename(&tmp, to).map_err(io(format!("renaming {}", tmp.display())))?;
    println!("installed {}", to.display());
    Ok(())
}

/// The text of an installed `copier.pc` for the absolute `prefix`.
/// `Libs.private` lists the system libraries a static link of libcopier.a
/// needs, the same list `copiergen cc` links ([`crate::cc::STATIC_DEPS`]).
pub fn pkg_config(prefix: &Path) -> String {
    format!(
        "# Installed by `copiergen install`.\n\
         prefix={}\n\
         includedir=${{prefix}}/include\n\
         libdir=${{prefix}}/lib\n\
         \n\
         Name: copier\n\
         Description: Asynchronous memory copy as a service (amemcpy/csync)\n\
         Version: {}\n\
         Cflags: -I${{includedir}}\n\
         Libs: -L${{libdir}} -lcopier\n\
         Libs.private: {}\n",
        prefix.display(),
        env!("CARGO_PKG_VERSION"),
        crate::cc::STATIC_DEPS.join(" ")
    )
}

/// Install into `args.prefix`.
///
/// # Errors
/// [`Error::Missing`] when the plugin or libcopier is not built;
/// [`Error::Io`] when a file cannot be written.
pub fn run(args: &InstallArgs) -> Result<(), Error> {
    let layout = Layout::from_current_exe();
    let exe = std::env::current_exe().map_err(io("finding copiergen's own path".into()))?;
    let plugin = layout.plugin()?;
    let lib_dir = layout.lib_dir_with("libcopier.a")?;
    let include = layout.include_dir()?;
    // Absolute and without `..` or symlinks: copier.pc records it verbatim.
    std::fs::create_dir_all(&args.prefix).map_err(io(format!("creating {}", args.prefix.display())))?;
    let prefix = args.prefix.canonicalize().map_err(io(format!("resolving {}", args.prefix.display())))?;
    let (bin, lib, inc) = (prefix.join("bin"), prefix.join("lib"), prefix.join("include"));
    let pc_dir = lib.join("pkgconfig");
    for d in [&bin, &lib, &inc, &pc_dir] {
        std::fs::create_dir_all(d).map_err(io(format!("creating {}", d.display())))?;
    }
    copy(&exe, &bin.join("copiergen"))?;
    // The MLIR front end is optional (its own, slow-to-build crate).
    let mlir = exe.with_file_name(crate::mlir::MLIR_FILE);
    if mlir.is_file() {
        copy(&mlir, &bin.join(crate::mlir::MLIR_FILE))?;
    }
    for name in ["copiergen-cc", "copiergen-c++", "copiergen-cxx"] {
        let link = bin.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("copiergen", &link).map_err(io(format!("linking {}", link.display())))?;
        println!("installed {} -> copiergen", link.display());
    }
    copy(&plugin, &lib.join(crate::resources::PLUGIN_FILE))?;
    for name in ["libcopier.a", "libcopier.so", "libcopier_san.a"] {
        let from = lib_dir.join(name);
        if from.is_file() {
            copy(&from, &lib.join(name))?;
        } else if name != "libcopier_san.a" {
            return Err(Error::missing(format!("{}", from.display()), "build it with `cargo build --release`"));
        }
    }
    let entries = std::fs::read_dir(&include).map_err(io(format!("reading {}", include.display())))?;
    for e in entries {
        let e = e.map_err(io(format!("reading {}", include.display())))?;
        if e.path().is_file() {
            copy(&e.path(), &inc.join(e.file_name()))?;
        }
    }
    let pc = pc_dir.join("copier.pc");
    std::fs::write(&pc, pkg_config(&prefix)).map_err(io(format!("writing {}", pc.display())))?;
    println!("installed {}", pc.display());
    println!(
        "put {} on PATH for copiergen and copiergen-cc; PKG_CONFIG_PATH={} for `pkg-config copier`",
        bin.display(),
        pc_dir.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field<'a>(pc: &'a str, key: &str) -> &'a str {
        pc.lines().find_map(|l| l.strip_prefix(key)).unwrap_or_else(|| panic!("{key} missing in:\n{pc}")).trim()
    }

    #[test]
    fn installed_pc_has_absolute_prefix_and_the_linked_libraries() {
        let pc = pkg_config(Path::new("/opt/copier"));
        assert_eq!(field(&pc, "prefix="), "/opt/copier");
        assert_eq!(field(&pc, "Libs.private:"), crate::cc::STATIC_DEPS.join(" "));
    }

    /// The build-tree copier.pc, the installed one, what `copiergen cc`
    /// links and what docs/api.md says all list the same system libraries.
    #[test]
    fn library_lists_agree_across_pc_files_copiergen_and_docs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let deps = crate::cc::STATIC_DEPS.join(" ");
        let tree_pc = std::fs::read_to_string(root.join("runtime/copier.pc")).unwrap();
        assert_eq!(field(&tree_pc, "Libs.private:"), deps, "runtime/copier.pc");
        let doc = std::fs::read_to_string(root.join("docs/api.md")).unwrap();
        let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(doc.contains(&format!("`{deps}`")), "docs/api.md must name `{deps}`");
        for stale in ["-lpthread -ldl -lm`", "-lgcc_s"] {
            assert!(!doc.contains(stale), "docs/api.md still says {stale}");
        }
    }
}
