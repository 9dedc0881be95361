//! One struct per error kind, each with `print` (after compiler-rt's
//! `asan_errors.h`). A report is:
//!
//! ```text
//! ERROR: CopierSanitizer: <kind> on address 0x… (N bytes) in thread T…
//! <ACCESS> of size N at 0x… thread T…          (access line)
//!     #0 … (stack of the access)
//! <description of the copy and which part of it is pending>
//! copy #k submitted by thread T… here:
//!     #0 … (stack of the submit)
//! [Thread T… created by T… here: …]
//! SUMMARY: CopierSanitizer: <kind> <file>:<line> in <function>
//! Shadow bytes around the buggy address: …
//! HINT: …
//! ```

use crate::stack::{self, Sym};
use crate::tracker::Role;

/// What the program did to the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Read the bytes.
    Read,
    /// Wrote the bytes.
    Write,
    /// Freed or unmapped the block.
    Free,
    /// Returned from (or unwound out of) the function whose stack frame
    /// holds the bytes.
    Return,
    /// Ended the scope (`llvm.lifetime.end`) of the stack variable holding
    /// the bytes.
    ScopeEnd,
}

/// A copy as it was when the error happened.
#[derive(Clone, Debug)]
pub struct CopySnapshot {
    /// Copy number (submit order).
    pub id: u64,
    /// Destination start.
    pub dst: usize,
    /// Source start.
    pub src: usize,
    /// Length (bytes).
    pub len: usize,
    /// Submit flags (`COPIER_LAZY`, `COPIER_MOVE`).
    pub flags: u32,
    /// Submitting thread.
    pub thread: u32,
    /// Raw submit stack.
    pub stack: Box<[usize]>,
    /// Pending destination offsets.
    pub pend_dst: Vec<(usize, usize)>,
    /// Pending source offsets.
    pub pend_src: Vec<(usize, usize)>,
}

/// Everything every kind reports.
#[derive(Clone, Debug)]
pub struct Common {
    /// Start of the access (or of the freed block).
    pub addr: usize,
    /// Size of the access (bytes).
    pub size: usize,
    /// Thread of the access.
    pub thread: u32,
    /// Raw stack of the access.
    pub stack: Box<[usize]>,
    /// The libc function that made the access, if an interceptor saw it.
    pub via: Option<&'static str>,
    /// First byte of the access that is pending.
    pub bad: usize,
    /// Role of that byte in the culprit copy.
    pub role: Role,
    /// The copy that made the byte pending (the newest one if several).
    pub copy: CopySnapshot,
}

/// Reading a pending destination.
pub struct ReadBeforeCsync(pub Common);
/// Writing a pending destination.
pub struct WriteBeforeCsync(pub Common);
/// Writing a pending source.
pub struct SourceWriteBeforeCsync(pub Common);
/// Freeing (free, realloc, munmap) memory a pending copy reads or writes.
pub struct FreeBeforeCsync(pub Common);
/// A function returned (or a `longjmp` left its frame, `Common::via`
/// naming the jump function, or a C++ exception unwound it, `via` then
/// `__cxa_begin_catch`) while a pending copy still writes or reads a
/// stack variable of its frame (the copy would land in, or read, a dead
/// frame).
pub struct ReturnBeforeCsync(pub Common);
/// A stack variable's scope ended while a pending copy still writes or
/// reads it.
pub struct ScopeEndBeforeCsync(pub Common);
/// A copy whose destination and source overlap, submitted through an entry
/// point that does not allow overlap (`amemcpy`, `amemcpy_lazy`,
/// `amemcpy_handler`, `copier_submit` without `COPIER_MOVE`), as ASan's
/// `memcpy-param-overlap`. `Common::addr`/`size` are the overlapping bytes;
/// `Common::stack` is the submit stack.
pub struct MemcpyParamOverlap(pub Common);

/// A printable error.
pub trait ErrorReport {
    /// The kebab-case bug kind of the first line.
    fn kind(&self) -> &'static str;
    /// The shared fields.
    fn common(&self) -> &Common;
    /// The access line (`READ of size 4 at 0x… thread T0`).
    fn access_line(&self) -> String;
    /// True if the error is the submit itself (`Common::stack` is the
    /// submit stack, printed once, as the copy's stack).
    fn at_submit(&self) -> bool {
        false
    }
}

