//! The `copiergen` command (see the library docs and `copiergen --help`).
fn main() {
    copiergen_cli::install_panic_hook();
    std::process::exit(copiergen_cli::main_with(std::env::args_os().collect()));
}
