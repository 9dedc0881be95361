//! The `copiergen-mlir` command (`copiergen mlir` runs it); see [`copiergen_mlir::cli`].
fn main() {
    std::process::exit(copiergen_mlir::cli::main_with(std::env::args_os().skip(1).collect()));
}
