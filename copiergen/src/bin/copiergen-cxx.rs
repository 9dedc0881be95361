//! `copiergen-cxx`: `copiergen c++` as one executable (for CMAKE_CXX_COMPILER).
fn main() {
    copiergen_cli::install_panic_hook();
    let args: Vec<_> = std::env::args_os().skip(1).collect();
    std::process::exit(copiergen_cli::run_wrapper(copiergen_cli::Lang::Cxx, &args));
}
