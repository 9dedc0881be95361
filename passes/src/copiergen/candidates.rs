//! Finding the copies to rewrite: calls to `memcpy`, `memmove`,
//! `__memcpy_chk`, `__memmove_chk` and the `llvm.memcpy`, `llvm.memcpy.inline`
//! and `llvm.memmove` intrinsics, and deciding which become `amemcpy` /
//! `amemmove` and why the others stay synchronous.

use crate::ir;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use inkwell::llvm_sys::{LLVMOpcode, LLVMTailCallKind, LLVMTypeKind};

/// Copy (`memcpy`: the ranges must not overlap) or move (`memmove`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyKind {
    /// `memcpy` semantics; becomes `amemcpy`.
    Copy,
    /// `memmove` semantics (overlap allowed); becomes `amemmove`.
    Move,
}

/// Which form of the copy was called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyForm {
    /// `llvm.memcpy.*`, `llvm.memcpy.inline.*`, `llvm.memmove.*`:
    /// `(dst, src, len, isvolatile)`, returns void.
    Intrinsic,
    /// `memcpy` / `memmove`: `(dst, src, len)`, returns `dst`.
    Libc,
    /// `__memcpy_chk` / `__memmove_chk`: `(dst, src, len, dstlen)`, returns
    /// `dst`, aborts when `len > dstlen` (glibc `debug/memcpy_chk.c`).
    Checked,
}

/// How the `_chk` object-size check is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectSizeCheck {
    /// Not a `_chk` call, or the check provably passes.
    None,
    /// Checked at run time: `if (len > dstlen) __memcpy_chk(...)` (which
    /// aborts) before the `amemcpy`.
    Runtime,
}

/// A copy the pass rewrites.
#[derive(Debug, Clone)]
pub struct CopyCall {
    /// The original call instruction.
    pub call: LLVMValueRef,
    /// Copy or move.
    pub kind: CopyKind,
    /// Which callee form.
    pub form: CopyForm,
    /// The callee's name as written (`memcpy`, `llvm.memcpy.p0.p0.i64`, ...).
    pub callee: String,
    /// Destination pointer.
    pub dst: LLVMValueRef,
    /// Source pointer.
    pub src: LLVMValueRef,
    /// Length in bytes (any integer width).
    pub len: LLVMValueRef,
    /// The length when it is a compile-time constant.
    pub const_len: Option<u64>,
    /// `dstlen` of a `_chk` call.
    pub dst_size: Option<LLVMValueRef>,
    /// How the `_chk` check is kept.
    pub check: ObjectSizeCheck,
}

/// Why a copy stays synchronous.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkipReason {
    /// Constant length below the threshold (bytes, threshold).
    BelowThreshold(u64, u64),
    /// A variable length whose value range stays below the threshold
    /// (largest value in bytes, threshold).
    BoundedBelowThreshold(u64, u64),
    /// A variable length that what is left of the destination's or the
    /// source's object bounds below the threshold (object bytes, threshold).
    ObjectBelowThreshold(u64, u64),
    /// The size profile (`-fprofile-use`) has most calls of a
    /// variable-length copy below the threshold.
    ProfiledBelowThreshold {
        /// Calls profiled.
        calls: u64,
        /// Calls in buckets below the threshold.
        short: u64,
        /// Upper bound (bytes) of the largest such bucket.
        max: u64,
        /// The threshold (bytes).
        threshold: u64,
    },
    /// A volatile copy (`llvm.memcpy(..., i1 true)`).
    Volatile,
    /// A pointer outside address space 0 (which one).
    AddressSpace(u32),
    /// A `musttail` call: nothing may follow it.
    MustTail,
    /// The call does not have the standard prototype.
    Prototype,
    /// The `_chk` object-size check always fails: keep the call so it
    /// aborts as before.
    CheckAlwaysFails,
    /// Called with `invoke` (a copy never unwinds; odd IR).
    Invoke,
    /// In a function of the Copier runtime (never rewritten).
    RuntimeFunction(String),
    /// The function is a signal handler or may run in one (it, the
    /// handler): `amemcpy` and `csync` are not async-signal-safe.
    SignalHandler {
        /// The function of the copy.
        function: String,
        /// A signal handler it runs in (the function itself for a handler).
        handler: String,
    },
    /// The function uses funclet-based exception handling (Windows EH).
    Funclets,
    /// The function needs more alias queries than allowed (made, limit).
    TooLarge(u64, u64),
    /// The copy is in a block unreachable from the entry.
    Unreachable,
    /// The runtime's entry points are declared with another type in this
    /// module (the name).
    RuntimeDeclConflict(String),
    /// The program defines its own `memcpy`/`memmove` in this module: its
    /// behaviour may differ from the C library's.
    DefinedInModule,
    /// The cost model (`-copiergen-min-overlap`): on every path the whole
    /// copy is waited for after fewer than `limit` instructions of work, no
    /// call and no loop: nothing would overlap it.
    NoOverlap {
        /// Most instructions of work on a path from the copy to the sync.
        work: u64,
        /// The option's value.
        limit: u64,
        /// The sync that path ends at ("return at f.c:9:1").
        sync: String,
        /// How many other whole-copy sync points the paths reach.
        others: usize,
    },
    /// The cost model (`placement::loop_guards`, `-copiergen-loop-guards`):
    /// a copy of run-time length whose guards of loads and stores run on
    /// every iteration of its own loop.
    LoopGuards {
        /// How many loads and stores it would guard in the loop.
        guards: usize,
        /// The first of them ("load at f.c:9:5").
        first: String,
        /// They are whole-copy syncs of a coarse plan, not ready-window
        /// checks.
        whole: bool,
    },
    /// The call is not the C library's copy: `nobuiltin`, or the function
    /// is built with `-fno-builtin`/`-fno-builtin-memcpy` (TargetLibraryInfo
    /// does not recognise it), so the program may provide its own.
    NoBuiltin,
    /// The program may provide `memcpy`/`memmove` (the name) itself: the
    /// module defines it, or the function is built with `-fno-builtin`
    /// (`-fno-builtin-<name>`). libcopier copies its segments with the
    /// routine of that name, which would then be the program's, called
    /// from the service thread.
    ProgramCopyRoutine(String),
    /// The module's target (the triple) has no libcopier.
    UnsupportedTarget(String),
    /// The constant length exceeds any object (more than `isize::MAX`
    /// bytes): the compiler folded it in code it proved never runs (e.g.
    /// `n - 1` on a path where `n == 0`). Nothing to overlap.
    ImpossibleLength,
}

