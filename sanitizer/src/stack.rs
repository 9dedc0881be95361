//! Stack traces: raw capture (cheap, at every submit) and symbolization
//! (function, file:line, inlined frames; only when a report prints them).

use core::ffi::c_void;

/// Capture up to `max` return addresses of the current stack, innermost
/// first (frames of the capture itself included; the printer drops them).
pub fn capture(max: usize) -> Box<[usize]> {
    if max == 0 {
        return Box::new([]);
    }
    let mut ips = Vec::with_capacity(max);
    // SAFETY: trace_unsynchronized is unsynchronized only with respect to
    // other backtrace calls on Windows' dbghelp; on Linux it walks the stack
    // with libgcc's thread-safe unwinder.
    unsafe {
        backtrace::trace_unsynchronized(|f| {
            let ip = f.ip() as usize;
            if ip > 1 {
                ips.push(ip);
            }
            ips.len() < max
        })
    };
    ips.into_boxed_slice()
}

/// As [`capture`], into `out` (up to its length); returns the number of
/// addresses written. Allocates nothing and takes no lock of the program's
/// (libgcc's unwinder finds unwind tables with glibc's `_dl_find_object`,
/// which is async-signal-safe), so a signal handler may call it.
pub fn capture_into(out: &mut [usize]) -> usize {
    let mut n = 0;
    if out.is_empty() {
        return 0;
    }
    // SAFETY: as in `capture`.
    unsafe {
        backtrace::trace_unsynchronized(|f| {
            let ip = f.ip() as usize;
            if ip > 1 {
                out[n] = ip;
                n += 1;
            }
            n < out.len()
        })
    };
    n
}

/// One symbolized frame (an inlined call is a frame of its own).
#[derive(Clone, Debug, Default)]
pub struct Sym {
    /// The return address (or pc) of the physical frame.
    pub ip: usize,
    /// Demangled function name.
    pub name: Option<String>,
    /// Source file.
    pub file: Option<String>,
    /// Source line.
    pub line: Option<u32>,
    /// Source column.
    pub col: Option<u32>,
    /// True for the outermost symbol at this ip (the physical function).
    pub physical: bool,
    /// False when `symbolize=0`: `name` (of the physical function, if the
    /// symbol table has it) is used only to drop the sanitizer's and the
    /// runtime's own frames, and is not printed.
    pub shown: bool,
}

/// A symbol's name as a report prints it: demangled when it is a C++
/// (Itanium, `_Z`) or Rust (`_R`, or legacy `_ZN...E`) mangled name, as
/// given otherwise. (The demangler alone reads a C function named `i` or
/// `Pc` as a mangled type, "int" or "char*".)
fn display_name(n: &backtrace::SymbolName<'_>) -> String {
    match n.as_bytes() {
        b if b.starts_with(b"_Z") || b.starts_with(b"_R") || b.starts_with(b"__Z") => format!("{n:#}"),
        b => String::from_utf8_lossy(b).into_owned(),
    }
}

/// Symbolize return addresses; the symbols of one address come innermost
/// (inlined) first, physical last. With `symbolize` false, one frame per
/// address whose function name (from the symbol table, not printed: see
/// [`Sym::shown`]) still lets the report drop the sanitizer's and the
/// runtime's own frames.
pub fn symbolize(ips: &[usize], symbolize: bool) -> Vec<Sym> {
    let mut out = Vec::new();
    for &ip in ips {
        let mut syms = Vec::new();
        if !symbolize {
            let mut name = None;
            if ip > 1 {
                backtrace::resolve((ip - 1) as *mut c_void, |s| name = s.name().map(|n| display_name(&n)));
            }
            out.push(Sym { ip, name, physical: true, ..Sym::default() });
            continue;
        }
        if ip > 1 {
            // Return addresses point after the call: look up the call itself.
            backtrace::resolve((ip - 1) as *mut c_void, |s| {
                syms.push(Sym {
                    ip,
                    name: s.name().map(|n| display_name(&n)),
                    file: s.filename().map(|p| p.display().to_string()),
                    line: s.lineno(),
                    col: s.colno(),
                    physical: false,
                    shown: true,
                });
            });
        }
        if syms.is_empty() {
            syms.push(Sym { ip, ..Sym::default() });
        }
        if let Some(last) = syms.last_mut() {
            last.physical = true;
        }
        out.extend(syms);
    }
    out
}

