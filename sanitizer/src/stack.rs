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
}

/// Symbolize return addresses; the symbols of one address come innermost
/// (inlined) first, physical last.
pub fn symbolize(ips: &[usize], symbolize: bool) -> Vec<Sym> {
    let mut out = Vec::new();
    for &ip in ips {
        let mut syms = Vec::new();
        if symbolize && ip > 1 {
            // Return addresses point after the call: look up the call itself.
            backtrace::resolve((ip - 1) as *mut c_void, |s| {
                syms.push(Sym {
                    ip,
                    name: s.name().map(|n| format!("{n:#}")),
                    file: s.filename().map(|p| p.display().to_string()),
                    line: s.lineno(),
                    col: s.colno(),
                    physical: false,
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

/// Print frames as ASan does: `    #0 0x55d4… in main file.c:12:5`.
pub fn format(frames: &[Sym]) -> String {
    let mut s = String::new();
    for (i, f) in frames.iter().enumerate() {
        s.push_str(&format!("    #{i} {:#x} in {}", f.ip, f.name.as_deref().unwrap_or("<unknown>")));
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