fn via(c: &Common) -> String {
    c.via.map(|v| format!(" (in a call to {v})")).unwrap_or_default()
}

impl ErrorReport for ReadBeforeCsync {
    fn kind(&self) -> &'static str {
        "read-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        format!("READ of size {} at {:#x} thread T{}{}", c.size, c.addr, c.thread, via(c))
    }
}

impl ErrorReport for WriteBeforeCsync {
    fn kind(&self) -> &'static str {
        "write-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        format!("WRITE of size {} at {:#x} thread T{}{}", c.size, c.addr, c.thread, via(c))
    }
}

impl ErrorReport for SourceWriteBeforeCsync {
    fn kind(&self) -> &'static str {
        "source-write-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        format!("WRITE of size {} at {:#x} thread T{} to the source of a pending copy{}", c.size, c.addr, c.thread, via(c))
    }
}

impl ErrorReport for FreeBeforeCsync {
    fn kind(&self) -> &'static str {
        "free-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        format!("FREE of {} bytes at {:#x} thread T{}{}", c.size, c.addr, c.thread, via(c))
    }
}

impl ErrorReport for ReturnBeforeCsync {
    fn kind(&self) -> &'static str {
        "return-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        let left = match c.via {
            Some("__cxa_begin_catch") => Some(("CATCH of an exception that unwound", String::new())),
            Some(jump) => Some(("LONGJMP out of", format!(" (in a call to {jump})"))),
            None => None,
        };
        if let Some((what, call)) = left {
            return format!(
                "{what} the stack frames that hold [{:#x}, {:#x}) ({} bytes) thread T{}{call}",
                c.addr,
                c.addr + c.size,
                c.size,
                c.thread
            );
        }
        format!(
            "RETURN from the function (frame #0) whose stack frame holds [{:#x}, {:#x}) ({} bytes) thread T{}",
            c.addr,
            c.addr + c.size,
            c.size,
            c.thread
        )
    }
}

impl ErrorReport for ScopeEndBeforeCsync {
    fn kind(&self) -> &'static str {
        "scope-end-before-csync"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        format!(
            "END OF SCOPE of the stack variable [{:#x}, {:#x}) ({} bytes) of frame #0 thread T{}",
            c.addr,
            c.addr + c.size,
            c.size,
            c.thread
        )
    }
}

impl ErrorReport for MemcpyParamOverlap {
    fn kind(&self) -> &'static str {
        "memcpy-param-overlap"
    }
    fn common(&self) -> &Common {
        &self.0
    }
    fn access_line(&self) -> String {
        let c = &self.0;
        let cp = &c.copy;
        format!(
            "{}: memory ranges [{:#x}, {:#x}) (destination) and [{:#x}, {:#x}) (source) overlap in [{:#x}, {:#x}) ({} bytes); only amemmove (COPIER_MOVE) copies between overlapping ranges",
            c.via.unwrap_or_else(|| entry_from_flags(cp.flags)),
            cp.dst,
            cp.dst + cp.len,
            cp.src,
            cp.src + cp.len,
            c.addr,
            c.addr + c.size,
            c.size
        )
    }
    fn at_submit(&self) -> bool {
        true
    }
}

/// Names of the runtime entry points a copy stack starts at: the reserved
/// symbols, whose code the public names jump to (reports name them by
/// their public names, [`copier_abi::symbols::public_name`]).
pub const SUBMIT_ENTRY_POINTS: &[&str] = &["__copier_amemcpy", "__copier_amemmove", "__copier_amemcpy_lazy", "__copier_amemcpy_handler", "__copier_submit"];

/// The entry point a copy with submit `flags` most likely came from, when
/// its frame is not in the copy stack (`amemcpy`/`amemmove` tail-call the
/// runtime, so their frame is gone): `COPIER_LAZY` → `amemcpy_lazy`,
/// `COPIER_MOVE` → `amemmove`, else `amemcpy`. The `on_submit` hook gets
/// only the flags, so a handler copy whose frame is missing reads `amemcpy`.
fn entry_from_flags(flags: u32) -> &'static str {
    if flags & copier_abi::COPIER_LAZY != 0 {
        "amemcpy_lazy"
    } else if flags & copier_abi::COPIER_MOVE != 0 {
        "amemmove"
    } else {
        "amemcpy"
    }
}