/// Function name of the physical frame at `ip` (a return address).
pub fn function_at(ip: usize) -> Option<String> {
    symbolize(&[ip], true).into_iter().rfind(|s| s.physical).and_then(|s| s.name)
}

/// The module (shared object or executable path) that maps return address
/// `ip` and the offset of `ip` in it (`ip - load base`: what `addr2line -e
/// module` or `llvm-symbolizer --obj=module` takes under ASLR), from
/// `dladdr`; the executable's path from `/proc/self/exe`.
pub fn module_of(ip: usize) -> Option<(String, usize)> {
    if ip < 2 {
        return None;
    }
    // SAFETY: dladdr only reads the loader's tables; `info` is written by
    // it and its `dli_fname`, when not null, is a NUL-terminated string
    // owned by the loader.
    let (name, base) = unsafe {
        let mut info: libc::Dl_info = core::mem::zeroed();
        if libc::dladdr((ip - 1) as *const c_void, &mut info) == 0 || info.dli_fbase.is_null() {
            return None;
        }
        let name = if info.dli_fname.is_null() { String::new() } else { core::ffi::CStr::from_ptr(info.dli_fname).to_string_lossy().into_owned() };
        (name, info.dli_fbase as usize)
    };
    // The sanitizer is linked into the executable: a frame in the module
    // that holds this function is the executable's, which dladdr names by
    // argv[0] (possibly relative, or empty).
    // SAFETY: as above.
    let exe_base = unsafe {
        let mut info: libc::Dl_info = core::mem::zeroed();
        (libc::dladdr(module_of as *const c_void, &mut info) != 0).then_some(info.dli_fbase as usize)
    };
    let name = if name.is_empty() || exe_base == Some(base) {
        std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or(name)
    } else {
        name
    };
    Some((name, ip - base))
}

/// `(module+0xoffset)` of `ip`, as ASan prints an unsymbolized frame.
pub fn module_offset(ip: usize) -> Option<String> {
    module_of(ip).map(|(m, off)| format!("({m}+{off:#x})"))
}

/// Print frames as ASan does: `    #0 0x55d4… in main file.c:12:5`; a frame
/// without a source file (or every frame with `symbolize=0`) also gets its
/// `(module+0xoffset)`.
pub fn format(frames: &[Sym]) -> String {
    let mut s = String::new();
    for (i, f) in frames.iter().enumerate() {
        if !f.shown {
            s.push_str(&format!("    #{i} {:#x}  {}\n", f.ip, module_offset(f.ip).unwrap_or_else(|| "(<unknown module>)".into())));
            continue;
        }
        s.push_str(&format!("    #{i} {:#x} in {}", f.ip, f.name.as_deref().map_or("<unknown>", copier_abi::symbols::public_name)));
        if f.file.is_none() {
            if let Some(m) = module_offset(f.ip) {
                s.push_str(&format!(" {m}"));
            }
        }
        if let Some(file) = &f.file {
            s.push_str(&format!(" {file}"));
            if let Some(l) = f.line {
                s.push_str(&format!(":{l}"));
                if let Some(c) = f.col {
                    s.push_str(&format!(":{c}"));
                }
            }
        }
        s.push('\n');
    }
    if frames.is_empty() {
        s.push_str("    <no stack recorded: COPIER_OPTIONS=copy_stack_depth=0>\n");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::display_name;
    use backtrace::SymbolName;

    #[test]
    fn only_mangled_names_are_demangled() {
        let show = |raw: &str| display_name(&SymbolName::new(raw.as_bytes()));
        // C functions whose names read as mangled types
        assert_eq!(show("i"), "i");
        assert_eq!(show("Pc"), "Pc");
        assert_eq!(show("rd"), "rd");
        assert_eq!(show("read_hdr"), "read_hdr");
        // C++ and Rust
        assert_eq!(show("_ZL1fb"), "f(bool)");
        assert_eq!(show("_ZN3foo3barE"), "foo::bar");
    }
}
