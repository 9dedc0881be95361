//! Compiles the C interceptors (printf and sscanf families, strtold) into the library.
fn main() {
    println!("cargo:rerun-if-changed=src/interception/printf.c");
    println!("cargo:rerun-if-changed=src/interception/scanf.c");
    cc::Build::new()
        .file("src/interception/printf.c")
        .file("src/interception/scanf.c")
        .flag("-fno-builtin")
        .flag("-U_FORTIFY_SOURCE")
        .flag("-fPIC")
        .opt_level(2)
        .warnings(true)
        .compile("copier_san_printf");
}
