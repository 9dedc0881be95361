//! `copier-bench`. PLACEHOLDER: filled by the runtime work (issue 2).
fn main() {}