/// True for a function of the sanitizer itself (dropped from access stacks).
pub fn is_sanitizer_frame(name: &str) -> bool {
    name.starts_with("copier_san::")
        || name.starts_with("<copier_san::")
        || name.starts_with("__copier_san")
        || name.starts_with("backtrace::")
        || name.starts_with("<backtrace::")
        || crate::interception::INTERCEPTED.contains(&name)
}

/// True for a function of the Copier runtime or the Rust standard library.
fn is_runtime_frame(name: &str) -> bool {
    is_sanitizer_frame(name)
        || SUBMIT_ENTRY_POINTS.contains(&name)
        || [copier_abi::site::AMEMCPY, copier_abi::site::AMEMMOVE].contains(&name)
        || ["copier::", "<copier::", "copier_adapter::", "<copier_adapter::", "core::", "<core::", "std::", "<std::", "alloc::", "<alloc::"]
            .iter()
            .any(|p| name.starts_with(p))
}

/// The frames of an access stack after the sanitizer's own: the leading
/// run of sanitizer frames (and the Rust library code inlined into them) is
/// dropped, so frame #0 is the function that made the access or called the
/// intercepted libc function.
pub fn access_frames(raw: &[usize], symbolize: bool) -> Vec<Sym> {
    let syms = stack::symbolize(raw, symbolize);
    let lib = |n: &str| ["core::", "<core::", "std::", "<std::", "alloc::", "<alloc::"].iter().any(|p| n.starts_with(p));
    let first = syms.iter().position(|s| !s.name.as_deref().is_some_and(|n| is_sanitizer_frame(n) || lib(n)));
    match first {
        Some(i) => drop_own(syms[i..].to_vec()),
        None => syms,
    }
}

/// Drops the sanitizer's own frames below the user's (the thread
/// trampoline of the `pthread_create` interceptor), as ASan hides its own.
fn drop_own(mut syms: Vec<Sym>) -> Vec<Sym> {
    if syms.len() > 1 {
        let head = syms.remove(0);
        syms.retain(|s| !s.name.as_deref().is_some_and(|n| n.starts_with("copier_san::") || n.starts_with("<copier_san::")));
        syms.insert(0, head);
    }
    syms
}

/// The frames of a submit stack, starting at the runtime entry point.
pub fn copy_frames(raw: &[usize], symbolize: bool) -> Vec<Sym> {
    let syms = stack::symbolize(raw, symbolize);
    if let Some(i) = syms.iter().position(|s| s.physical && s.name.as_deref().is_some_and(|n| SUBMIT_ENTRY_POINTS.contains(&n))) {
        // Keep the entry point, drop the runtime internals inlined into it.
        let first = syms[..i].iter().rposition(|s| s.physical).map_or(0, |p| p + 1);
        return drop_own(syms[first.max(i)..].to_vec());
    }
    let first_user = syms.iter().position(|s| !s.name.as_deref().is_some_and(is_runtime_frame)).unwrap_or(0);
    drop_own(syms[first_user..].to_vec())
}

/// Shared objects of the system toolchain (C and C++ libraries, the
/// dynamic loader, the unwinder): never the user's program.
const SYSTEM_OBJECTS: &[&str] =
    &["libc.so", "ld-linux", "ld64.so", "libstdc++.so", "libc++.so", "libc++abi.so", "libgcc_s.so", "libm.so", "libpthread.so", "libdl.so", "librt.so"];

