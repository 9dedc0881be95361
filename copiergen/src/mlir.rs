//! `copiergen mlir`: runs the MLIR front end, the `copiergen-mlir`
//! executable (its own crate, since it links MLIR's static archives), found
//! next to copiergen (both layouts) or through `COPIERGEN_MLIR`. It gets
//! `COPIERGEN` set to this executable for its link step (`copiergen cc`).

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

use crate::error::Error;

/// Environment variable naming the `copiergen-mlir` executable.
pub const ENV_MLIR: &str = "COPIERGEN_MLIR";
/// File name of the MLIR front end.
pub const MLIR_FILE: &str = "copiergen-mlir";

/// The front end: `COPIERGEN_MLIR`, else `copiergen-mlir` beside this executable.
pub fn front_end() -> Result<PathBuf, Error> {
    if let Some(p) = std::env::var_os(ENV_MLIR) {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
        return Err(Error::missing(format!("{ENV_MLIR}={}", p.display()), "point it at a copiergen-mlir executable"));
    }
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| Error::missing(format!("the copiergen executable ({e})"), format!("set {ENV_MLIR}")))?;
    let p = exe.with_file_name(MLIR_FILE);
    if p.is_file() {
        Ok(p)
    } else {
        Err(Error::missing(
            format!("{MLIR_FILE} next to {}", exe.display()),
            format!("build it with `cargo build --release -p copiergen-mlir`, or set {ENV_MLIR}"),
        ))
    }
}

/// Replaces this process with the front end on `args`; returns only on failure.
pub fn run(args: &[OsString]) -> Error {
    let fe = match front_end() {
        Ok(p) => p,
        Err(e) => return e,
    };
    let mut cmd = Command::new(&fe);
    cmd.args(args);
    if std::env::var_os("COPIERGEN").is_none() {
        if let Ok(me) = std::env::current_exe() {
            cmd.env("COPIERGEN", me);
        }
    }
    let e = cmd.exec();
    Error::Spawn { program: fe.display().to_string(), source: e, fix: format!("set {ENV_MLIR}") }
}
