//! `copiergen install --prefix DIR`: the install layout that
//! [`crate::resources`] finds relative to `<prefix>/bin/copiergen`.
//!
//! ```text
//! <prefix>/bin/copiergen
//! <prefix>/bin/copiergen-cc, copiergen-c++, copiergen-cxx  -> copiergen (symlinks)
//! <prefix>/lib/libcopiergen.so, libcopier.a, libcopier.so [, libcopier_san.a]
//! <prefix>/include/copier.h (and the rest of runtime/include)
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
    let prefix = &args.prefix;
    let (bin, lib, inc) = (prefix.join("bin"), prefix.join("lib"), prefix.join("include"));
    for d in [&bin, &lib, &inc] {
        std::fs::create_dir_all(d).map_err(io(format!("creating {}", d.display())))?;
    }
    copy(&exe, &bin.join("copiergen"))?;
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
    Ok(())
}
