//! CopierGen's optimization remarks, in LLVM's own format (pass name
//! `copiergen`): `-Rpass=copiergen`, `-Rpass-missed=copiergen`,
//! `-Rpass-analysis=copiergen`, `-fsave-optimization-record`.
//!
//! | kind   | name             | at                | says |
//! |--------|------------------|-------------------|------|
//! | passed | `AsyncCopy`      | the copy          | `memcpy of 65536 bytes rewritten to amemcpy` |
//! | passed | `ProfiledLong`   | the copy          | `llvm.memcpy submits without the size split: the size profile (-fprofile-use) has all of its 200 calls at least 512 bytes long` |
//! | passed | `Csync`          | the guarded access| `csync(ptr, 4 bytes) before load at f.c:9:5: it may read the destination of memcpy at f.c:7:3` |
//! | passed | `CsyncWindow`    | the guarded access| `windowed csync_ready_end (inline ready-window check) of 1 byte before load at ... in a loop: ...` (one per group: `... covering 3 accesses`) |
//! | passed | `CsyncCopy`      | the guarded inst. | `csync of the whole copy (memcpy at f.c:7:3) before call to 'printf' at f.c:8:3: the callee may read the destination` (`copier_drop of the whole lazy copy (...) ...: the destination dies here ...` where a lazy copy's destination dies) |
//! | passed | `UnguardedLoop`  | first guarded access | `loop versioned: a copy without its windowed guard runs once the ready windows cover the rest of the accessed object` |
//! | passed | `PendingFreeLoop` | the loop's first copy | `loop versioned: while nothing is pending, a copy without checks runs, and its copy takes the inline copy below the threshold (...)` |
//! | passed | `PendingFreeFunction` | the first copy | `function versioned: while nothing is pending at its entry, a copy of its body without 11 checks runs, its copies inline below the threshold (...)` |
//! | passed | `PendingFreeCalls` | the loop's first call | `loop versioned: while nothing is pending at its entry, a copy runs where its 2 calls go to the callee's unguarded copy without testing the pending word` |
//! | passed | `CsyncAll`       | the guarded inst. | `csync_all before return at ...: memcpy at ... may be pending from an earlier loop iteration` |
//! | passed | `AbsorbedCall`   | the call          | `call to 'write' at f.c:9:3 rewritten to copier_write instead of a csync: the kernel reads the pending bytes from the source of memcpy at f.c:7:3, which stays pending` |
//! | passed | `LazyCopy`       | the copy          | `copy submitted with amemcpy_lazy: its destination only goes to calls that read it from the copy's source (the write/send family) before it dies at 1 point (a free, the end of its frame), where copier_drop drops the copy unexecuted` (`lazy_copies`) |
//! | missed | `<reason>`       | the copy          | `memcpy of 64 bytes stays synchronous: constant length 64 bytes is below the threshold (16384 bytes, -copiergen-threshold)` |
//!
//! | missed | `ConservativeSync` | the guarded inst. | `could not prove that call to 'f' at ... leaves memcpy at ... alone (the callee may read the destination); synchronizing the whole copy` |
//!
//! Copy remarks (`AsyncCopy`, `ProfiledLong`, the missed reasons) go through
//! [`CopyRemarks`]: instances of one call that the optimizer duplicated and
//! that get different remarks say which one each is about
//! (`(instance 2 of 2 at this location)`, [`super::remark_instances`]).

use super::candidates::{CopyCall, CopyForm, CopyKind, ObjectSizeCheck, SkipReason};
use super::effects::{AccessSize, FullReason, NarrowReason};
use super::emit;
use super::placement::{PendingCopy, Plan, SyncPoint, SyncRange};
use super::remark_instances::CopyRemarks;
use crate::context::{Bounds, FunctionAnalyses, RemarkKind};
use crate::ir;
use copier_abi::symbols;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::llvm_sys::prelude::LLVMValueRef;

fn s(text: &str) -> (&'static str, String) {
    ("String", text.to_owned())
}

fn callee_display(callee: &str) -> String {
    // Intrinsic names carry their overload suffix: llvm.memcpy.p0.p0.i64.
    for base in ["llvm.memcpy.inline", "llvm.memcpy", "llvm.memmove"] {
        if callee.starts_with(base) {
            return base.to_owned();
        }
    }
    callee.to_owned()
}

