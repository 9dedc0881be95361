//! Compiles the C-variadic interceptors (printf family) into the library.
fn main() {
    println!("cargo:rerun-if-changed=src/interception/printf.c");
    cc::Build::new()
        .file("src/interception/printf.c")
        .flag("-fno-builtin")
        .flag("-U_FORTIFY_SOURCE")
        .flag("-fPIC")
        .opt_level(2)
        .warnings(true)
        .compile("copier_san_printf");
}