/// True if the code at return address `ip` belongs to a system library
/// (`dladdr` names the object that maps it).
fn in_system_object(ip: usize) -> bool {
    if ip < 2 {
        return false;
    }
    // SAFETY: dladdr only reads the loader's tables; `info` is written by
    // it and its `dli_fname` is a NUL-terminated string owned by the loader.
    unsafe {
        let mut info: libc::Dl_info = core::mem::zeroed();
        if libc::dladdr((ip - 1) as *const libc::c_void, &mut info) == 0 || info.dli_fname.is_null() {
            return false;
        }
        let path = core::ffi::CStr::from_ptr(info.dli_fname).to_bytes();
        let base = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        SYSTEM_OBJECTS.iter().any(|o| base.starts_with(o.as_bytes()))
    }
}

/// True for a frame of the user's program: not the sanitizer, the Copier
/// runtime or the Rust library (linked into the executable), nor a system
/// library (libc's `__libc_start_call_main`, `start_thread`, ...).
pub fn is_user_frame(s: &Sym) -> bool {
    !s.name.as_deref().is_some_and(is_runtime_frame) && !in_system_object(s.ip)
}

/// The frame the SUMMARY line names: the first frame of the user's program
/// with a source file and line; else the first frame of the user's program;
/// else frame #0. Never a system library's frame while a user frame exists.
pub fn summary_frame(frames: &[Sym]) -> Option<&Sym> {
    frames
        .iter()
        .find(|s| s.file.is_some() && s.line.is_some() && is_user_frame(s))
        .or_else(|| frames.iter().find(|s| is_user_frame(s)))
        .or(frames.first())
}

fn ranges(base: usize, r: &[(usize, usize)]) -> String {
    if r.is_empty() {
        return "none".into();
    }
    let mut s = String::new();
    for (k, &(i, j)) in r.iter().enumerate() {
        if k == 6 {
            s.push_str(&format!(" … ({} ranges)", r.len()));
            break;
        }
        s.push_str(&format!("{}[{:#x}, {:#x}) (offsets {}..{})", if k > 0 { ", " } else { "" }, base + i, base + j, i, j));
    }
    s
}

/// The whole report as text.
pub fn render(e: &dyn ErrorReport, access: &[Sym], copy: &[Sym], shadow: Option<String>) -> String {
    let c = e.common();
    let cp = &c.copy;
    let mut s = format!(
        "ERROR: CopierSanitizer: {} on address {:#x} ({} bytes) in thread T{}\n",
        e.kind(),
        c.addr,
        c.size,
        c.thread
    );
    let entry = copy
        .first()
        .and_then(|f| f.name.as_deref())
        .filter(|n| SUBMIT_ENTRY_POINTS.contains(n))
        .map_or_else(|| entry_from_flags(cp.flags), copier_abi::symbols::public_name);
    if e.at_submit() {
        let line = e.access_line();
        let line = line.strip_prefix(entry_from_flags(cp.flags)).map_or(line.clone(), |rest| format!("{entry}{rest}"));
        s.push_str(&line);
        s.push('\n');
        s.push_str(&format!("\ncopy #{} submitted by thread T{} here:\n", cp.id, cp.thread));
        s.push_str(&stack::format(copy));
        s.push('\n');
        tail(&mut s, e, copy, shadow, cp.thread);
        return s;
    }
    s.push_str(&e.access_line());
    s.push('\n');
    s.push_str(&stack::format(access));
    s.push('\n');
    let (what, base) = match c.role {
        Role::Destination => ("destination", cp.dst),
        Role::Source => ("source", cp.src),
    };
    s.push_str(&format!(
        "{:#x} is located {} bytes inside the {} [{:#x}, {:#x}) of copy #{}: {}(dst={:#x}, src={:#x}, len={}), not yet synced.\n",
        c.bad,
        c.bad - base,
        what,
        base,
        base + cp.len,
        cp.id,
        entry,
        cp.dst,
        cp.src,
        cp.len
    ));
    s.push_str(&format!("  pending destination bytes: {}\n", ranges(cp.dst, &cp.pend_dst)));
    s.push_str(&format!("  pending source bytes:      {}\n", ranges(cp.src, &cp.pend_src)));
    s.push_str(&format!("\ncopy #{} submitted by thread T{} here:\n", cp.id, cp.thread));
    s.push_str(&stack::format(copy));
    for t in [c.thread, cp.thread] {
        if t != 0 {
            if let Some((parent, st)) = crate::thread::creation(t) {
                let frames = access_frames(&st, crate::flags::get().symbolize);
                s.push_str(&format!("\nThread T{t} created by T{parent} here:\n"));
                s.push_str(&stack::format(&frames));
            }
        }
        if cp.thread == c.thread {
            break;
        }
    }
    s.push('\n');
    tail(&mut s, e, access, shadow, cp.thread);
    s
}