fn length_display(len: Option<u64>) -> String {
    match len {
        // No object is that large: the compiler folded the length in code
        // it proved cannot run (e.g. `n - 1` on a path where n == 0).
        Some(n) if n > i64::MAX as u64 => "an impossible constant length".to_owned(),
        Some(n) => format!("{n} bytes"),
        None => "variable length".to_owned(),
    }
}

fn at(inst: LLVMValueRef) -> String {
    ir::debug_loc(inst).map(|l| format!(" at {l}")).unwrap_or_default()
}

/// Name of copy `c` of a plan: a rewritten copy, or the callers' copies of
/// a guarded function.
fn copy_name_at(copies: &[PendingCopy], plan: &Plan, c: usize) -> String {
    if plan.callers == Some(c) {
        "a copy a caller left pending".to_owned()
    } else {
        copy_name(&copies[c])
    }
}

fn copy_name(pc: &PendingCopy) -> String {
    let callee = callee_display(&pc.call.callee);
    match &pc.loc {
        Some(l) => format!("{callee} at {l}"),
        None => format!("{callee} (no debug location)"),
    }
}

/// Describes the instruction a sync guards: "load at f.c:3:5".
fn describe(inst: LLVMValueRef, callee: Option<&str>) -> String {
    let what = match ir::opcode(inst) {
        LLVMOpcode::LLVMLoad => "load".to_owned(),
        LLVMOpcode::LLVMStore => "store".to_owned(),
        LLVMOpcode::LLVMAtomicRMW => "atomicrmw".to_owned(),
        LLVMOpcode::LLVMAtomicCmpXchg => "cmpxchg".to_owned(),
        LLVMOpcode::LLVMFence => "fence".to_owned(),
        LLVMOpcode::LLVMVAArg => "va_arg".to_owned(),
        LLVMOpcode::LLVMRet => "return".to_owned(),
        LLVMOpcode::LLVMResume => "resume".to_owned(),
        LLVMOpcode::LLVMInvoke => format!("invoke of {}", callee.unwrap_or("a callee")),
        LLVMOpcode::LLVMCallBr => "asm goto".to_owned(),
        LLVMOpcode::LLVMCall if callee.is_some_and(is_lifetime_end) => "end of a local variable's scope".to_owned(),
        LLVMOpcode::LLVMCall => format!("call to {}", callee.unwrap_or("a callee")),
        other => format!("{other:?}").trim_start_matches("LLVM").to_lowercase(),
    };
    format!("{what}{}", at(inst))
}

/// Describes the instruction a sync point guards: "return at f.c:9:1",
/// "call to free at f.c:8:3".
pub fn describe_point(point: &SyncPoint) -> String {
    describe(point.before, point.callee.as_deref())
}

/// Whether `callee` (as a sync point names it, quoted or not) is
/// `llvm.lifetime.end`: the end of a local variable's scope, which the
/// pass sees as a call that may write the variable.
fn is_lifetime_end(callee: &str) -> bool {
    callee.trim_matches('\'').starts_with("llvm.lifetime.end")
}

/// Why a whole-copy sync at the end of a local variable's scope is needed.
const SCOPE_END_REASON: &str = "a buffer of the copy goes out of scope (its stack slot may be reused)";

/// Why a lazy copy's whole-copy sync is a `copier_drop` ([`super::lazy_copies`]).
const DROP_REASON: &str = "the destination dies here and only the kernel read it (from the copy's source), so the copy is dropped unexecuted";

