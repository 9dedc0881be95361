//! libcopier's public names (`csync`, `amemcpy`, ...,
//! `copier_abi::symbols::PUBLIC`) as weak trampolines to the reserved entry
//! points (`__copier_csync`, ...) that `src/capi.rs` and `src/absorb_io.rs`
//! define.
//!
//! The compiler pass and the sanitizer runtime call only the reserved
//! names, which a program cannot define. Weak public names let a program
//! define its own `csync`: with `libcopier.a` its strong definition wins the
//! link (no "multiple definition"), with `libcopier.so` it interposes only
//! the calls to the public name. Each trampoline is one `jmp`; `copier.h`
//! maps the public declarations to the reserved symbols (asm labels), so a
//! program built with the header never goes through one.
//!
//! The trampolines are assembled into an object of their own
//! (`libcopier_public.a`, which rustc bundles into `libcopier.a` as one
//! member), so a static link pulls them, and through their jumps every
//! entry point, only when the program calls a public name. (A `global_asm!`
//! lands in one of rustc's codegen units: that unit's member, pulled by
//! every link, would then pull every entry point and what it uses.) An
//! alias (`.set csync, __copier_csync`) is not possible either: it must be
//! defined in the object of its target. For `libcopier.so` the names are
//! forced in (`--undefined`) and exported by a version script (rustc's own
//! lists only Rust-defined symbols; GNU ld and lld merge the two).

use std::fmt::Write as _;

fn main() {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut asm = String::from(".section .text.copier_public,\"ax\",@progbits\n");
    let mut map = String::from("{\n  global:\n");
    for (public, reserved) in copier_abi::symbols::PUBLIC {
        let _ = writeln!(
            asm,
            ".p2align 4\n.weak {public}\n.type {public},@function\n{public}:\n  jmp {reserved}@PLT\n.size {public}, .-{public}"
        );
        let _ = writeln!(map, "    {public};");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--undefined={public}");
    }
    asm.push_str(".section .note.GNU-stack,\"\",@progbits\n");
    map.push_str("};\n");
    let s = out.join("public_names.s");
    std::fs::write(&s, asm).expect("write public_names.s");
    std::fs::write(out.join("public_names.map"), map).expect("write public_names.map");
    cc::Build::new().file(&s).compile("copier_public");
    println!("cargo:rustc-cdylib-link-arg=-Wl,--version-script={}", out.join("public_names.map").display());
    println!("cargo:rerun-if-changed=build.rs");
}