impl SkipReason {
    /// Remark text after "stays synchronous: ".
    pub fn describe(&self) -> String {
        match self {
            SkipReason::BelowThreshold(len, t) => {
                format!("constant length {len} bytes is below the threshold ({t} bytes, -copiergen-threshold)")
            }
            SkipReason::BoundedBelowThreshold(max, t) => format!(
                "its length is at most {max} bytes (value range: known bits, conditions, trip counts), below the threshold ({t} bytes, -copiergen-threshold)"
            ),
            SkipReason::ObjectBelowThreshold(max, t) => format!(
                "it moves at most {max} bytes (what is left of its destination's or its source's object), below the threshold ({t} bytes, -copiergen-threshold)"
            ),
            SkipReason::ProfiledBelowThreshold { calls, short, max, threshold } => {
                let share = if short == calls { "all".to_owned() } else { format!("{short}") };
                format!(
                    "the size profile (-fprofile-use) has {share} of its {calls} calls at most {max} bytes long, below the threshold ({threshold} bytes, -copiergen-threshold)"
                )
            }
            SkipReason::Volatile => "volatile copy".to_owned(),
            SkipReason::AddressSpace(a) => format!("pointer in address space {a} (libcopier takes address space 0)"),
            SkipReason::MustTail => "musttail call (nothing may run after it)".to_owned(),
            SkipReason::Prototype => "callee has a non-standard prototype".to_owned(),
            SkipReason::CheckAlwaysFails => {
                "object-size check always fails; the checked call is kept so it aborts as before".to_owned()
            }
            SkipReason::Invoke => "copy is called with invoke".to_owned(),
            SkipReason::RuntimeFunction(f) => format!("function '{f}' belongs to the Copier runtime"),
            SkipReason::SignalHandler { function, handler } if function == handler => format!(
                "function '{function}' is a signal handler: memcpy is async-signal-safe, amemcpy and csync are not"
            ),
            SkipReason::SignalHandler { function, handler } => format!(
                "function '{function}' may run in signal handler '{handler}' (called from it): memcpy is async-signal-safe, amemcpy and csync are not"
            ),
            SkipReason::Funclets => "function uses funclet-based exception handling (not supported)".to_owned(),
            SkipReason::TooLarge(q, m) => {
                format!("function too large for the csync analysis ({q} alias queries, limit {m}, -copiergen-max-queries)")
            }
            SkipReason::Unreachable => "copy is unreachable".to_owned(),
            SkipReason::RuntimeDeclConflict(n) => format!("the module defines '{n}' itself, or declares it with another type than libcopier's or as a variable"),
            SkipReason::DefinedInModule => "the callee is defined in this module, not the C library's".to_owned(),
            SkipReason::NoOverlap { work, limit, sync, others } => {
                let others = match others {
                    0 => String::new(),
                    1 => " (or 1 other point)".to_owned(),
                    n => format!(" (or {n} other points)"),
                };
                format!(
                    "the whole copy would be waited for before {sync}{others} after at most {work} instructions of work on every path (no call, no loop; fewer than {limit}, -copiergen-min-overlap): nothing would overlap it"
                )
            }
            SkipReason::LoopGuards { guards, first, whole } => {
                let more = match guards {
                    1 => String::new(),
                    n => format!(" and {} more", n - 1),
                };
                let checks = if *whole { "pending-copy checks (whole-copy syncs of a coarse plan)" } else { "ready-window checks" };
                format!(
                    "its length is only known at run time and it would need {checks} of {first}{more} on every iteration of its loop (-copiergen-loop-guards): short copies would pay more for them than they save"
                )
            }
            SkipReason::NoBuiltin => {
                "the call is not the C library's (nobuiltin or -fno-builtin): the program may provide its own".to_owned()
            }
            SkipReason::ProgramCopyRoutine(n) => {
                format!("the program may provide its own '{n}' (defined in this module, or -fno-builtin): libcopier would run it for the copy")
            }
            SkipReason::UnsupportedTarget(t) => format!("no libcopier for target '{t}' (x86-64 Linux only)"),
            SkipReason::ImpossibleLength => {
                "no object is that large: the compiler proved this copy never runs".to_owned()
            }
        }
    }