fn full_reason(r: FullReason) -> &'static str {
    match r {
        FullReason::CoarseAccess(NarrowReason::ReadsDst) => {
            "it may read the destination, in a function with too many accesses to guard one by one (-copiergen-max-narrow)"
        }
        FullReason::CoarseAccess(NarrowReason::WritesDst) => {
            "it may write the destination, in a function with too many accesses to guard one by one (-copiergen-max-narrow)"
        }
        FullReason::CoarseAccess(NarrowReason::WritesSrc) => {
            "it may write the source, in a function with too many accesses to guard one by one (-copiergen-max-narrow)"
        }
        FullReason::Return => "a pending copy must not outlive the function",
        FullReason::Resume => "unwinding leaves the function",
        FullReason::MustTail => "the frame ends at a musttail call",
        FullReason::CallReadsDst => "the callee may read the destination",
        FullReason::CallWritesDst => "the callee may write the destination",
        FullReason::CallWritesSrc => "the callee may write the source",
        FullReason::UnknownAccess => "it may touch the buffers over an extent the pass cannot name",
        FullReason::Free => "it releases a buffer of the copy",
        FullReason::Release => "it publishes memory to other threads (release ordering) and a buffer may be shared",
        FullReason::ThreadOperation => "thread or lock operation while a buffer may be shared",
        FullReason::VolatileStore => "a volatile store may tell another thread that a buffer is ready, and a buffer may be shared",
        FullReason::PointerEscape => "it stores a pointer to a buffer where other code can read it",
        FullReason::MayNotReturn => "the callee may not return normally (exception, longjmp, exit)",
        FullReason::StackRestore => "it frees dynamic stack memory",
        FullReason::ProcessOperation => "a child process would see unfinished copies",
        FullReason::Coroutine => "a coroutine suspend point leaves the frame",
        FullReason::CallerBuffers => "the callee may touch memory a caller's copy may still be writing",
        FullReason::AsmOperand => "inline asm gets a pointer into a buffer and may dereference it",
    }
}

fn narrow_reason(r: NarrowReason) -> &'static str {
    match r {
        NarrowReason::ReadsDst => "it may read the destination",
        NarrowReason::WritesDst => "it may write the destination",
        NarrowReason::WritesSrc => "it may write the source",
    }
}

fn size_display(size: AccessSize) -> String {
    match size {
        AccessSize::Const(1) => "1 byte".to_owned(),
        AccessSize::Const(n) if n > i64::MAX as u64 => "an impossible constant length".to_owned(),
        AccessSize::Const(n) => format!("{n} bytes"),
        AccessSize::Value(_) => "a run-time length".to_owned(),
        AccessSize::Unknown => "an unknown size".to_owned(),
    }
}

/// Remark for a copy that stays synchronous.
pub fn skipped(cr: &CopyRemarks<'_, '_>, call: LLVMValueRef, callee: &str, len: Option<u64>, why: &SkipReason) {
    let len = match why {
        SkipReason::BelowThreshold(n, _) => Some(*n),
        _ => len,
    };
    let args = vec![
        ("Callee", callee_display(callee)),
        s(" of "),
        ("Length", length_display(len)),
        s(" stays synchronous: "),
        ("Reason", why.describe()),
    ];
    cr.add(RemarkKind::Missed, why.remark_name(), call, args, 3);
}

/// Remark for a rewritten copy.
pub fn rewritten(cr: &CopyRemarks<'_, '_>, c: &CopyCall) {
    let replacement = match c.kind {
        CopyKind::Copy => symbols::public_name(symbols::AMEMCPY),
        CopyKind::Move => symbols::public_name(symbols::AMEMMOVE),
    };
    let mut args = vec![
        ("Callee", callee_display(&c.callee)),
        s(" of "),
        ("Length", length_display(c.const_len)),
        s(" rewritten to "),
        ("Replacement", replacement.to_owned()),
    ];
    if c.form == CopyForm::Checked && c.check == ObjectSizeCheck::Runtime {
        args.push(s(" (object-size check kept inline)"));
    }
    cr.add(RemarkKind::Passed, "AsyncCopy", c.call, args, 3);
}

/// Remark for a rewritten copy whose size profile has it long: it submits
/// without the run-time size split.
pub fn profiled_long(cr: &CopyRemarks<'_, '_>, c: &CopyCall, calls: u64, long: u64, threshold: u64) {
    let share = if long == calls { "all".to_owned() } else { format!("{long}") };
    let args = vec![
        ("Callee", callee_display(&c.callee)),
        s(" submits without the size split: the size profile (-fprofile-use) has "),
        ("Share", share),
        s(" of its "),
        ("Calls", calls.to_string()),
        s(" calls at least "),
        ("Threshold", threshold.to_string()),
        s(" bytes long"),
    ];
    cr.add(RemarkKind::Passed, "ProfiledLong", c.call, args, 1);
}