/// The SUMMARY line (naming the first user frame of `frames`), the shadow
/// dump and the HINT (`submitter`: the thread that submitted the copy).
fn tail(s: &mut String, e: &dyn ErrorReport, frames: &[Sym], shadow: Option<String>, submitter: u32) {
    let c = e.common();
    match summary_frame(frames) {
        Some(f) => {
            let loc = match (&f.file, f.line) {
                (Some(file), Some(line)) => format!("{file}:{line}"),
                (Some(file), None) => file.clone(),
                _ => stack::module_offset(f.ip).unwrap_or_else(|| format!("({:#x})", f.ip)),
            };
            // Unsymbolized: the location alone, as ASan's SUMMARY.
            let name = f.name.as_deref().filter(|_| f.shown).map(|n| format!(" in {}", copier_abi::symbols::public_name(n))).unwrap_or_default();
            s.push_str(&format!("SUMMARY: CopierSanitizer: {} {}{}\n", e.kind(), loc, name));
        }
        None => s.push_str(&format!("SUMMARY: CopierSanitizer: {}\n", e.kind())),
    }
    if let Some(sh) = shadow {
        s.push_str(&sh);
    }
    let hint = match (e.kind(), c.role) {
        ("return-before-csync" | "scope-end-before-csync", _) => format!(
            "csync({:#x}, {}) (or csync_all) before the stack variable's frame or scope ends: a copy must not outlive its stack buffer",
            c.addr, c.size
        ),
        ("memcpy-param-overlap", _) => "use amemmove (or copier_submit with COPIER_MOVE) for overlapping ranges".to_string(),
        // (csync waits for the calling thread's own copies only)
        (_, role) if submitter != c.thread => format!(
            "csync the copy's {} in thread T{submitter}, which submitted it, before that thread hands the buffer over (or csync_all, or copier_wait on its descriptor covering this byte): a csync waits only for the calling thread's own copies, and this access is in T{}",
            match role {
                Role::Destination => "destination",
                Role::Source => "destination (or its source)",
            },
            c.thread
        ),
        (_, Role::Destination) => format!("csync({:#x}, {}) (or csync_all/copier_wait) before this access", c.addr, c.size),
        (_, Role::Source) => format!("csync the source ({:#x}, {}) or the copy's destination before this access", c.addr, c.size),
    };
    s.push_str(&format!(
        "HINT: {hint}; COPIER_OPTIONS=halt_on_error=0 continues after a report (each site once).\n"
    ));
}

/// The shadow states of the bytes around `addr`, one character a byte
/// (`.` clear, `d` pending destination, `s` pending source, `b` both).
pub fn shadow_dump(addr: usize, size: usize) -> String {
    use crate::mapping::{DST_BITS, SRC_BITS};
    use crate::shadow::{state, RealShadow};
    let row = 32usize;
    let start = (addr & !(row - 1)).saturating_sub(row);
    let mut s = String::from("Shadow bytes around the buggy address (one character per byte):\n");
    for r in 0..4 {
        let base = start + r * row;
        let here = (base..base + row).contains(&addr);
        s.push_str(&format!("{}{:#016x}: ", if here { "=>" } else { "  " }, base));
        for a in base..base + row {
            let st = state(&RealShadow, a);
            let ch = match (st & DST_BITS != 0, st & SRC_BITS != 0) {
                (false, false) => '.',
                (true, false) => 'd',
                (false, true) => 's',
                (true, true) => 'b',
            };
            let inside = a >= addr && a < addr + size.max(1);
            s.push(if inside { ch.to_ascii_uppercase() } else { ch });
        }
        s.push('\n');
    }
    s.push_str("Shadow legend: . clear  d pending destination  s pending source  b both  (upper case: bytes of this access)\n");
    s
}