    /// Remark name for `-fsave-optimization-record`.
    pub fn remark_name(&self) -> &'static str {
        match self {
            SkipReason::BelowThreshold(..) | SkipReason::BoundedBelowThreshold(..) | SkipReason::ObjectBelowThreshold(..) => "BelowThreshold",
            SkipReason::ProfiledBelowThreshold { .. } => "ProfiledBelowThreshold",
            SkipReason::Volatile => "Volatile",
            SkipReason::AddressSpace(_) => "AddressSpace",
            SkipReason::MustTail => "MustTail",
            SkipReason::Prototype => "Prototype",
            SkipReason::CheckAlwaysFails => "CheckAlwaysFails",
            SkipReason::Invoke => "Invoke",
            SkipReason::RuntimeFunction(_) => "RuntimeFunction",
            SkipReason::SignalHandler { .. } => "SignalHandler",
            SkipReason::Funclets => "Funclets",
            SkipReason::TooLarge(..) => "TooLarge",
            SkipReason::Unreachable => "Unreachable",
            SkipReason::RuntimeDeclConflict(_) => "RuntimeDeclConflict",
            SkipReason::DefinedInModule => "DefinedInModule",
            SkipReason::NoOverlap { .. } => "NoOverlap",
            SkipReason::LoopGuards { .. } => "LoopGuards",
            SkipReason::NoBuiltin => "NoBuiltin",
            SkipReason::ProgramCopyRoutine(_) => "ProgramCopyRoutine",
            SkipReason::UnsupportedTarget(_) => "UnsupportedTarget",
            SkipReason::ImpossibleLength => "ImpossibleLength",
        }
    }
}

/// Intrinsic IDs the pass recognises, looked up once per module.
#[derive(Debug, Clone, Copy)]
pub struct IntrinsicIds {
    /// `llvm.memcpy`.
    pub memcpy: u32,
    /// `llvm.memcpy.inline`.
    pub memcpy_inline: u32,
    /// `llvm.memmove`.
    pub memmove: u32,
    /// `llvm.memset`.
    pub memset: u32,
    /// `llvm.memset.inline`.
    pub memset_inline: u32,
    /// `llvm.stackrestore`.
    pub stackrestore: u32,
}

impl IntrinsicIds {
    /// Looks the IDs up in the host LLVM.
    pub fn lookup() -> IntrinsicIds {
        IntrinsicIds {
            memcpy: ir::intrinsic_id("llvm.memcpy"),
            memcpy_inline: ir::intrinsic_id("llvm.memcpy.inline"),
            memmove: ir::intrinsic_id("llvm.memmove"),
            memset: ir::intrinsic_id("llvm.memset"),
            memset_inline: ir::intrinsic_id("llvm.memset.inline"),
            stackrestore: ir::intrinsic_id("llvm.stackrestore"),
        }
    }
}

/// Whether a function belongs to the Copier runtime and must never be
/// rewritten (reserved names `__copier*`, sections `.text.copier*`), or is
/// itself a copy routine a program defines (`memcpy`, ...): rewriting it
/// would recurse. A function named like a public name of libcopier
/// (`csync`, `copier_flush`) that the program defines is the program's own
/// (libcopier's entry points are `__copier_*`; the public names are weak
/// trampolines in assembly) and is rewritten like any other.
pub fn is_runtime_function(function: LLVMValueRef) -> bool {
    let name = ir::name(function);
    const PREFIXES: [&str; 1] = ["__copier"];
    const COPY_ROUTINES: [&str; 4] = ["memcpy", "memmove", "__memcpy_chk", "__memmove_chk"];
    PREFIXES.iter().any(|p| name.starts_with(p))
        || COPY_ROUTINES.contains(&name.as_str())
        || ir::section(function).is_some_and(|s| s.starts_with(".text.copier"))
}