/// Remarks for one sync point.
/// `drops`: the whole-copy syncs that are a `copier_drop` of a lazy copy
/// (`(instruction, copy)`, [`super::lazy_copies::LazyPlan::drops`]).
pub fn sync_point(fa: &FunctionAnalyses<'_>, copies: &[PendingCopy], plan: &Plan, point: &SyncPoint, window: bool, drops: &[(LLVMValueRef, usize)]) {
    let guarded = describe(point.before, point.callee.as_deref());
    if let Some((entry, absorbed)) = &point.absorb {
        let names: Vec<String> = absorbed.iter().map(|&c| copy_name_at(copies, plan, c)).collect();
        fa.remark(
            RemarkKind::Passed,
            "AbsorbedCall",
            Some(point.before),
            &[
                ("Access", guarded.clone()),
                s(" rewritten to "),
                ("Entry", symbols::public_name(entry).to_owned()),
                s(" instead of a csync: the kernel reads the pending bytes from the source of "),
                ("Copy", names.join(", ")),
                s(", which stays pending"),
            ],
        );
    }
    for n in &point.narrow {
        let windowed = plan.windowed(point, window);
        let size = match n.range {
            SyncRange::Bytes { len, .. } => size_display(AccessSize::Const(len)),
            SyncRange::Dynamic { .. } => size_display(AccessSize::Value(std::ptr::null_mut())),
        };
        let (name, what) = if windowed && n.monotonic.is_some() {
            (
                "CsyncWindow",
                format!("windowed {} (inline end check: the pointer only grows in the loop) of {size}", symbols::public_name(symbols::CSYNC_READY_END)),
            )
        } else if windowed {
            ("CsyncWindow", format!("windowed {} (inline ready-window check) of {size}", symbols::public_name(symbols::CSYNC_READY_END)))
        } else {
            ("Csync", format!("{}(ptr, {size})", symbols::public_name(symbols::CSYNC)))
        };
        let what = if n.covers > 1 { format!("{what} covering {} accesses", n.covers) } else { what };
        let in_loop = if windowed { " in a loop" } else { "" };
        fa.remark(
            RemarkKind::Passed,
            name,
            Some(point.before),
            &[
                ("Sync", what),
                s(" before "),
                ("Access", guarded.clone()),
                s(&format!("{in_loop}: {} of ", narrow_reason(n.reason))),
                ("Copy", copy_name_at(copies, plan, n.copy)),
            ],
        );
    }
    if point.full.is_empty() {
        return;
    }
    let scope_end = point.callee.as_deref().is_some_and(is_lifetime_end);
    if emit::uses_sync_all(point, plan) {
        let callers = point.full.iter().any(|&(c, _)| plan.callers == Some(c));
        let multi: Vec<String> = point
            .full
            .iter()
            .filter(|&&(c, _)| plan.multi_instance[c] && plan.callers != Some(c))
            .map(|&(c, _)| copy_name(&copies[c]))
            .collect();
        let mut why = Vec::new();
        if !multi.is_empty() {
            why.push(format!("{} may be pending from an earlier loop iteration", multi.join(", ")));
        }
        if callers {
            why.push(format!("{} may touch memory a copy its callers left pending still uses", guarded_what(point)));
        }
        if why.is_empty() {
            why.push(format!("{} copies may be pending", point.full.len()));
        }
        let why = why.join("; ");
        fa.remark(
            RemarkKind::Passed,
            "CsyncAll",
            Some(point.before),
            &[("Sync", symbols::public_name(symbols::CSYNC_ALL).to_owned()), s(" before "), ("Access", guarded.clone()), s(": "), ("Reason", why)],
        );
    } else {
        for &(c, r) in &point.full {
            let dropped = drops.contains(&(point.before, c));
            let reason = if dropped {
                DROP_REASON
            } else if scope_end {
                SCOPE_END_REASON
            } else {
                full_reason(r)
            };
            fa.remark(
                RemarkKind::Passed,
                "CsyncCopy",
                Some(point.before),
                &[
                    s(if dropped { "copier_drop of the whole lazy copy (" } else { "csync of the whole copy (" }),
                    ("Copy", copy_name_at(copies, plan, c)),
                    s(") before "),
                    ("Access", guarded.clone()),
                    s(": "),
                    ("Reason", reason.to_owned()),
                ],
            );
        }
    }
    // (a scope end and a drop are no guess: nothing to report as missed)
    for &(c, r) in &point.full {
        if r.conservative() && !scope_end && !drops.contains(&(point.before, c)) {
            fa.remark(
                RemarkKind::Missed,
                "ConservativeSync",
                Some(point.before),
                &[
                    s("could not prove that "),
                    ("Access", guarded.clone()),
                    s(" leaves "),
                    ("Copy", copy_name_at(copies, plan, c)),
                    s(" alone ("),
                    ("Reason", full_reason(r).to_owned()),
                    s("); synchronizing the whole copy"),
                ],
            );
        }
    }
}

