//! The `copiergen` command. PLACEHOLDER: filled by the CopierGen work (issue 3).
fn main() {
    eprintln!("copiergen: not built yet");
    std::process::exit(2);
}