/// Recognises a copy call: its kind, form and callee name.
pub fn recognize(inst: LLVMValueRef, ids: &IntrinsicIds) -> Option<(CopyKind, CopyForm, String)> {
    let op = ir::opcode(inst);
    if op != LLVMOpcode::LLVMCall && op != LLVMOpcode::LLVMInvoke {
        return None;
    }
    let callee = ir::called_function(inst)?;
    let id = ir::function_intrinsic_id(callee);
    let name = ir::name(callee);
    if id != 0 {
        return if id == ids.memcpy || id == ids.memcpy_inline {
            Some((CopyKind::Copy, CopyForm::Intrinsic, name))
        } else if id == ids.memmove {
            Some((CopyKind::Move, CopyForm::Intrinsic, name))
        } else {
            None
        };
    }
    match name.as_str() {
        "memcpy" => Some((CopyKind::Copy, CopyForm::Libc, name)),
        "memmove" => Some((CopyKind::Move, CopyForm::Libc, name)),
        "__memcpy_chk" => Some((CopyKind::Copy, CopyForm::Checked, name)),
        "__memmove_chk" => Some((CopyKind::Move, CopyForm::Checked, name)),
        _ => None,
    }
}

/// Decides whether the recognised copy call `inst` is rewritten.
pub fn classify(
    inst: LLVMValueRef,
    kind: CopyKind,
    form: CopyForm,
    callee: String,
    threshold: u64,
) -> Result<CopyCall, SkipReason> {
    if ir::opcode(inst) == LLVMOpcode::LLVMInvoke {
        return Err(SkipReason::Invoke);
    }
    // SAFETY: `inst` is a call instruction of the module being run.
    let tail = unsafe { inkwell::llvm_sys::core::LLVMGetTailCallKind(inst) };
    if tail == LLVMTailCallKind::LLVMTailCallKindMustTail {
        return Err(SkipReason::MustTail);
    }
    if form != CopyForm::Intrinsic && ir::called_function(inst).is_some_and(|f| !ir::is_declaration(f)) {
        return Err(SkipReason::DefinedInModule);
    }
    let want_args = match form {
        CopyForm::Intrinsic | CopyForm::Checked => 4,
        CopyForm::Libc => 3,
    };
    if ir::num_args(inst) != want_args {
        return Err(SkipReason::Prototype);
    }
    let (dst, src, len) = (ir::arg(inst, 0), ir::arg(inst, 1), ir::arg(inst, 2));
    if form == CopyForm::Intrinsic && ir::const_int(ir::arg(inst, 3)) != Some(0) {
        return Err(SkipReason::Volatile);
    }
    for p in [dst, src] {
        match ir::address_space(p) {
            None => return Err(SkipReason::Prototype),
            Some(0) => {}
            Some(a) => return Err(SkipReason::AddressSpace(a)),
        }
    }
    let Some(len_width) = ir::int_width(len) else {
        return Err(SkipReason::Prototype);
    };
    if form == CopyForm::Libc && len_width != 64 {
        // (a size_t length on the LP64 targets libcopier supports; the
        // library-call test would call it not the C library's)
        return Err(SkipReason::Prototype);
    }
    if form != CopyForm::Intrinsic {
        // The result replaces a pointer-returning call: a use of another
        // type would not type-check.
        let ret = ir::type_kind(ir::type_of(inst));
        if ret != LLVMTypeKind::LLVMPointerTypeKind && ret != LLVMTypeKind::LLVMVoidTypeKind {
            return Err(SkipReason::Prototype);
        }
    }
    let const_len = ir::const_int(len);
    if let Some(n) = const_len {
        if n > i64::MAX as u64 {
            return Err(SkipReason::ImpossibleLength);
        }
        if n < threshold {
            return Err(SkipReason::BelowThreshold(n, threshold));
        }
    }
    let mut dst_size = None;
    let mut check = ObjectSizeCheck::None;
    if form == CopyForm::Checked {
        let size = ir::arg(inst, 3);
        if ir::int_width(size) != Some(len_width) {
            return Err(SkipReason::Prototype);
        }
        let all_ones = if len_width >= 64 { u64::MAX } else { (1u64 << len_width) - 1 };
        match (const_len, ir::const_int(size)) {
            // dstlen = (size_t)-1: __builtin_object_size did not know it.
            (_, Some(s)) if s == all_ones => {}
            (Some(n), Some(s)) if n <= s => {}
            (Some(_), Some(_)) => return Err(SkipReason::CheckAlwaysFails),
            _ => check = ObjectSizeCheck::Runtime,
        }
        dst_size = Some(size);
    }
    Ok(CopyCall { call: inst, kind, form, callee, dst, src, len, const_len, dst_size, check })
}