fn guarded_what(point: &SyncPoint) -> String {
    match ir::opcode(point.before) {
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => "the call".to_owned(),
        LLVMOpcode::LLVMResume => "unwinding".to_owned(),
        _ => "it".to_owned(),
    }
}

/// Remark for a loop that got an unguarded copy (loop versioning).
pub fn unguarded_loop(fa: &FunctionAnalyses<'_>, first_access: LLVMValueRef, guards: usize, bounds: Bounds) {
    let bound = match (bounds.trip_count, bounds.object_size) {
        (true, true) => "the addresses the loop's trip count and the accessed object allow",
        (true, false) => "the addresses the loop's trip count allows",
        (false, true) => "the rest of the accessed object",
        (false, false) => "every address (nothing pending)",
    };
    let guards = if guards == 1 { "its windowed guard".to_owned() } else { format!("its {guards} windowed guards") };
    fa.remark(
        RemarkKind::Passed,
        "UnguardedLoop",
        Some(first_access),
        &[
            s("loop versioned: a copy without "),
            ("Guards", guards),
            s(" runs once the ready windows cover "),
            ("Bound", bound.to_owned()),
        ],
    );
}

/// Passed remark: a loop whose copies all split at run time got a copy
/// without checks, run while nothing is pending (`pending_free`).
pub fn pending_free_loop(fa: &FunctionAnalyses<'_>, first_copy: LLVMValueRef, copies: usize) {
    let copies = if copies == 1 { "its copy takes".to_owned() } else { format!("its {copies} copies take") };
    fa.remark(
        RemarkKind::Passed,
        "PendingFreeLoop",
        Some(first_copy),
        &[
            s("loop versioned: while nothing is pending, a copy without checks runs, and "),
            ("Copies", copies),
            s(" the inline copy below the threshold (a longer one is submitted by the checked loop)"),
        ],
    );
}

/// Passed remark: a function whose copies all split at run time got a copy
/// of its body without checks, run while nothing is pending at its entry
/// (`pending_free::version_body`); `checks`: loads of the pending word the
/// copy drops.
pub fn pending_free_function(fa: &FunctionAnalyses<'_>, first_copy: LLVMValueRef, checks: usize) {
    let checks = if checks == 1 { "1 check".to_owned() } else { format!("{checks} checks") };
    fa.remark(
        RemarkKind::Passed,
        "PendingFreeFunction",
        Some(first_copy),
        &[
            s("function versioned: while nothing is pending at its entry, a copy of its body without "),
            ("Checks", checks),
            s(" runs, its copies inline below the threshold (a longer one is submitted by the checked body)"),
        ],
    );
}

/// Passed remark: a loop that calls guarded functions and submits nothing
/// got a copy whose `calls` calls go to the unguarded copies without a
/// test, run while nothing is pending at the loop's entry
/// (`dispatch::version_loops`).
pub fn dispatch_loop(fa: &FunctionAnalyses<'_>, first_call: LLVMValueRef, calls: usize) {
    let calls = if calls == 1 { "its call goes".to_owned() } else { format!("its {calls} calls go") };
    fa.remark(
        RemarkKind::Passed,
        "PendingFreeCalls",
        Some(first_call),
        &[
            s("loop versioned: while nothing is pending at its entry, a copy runs where "),
            ("Calls", calls),
            s(" to the callee's unguarded copy without testing the pending word"),
        ],
    );
}

/// Analysis remark: the function is guarded for its callers.
pub fn guarded(fa: &FunctionAnalyses<'_>, function: LLVMValueRef) {
    fa.remark(
        RemarkKind::Analysis,
        "Guarded",
        None,
        &[
            ("Function", ir::name(function)),
            s(" waits for copies its callers left pending before touching their memory; calls to it need no csync"),
        ],
    );
}
