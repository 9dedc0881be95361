//! CopierSanitizer instrumentation (`-passes=copier-sanitizer`).
//!
//! Every load, store, atomic (`atomicrmw`, `cmpxchg`, atomic loads and
//! stores) and memory intrinsic (`llvm.memcpy`/`memmove`/`memset` and their
//! `.inline` forms) is checked against CopierSanitizer's shadow, and so are
//! the bytes a call reads or writes through `byval`/`byref`/`preallocated`/
//! `inalloca`/`sret` arguments (see [`call_site_args`]): a read must
//! not meet a pending destination, a write must not meet a pending
//! destination or source (see `sanitizer/src/tracker.rs` for when a byte is
//! pending). The pass runs after CopierGen, so it checks CopierGen's own
//! output: an access CopierGen failed to guard with a `csync` is reported.
//!
//! # Code per access (sizes 1, 2, 4, 8, 16)
//! ```text
//!   %live   = load atomic i64, ptr @__copier_san_live unordered ; once per run
//!   %busy   = icmp ne i64 %live, 0                ; of a block's accesses
//!   br %busy, label %shadow, label %cont          ; (unlikely)
//! shadow:
//!   %shadow = load iW, ptr inttoptr((addr >> 2) + 0x7fff8000), align 1
//!   %bad    = icmp ne (and %shadow, MASK), 0      ; MASK: 0x55.. for reads
//!   br %bad, label %check, label %cont            ; (unlikely)
//! check:
//!   call void @__copier_san_load4(i64 addr)       ; exact check, reports
//! ```
//! While no copy is pending anywhere (`__copier_san_live`, the runtime's
//! count, is 0; the shadow is then all clear) an access costs one compare
//! and branch on a register: the count is loaded once per run of accesses
//! of a block with no call between them (only calls submit copies on this
//! thread). The shadow has two bits per application byte (bit 0 pending
//! destination, bit 1 pending source; `sanitizer/src/mapping.rs` draws the
//! layout). `iW`
//! covers every shadow byte of the access: exactly `size/4` bytes when the
//! access is 4-aligned, otherwise a power of two that reaches past the
//! last one (a neighbour's pending byte then costs a call, never a report:
//! the runtime checks the exact bytes). Other sizes and memory intrinsics
//! call `__copier_san_{load,store}N(addr, size)` behind the same count
//! test; its first step is the shadow test.
//!
//! # Accesses not checked
//! As ASan's stack-safety and same-address optimizations: accesses to a
//! stack variable or an internal global whose address is only loaded from
//! and stored to (never passed to a call, so never to `amemcpy`, never
//! stored, never turned into an integer: [`cannot_be_pending`]; a copy
//! left pending into a frame that died is reported at that frame's end,
//! below), loads from constant globals, and an access to the pointer and
//! size a check of the same block already covered with no call between
//! (a write check covers a read; [`Checked`]).
//!
//! # `csync_ready_end` misses
//! A call of `csync_ready_end` (or of CopierGen's forwarder to it) runs
//! only while `__copier_san_live` is nonzero (a monotonic load); otherwise
//! its answer is `(void *)-1`, what the runtime returns when nothing is
//! pending ([`skip_when_idle`]). Frame-end checks sit behind the same test.
//!
//! The pass and the runtime share only the named ABI below (after
//! `AddressSanitizer.cpp`): one prefix, access kind and size in each name, a
//! `_noabort` variant (`copier-sanitizer<recover>` or
//! `-copier-sanitizer-recover`), and a version-check symbol called from a
//! module constructor (priority 1) that also initializes the runtime.
//!
//! # Library calls and `csync_ready_end`
//! Calls to external functions that take a pointer are marked `nobuiltin`
//! (CodeGen would otherwise expand `memcmp`/`bcmp` into unchecked loads;
//! the interceptor sees the call instead). Calls to `csync_ready_end` go to
//! `__copier_san_ready_end`, which returns a wider window than libcopier's
//! exact `addr + n` under the sanitizer, decided by program events only.
//! Check calls are `nomerge` and carry a source line (see [`Site`]).
//!
//! # Frame ends
//! A stack variable (entry-block `alloca` of constant size) whose address
//! escapes to a call may be a copy's buffer. Before each `ret`/`resume`
//! (before a `musttail` call) the pass calls `__copier_san_return(addr,
//! size)` for each such variable, and before a mid-function
//! `llvm.lifetime.end` of one, `__copier_san_scope_end(addr, size)`: a copy
//! still pending into or from the variable is reported when its frame or
//! scope dies (`return-before-csync` / `scope-end-before-csync`), not when
//! the copy later lands in a reused frame. Variables whose address reaches
//! no call get no check. Dynamic allocas (VLAs, `alloca()`) are checked as
//! one area, from the lowest live one to the stack pointer at entry, at
//! each return and `llvm.stackrestore` (see [`instrument_dynamic_area`]).
//! Frames left by `longjmp` are checked by the runtime's interceptor;
//! frames a C++ exception unwinds, between the throw and the catch (see
//! [`instrument_exceptions`]).
//!
//! # When it runs
//! `opt-22 -passes=copier-sanitizer`; from the default pipelines (after
//! CopierGen) when `-copier-sanitizer` is given or `COPIERGEN_SANITIZE=1`
//! is set (`copiergen cc --sanitize` sets it and links `libcopier_san.a`).
//!
//! Not instrumented: the runtime's own functions (the names CopierGen never
//! rewrites), functions with `disable_sanitizer_instrumentation`, accesses
//! outside address space 0, and the accesses above.

use crate::context::{split_if_then, ModuleContext};
use crate::ir;
use crate::options::{OptionDefault, PluginOption};
use crate::registry::{ModulePass, Schedule};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMBuilderRef, LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use std::collections::HashMap;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMLinkage, LLVMOpcode};
use std::ffi::CString;

/// log2 of application bytes per shadow byte (runtime: `mapping::SHADOW_SCALE`).
pub const SHADOW_SCALE: u64 = 2;
/// Shadow offset (runtime: `mapping::SHADOW_OFFSET`).
pub const SHADOW_OFFSET: u64 = 0x7fff_8000;
/// Pending-destination bit of every application byte of a shadow byte.
pub const DST_BITS: u8 = 0x55;
/// Prefix of every runtime entry point.
pub const PREFIX: &str = "__copier_san_";
/// `__copier_san_load{1,2,4,8,16,N}`.
pub const LOAD: &str = "__copier_san_load";
/// `__copier_san_store{1,2,4,8,16,N}`.
pub const STORE: &str = "__copier_san_store";
/// Suffix of the variants that never halt the program.
pub const NOABORT: &str = "_noabort";
/// `__copier_san_return(addr, size)`: called before a function returns,
/// once per stack variable whose address escapes to a call.
pub const RETURN: &str = "__copier_san_return";
/// `__copier_san_scope_end(addr, size)`: called before `llvm.lifetime.end`
/// of such a variable in the middle of a function.
pub const SCOPE_END: &str = "__copier_san_scope_end";
/// `__copier_san_cxx_throw(sp)`: called before each call of
/// `__cxa_throw`/`__cxa_rethrow` with the thrower's stack pointer.
pub const CXX_THROW: &str = "__copier_san_cxx_throw";
/// `__copier_san_cxx_catch(sp)`: called before each call of
/// `__cxa_begin_catch` with the handler frame's stack pointer.
pub const CXX_CATCH: &str = "__copier_san_cxx_catch";
/// `__copier_san_live`: the runtime's count of pending copies (an `i64`
/// read with monotonic loads; 0: nothing is pending and the whole shadow
/// is clear).
pub const LIVE: &str = "__copier_san_live";
/// Runtime initializer, called from the module constructor.
pub const INIT: &str = "__copier_san_init";
/// ABI version check, called from the module constructor.
pub const VERSION_CHECK: &str = "__copier_san_version_mismatch_check_v1";
/// The module constructor the pass adds.
pub const MODULE_CTOR: &str = "copier_san.module_ctor";
/// Named metadata marking an instrumented module (never instrument twice).
pub const MARKER: &str = "copier.sanitizer.instrumented";
/// Environment variable that schedules the pass (`copiergen cc --sanitize`).
pub const ENV_SANITIZE: &str = "COPIERGEN_SANITIZE";
/// Priority of the module constructor (ASan's `kAsanCtorAndDtorPriority`).
pub const CTOR_PRIORITY: u64 = 1;

/// `-copier-sanitizer`: run the instrumentation at the end of the default
/// pipelines (like `COPIERGEN_SANITIZE=1`).
pub static ENABLE: PluginOption = PluginOption {
    name: "copier-sanitizer",
    help: "Instrument for CopierSanitizer at the end of the default pipelines (also COPIERGEN_SANITIZE=1)",
    default: OptionDefault::Bool(false),
};

/// `-copier-sanitizer-recover`: call the `_noabort` checks (the program
/// continues after every report). Overridden by `copier-sanitizer<recover>`.
pub static RECOVER: PluginOption = PluginOption {
    name: "copier-sanitizer-recover",
    help: "Call the _noabort checks: the program continues after a CopierSanitizer report",
    default: OptionDefault::Bool(false),
};

/// The CopierSanitizer instrumentation pass.
pub struct CopierSanitizer;

fn enabled() -> bool {
    crate::options::env_flag(ENV_SANITIZE) || ENABLE.bool()
}

impl ModulePass for CopierSanitizer {
    fn name(&self) -> &'static str {
        "copier-sanitizer"
    }

    fn schedule(&self) -> Schedule {
        if enabled() {
            Schedule::PIPELINE_END
        } else {
            Schedule::EXPLICIT_ONLY
        }
    }

    fn parse_params(&self, params: &str) -> Result<(), String> {
        match params {
            "" | "recover" => Ok(()),
            p => Err(format!("copier-sanitizer: unknown parameter '{p}' (expected 'recover')")),
        }
    }

    fn run(&self, cx: &ModuleContext<'_>, params: &str) -> bool {
        instrument(cx, params == "recover" || RECOVER.bool())
    }
}

/// What one instruction does to memory.
struct Access {
    inst: LLVMValueRef,
    ptr: LLVMValueRef,
    write: bool,
    /// Constant size in bytes, or
    size: Option<u64>,
    /// the length operand of a memory intrinsic.
    len: Option<LLVMValueRef>,
    align: u32,
    /// The debug location of the check call (see [`Site`]).
    site: Site,
    /// Accesses of one block with no call between them share one load of
    /// [`LIVE`] (the program's own calls are what submit copies).
    run: usize,
}

/// The source location a check call carries: the report's frame #0 and
/// SUMMARY line come from it.
#[derive(Clone)]
enum Site {
    /// One location (null only in a function without debug info).
    Fixed(LLVMMetadataRef),
    /// The access has no line of its own because SimplifyCFG merged
    /// identical instructions of several predecessors into their common
    /// successor (`DILocation::getMergedLocation` gives line 0). `phi`, at
    /// the top of that block, holds the index in `locs` of the location of
    /// the predecessor the program came from; the cold path calls the
    /// runtime from a call carrying that location, so the report names the
    /// line that actually ran.
    ByPredecessor { phi: LLVMValueRef, locs: Vec<LLVMMetadataRef> },
}

/// The runtime's check functions, declared in the module.
struct Checks {
    i64: LLVMTypeRef,
    /// [`LIVE`], the runtime's pending-copy count.
    live: LLVMValueRef,
    sized: [[(LLVMValueRef, LLVMTypeRef); 5]; 2],
    n: [(LLVMValueRef, LLVMTypeRef); 2],
}

fn declare(m: LLVMModuleRef, name: &str, params: &[LLVMTypeRef], void: LLVMTypeRef) -> Option<(LLVMValueRef, LLVMTypeRef)> {
    let name = CString::new(name).ok()?;
    ir::get_or_declare(m, &name, void, params, &["nounwind"])
}

fn is_runtime_function(f: LLVMValueRef) -> bool {
    let name = ir::name(f);
    ["amemcpy", "amemmove", "csync", "copier_", "__copier", "copier_san."].iter().any(|p| name.starts_with(p))
        || ir::section(f).is_some_and(|s| s.starts_with(".text.copier"))
        || ir::has_fn_attr(f, "disable_sanitizer_instrumentation")
}

/// True for a target whose shadow mapping the runtime implements.
fn supported_target(m: LLVMModuleRef) -> bool {
    let t = ir::target_triple(m);
    t.starts_with("x86_64") && t.contains("linux")
}

fn instrument(cx: &ModuleContext<'_>, recover: bool) -> bool {
    let m = cx.raw();
    let marker = CString::new(MARKER).unwrap_or_default();
    // SAFETY: `m` is the live module of this pass run; `marker` is
    // NUL-terminated.
    let marked = unsafe { c::LLVMGetNamedMetadataNumOperands(m, marker.as_ptr()) } > 0;
    if marked || !supported_target(m) {
        return false;
    }
    let b = ir::Builder::new(m);
    let void = b.void_type();
    // SAFETY: module context is live.
    let i64 = unsafe { c::LLVMInt64TypeInContext(c::LLVMGetModuleContext(m)) };
    let suffix = if recover { NOABORT } else { "" };
    let mut sized = [[(std::ptr::null_mut(), std::ptr::null_mut()); 5]; 2];
    let mut n = [(std::ptr::null_mut(), std::ptr::null_mut()); 2];
    for (w, prefix) in [LOAD, STORE].iter().enumerate() {
        for (k, size) in [1, 2, 4, 8, 16].iter().enumerate() {
            match declare(m, &format!("{prefix}{size}{suffix}"), &[i64], void) {
                Some(d) => sized[w][k] = d,
                None => return conflict(cx, &format!("{prefix}{size}{suffix}")),
            }
        }
        match declare(m, &format!("{prefix}N{suffix}"), &[i64, i64], void) {
            Some(d) => n[w] = d,
            None => return conflict(cx, &format!("{prefix}N{suffix}")),
        }
    }
    let (Some(frame_end), Some(scope_end)) =
        (declare(m, &format!("{RETURN}{suffix}"), &[i64, i64], void), declare(m, &format!("{SCOPE_END}{suffix}"), &[i64, i64], void))
    else {
        return conflict(cx, RETURN);
    };
    let ready_end = ready_end_replacement(m);
    let Some(live) = live_word(m, i64) else {
        return conflict(cx, LIVE);
    };
    let checks = Checks { i64, live, sized, n };
    let (Some(cxx_throw), Some(cxx_catch)) = (declare(m, CXX_THROW, &[i64], void), declare(m, CXX_CATCH, &[i64], void)) else {
        return conflict(cx, CXX_THROW);
    };
    let cxx = [cxx_throw, cxx_catch];
    let memcpy_ids = [ir::intrinsic_id("llvm.memcpy"), ir::intrinsic_id("llvm.memmove"), ir::intrinsic_id("llvm.memcpy.inline")];
    let memset_ids = [ir::intrinsic_id("llvm.memset"), ir::intrinsic_id("llvm.memset.inline")];

    let mut changed = false;
    let mut private = HashMap::new();
    let forwarders: Vec<LLVMValueRef> = match ready_end {
        Some((from, _)) => ir::functions(m).filter(|&f| is_forwarder_to(f, from)).collect(),
        None => Vec::new(),
    };
    for f in ir::functions(m).collect::<Vec<_>>() {
        if ir::is_declaration(f) || is_runtime_function(f) {
            continue;
        }
        let mut accesses = Vec::new();
        let mut misses = Vec::new();
        let forwarder = ready_end.is_some_and(|(from, _)| is_forwarder_to(f, from));
        let mut run = 0;
        for bb in ir::blocks(f) {
            run += 1;
            let mut checked = Checked::default();
            for inst in ir::instructions(bb) {
                let first = accesses.len();
                collect(cx, inst, &memcpy_ids, &memset_ids, &mut accesses);
                for a in &mut accesses[first..] {
                    a.run = run;
                }
                let mut k = first;
                while k < accesses.len() {
                    if cannot_be_pending(&mut private, accesses[k].ptr) || !checked.first(&accesses[k]) {
                        accesses.remove(k);
                    } else {
                        k += 1;
                    }
                }
                if checked.after(inst) {
                    run += 1;
                }
                keep_libcall(inst);
                if let Some((from, to)) = ready_end {
                    if !forwarder && ir::opcode(inst) == LLVMOpcode::LLVMCall && ir::called_function(inst).is_some_and(|g| g == from || forwarders.contains(&g)) {
                        misses.push(inst);
                    }
                    redirect_call(inst, from, to);
                }
            }
        }
        // Before any check is built: the checks' ptrtoint of an alloca
        // would read as an escape.
        let vars = escaping_allocas(cx, f);
        let dynamic = escaping_dynamic_allocas(f);
        let rb = Raw::new(m);
        // Locations are resolved on the CFG as the optimizer left it, before
        // the checks split any block.
        let mut sites = Sites::new(f);
        for a in &mut accesses {
            a.site = sites.site(&rb, a.inst);
        }
        let mut runs = HashMap::new();
        for a in &accesses {
            emit_check(&rb, &checks, a, &mut runs);
        }
        for &call in &misses {
            skip_when_idle(&rb, live, call);
        }
        let ends = instrument_frame_ends(&rb, &checks, f, &vars, &sites, i64, frame_end, scope_end);
        let ends = instrument_dynamic_area(&rb, m, f, &dynamic, &sites, i64, frame_end, scope_end) || ends;
        let ends = instrument_exceptions(&rb, m, f, &sites, i64, cxx) || ends;
        if !accesses.is_empty() || ends || !misses.is_empty() {
            drop_memory_attrs(f);
        }
        changed |= !accesses.is_empty() || ends || !misses.is_empty();
    }
    add_module_ctor(cx, &b);
    // SAFETY: m is live; the marker is a named metadata node with no operands
    // besides an empty tuple.
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let node = c::LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
        let marker = CString::new(MARKER).unwrap_or_default();
        c::LLVMAddNamedMetadataOperand(m, marker.as_ptr(), c::LLVMMetadataAsValue(ctx, node));
    }
    let _ = changed;
    true // the module constructor was added
}

/// The static stack variables of `f` (allocas in the entry block with a
/// constant size) whose address escapes to a call: passed (directly or
/// through GEPs, casts, selects and phis) as an argument of a call that is
/// not an intrinsic, stored to memory, or turned into an integer. Only those
/// can be a pending copy's buffer when the frame dies. Returns each with
/// its size in bytes. (Dynamic allocas: [`escaping_dynamic_allocas`].)
fn escaping_allocas(cx: &ModuleContext<'_>, f: LLVMValueRef) -> Vec<(LLVMValueRef, u64)> {
    // SAFETY: f is a live function definition with an entry block.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
    let mut out = Vec::new();
    for inst in ir::instructions(entry) {
        if ir::opcode(inst) != LLVMOpcode::LLVMAlloca || !ir::is_ptr_as0(inst) {
            continue;
        }
        let Some(count) = ir::const_int(ir::operand(inst, 0)) else { continue };
        // SAFETY: inst is an alloca.
        let ty = unsafe { c::LLVMGetAllocatedType(inst) };
        let Some(size) = cx.store_size(ty).map(|s| s.saturating_mul(count)).filter(|&s| s > 0) else { continue };
        if escapes_to_call(inst) {
            out.push((inst, size));
        }
    }
    out
}

fn escapes_to_call(alloca: LLVMValueRef) -> bool {
    let mut seen = vec![alloca];
    let mut work = vec![alloca];
    while let Some(v) = work.pop() {
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast
                | LLVMOpcode::LLVMSelect
                | LLVMOpcode::LLVMPHI
                    if !seen.contains(&u) =>
                {
                    // Too many derived pointers to follow: assume it escapes.
                    if seen.len() >= 256 {
                        return true;
                    }
                    seen.push(u);
                    work.push(u);
                }
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr
                    if (0..ir::num_args(u)).any(|i| ir::arg(u, i) == v)
                        && ir::called_function(u).is_none_or(|g| ir::function_intrinsic_id(g) == 0) =>
                {
                    return true;
                }
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v => return true,
                LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg if ir::operand(u, 0) != v => return true,
                LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMInsertValue | LLVMOpcode::LLVMInsertElement | LLVMOpcode::LLVMRet => return true,
                _ => {}
            }
        }
    }
    false
}

/// The dynamic stack allocations of `f` (every `alloca` in address space 0
/// that is not an entry-block one of constant size: `alloca()`, VLAs, and
/// allocas a loop scope brackets with `llvm.stacksave`/`stackrestore`)
/// whose address escapes to a call (see [`escapes_to_call`]).
fn escaping_dynamic_allocas(f: LLVMValueRef) -> Vec<LLVMValueRef> {
    // SAFETY: f is a live function definition with an entry block.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(f) };
    let mut out = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            if ir::opcode(inst) != LLVMOpcode::LLVMAlloca || !ir::is_ptr_as0(inst) {
                continue;
            }
            if bb == entry && ir::const_int(ir::operand(inst, 0)).is_some() {
                continue;
            }
            if escapes_to_call(inst) {
                out.push(inst);
            }
        }
    }
    out
}

/// The frame-end checks of the dynamic stack area (after ASan's
/// `DynamicAllocaLayout`, which unpoisons `[last alloca, frame)` at each
/// return and `llvm.stackrestore`). The size of a dynamic allocation is a
/// run-time value and an `alloca()` in a loop allocates anew at each
/// iteration, so the checks cover the area rather than each variable:
/// the stack pointer at entry (`llvm.stacksave`, after the static frame)
/// is the area's top, and a slot in the frame holds its lowest live
/// address, lowered after each escaping dynamic `alloca`. Before every
/// `ret`/`resume` (before a `musttail` call) `__copier_san_return(low, top
/// - low)`; before every `llvm.stackrestore(p)` (the end of a VLA's scope)
/// `__copier_san_scope_end(low, p - low)` for what the restore frees, and
/// the slot rises to `p`. Returns true if `f` was instrumented.
#[allow(clippy::too_many_arguments)]
fn instrument_dynamic_area(
    b: &Raw,
    m: LLVMModuleRef,
    f: LLVMValueRef,
    allocas: &[LLVMValueRef],
    sites: &Sites,
    i64: LLVMTypeRef,
    frame_end: (LLVMValueRef, LLVMTypeRef),
    scope_end: (LLVMValueRef, LLVMTypeRef),
) -> bool {
    if allocas.is_empty() {
        return false;
    }
    let save_id = ir::intrinsic_id("llvm.stacksave");
    let restore_id = ir::intrinsic_id("llvm.stackrestore");
    if save_id == 0 || restore_id == 0 {
        return false;
    }
    let mut points: Vec<(LLVMValueRef, Option<LLVMValueRef>)> = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            match ir::opcode(inst) {
                LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume => points.push((exit_point(inst), None)),
                LLVMOpcode::LLVMCall
                    if ir::num_args(inst) == 1 && ir::called_function(inst).is_some_and(|g| ir::function_intrinsic_id(g) == restore_id) =>
                {
                    points.push((inst, Some(ir::arg(inst, 0))));
                }
                _ => {}
            }
        }
    }
    // SAFETY: m and f are live; every value built belongs to f, and the
    // builder is positioned before live instructions of f. `top` and
    // `slot` are built in the entry block before its first instruction that
    // is not a static alloca, hence before every dynamic alloca: they
    // dominate every use built below.
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let mut ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let save = c::LLVMGetIntrinsicDeclaration(m, save_id, &mut ptr, 1);
        let save_ty = c::LLVMIntrinsicGetType(ctx, save_id, &mut ptr, 1);
        // Before the first instruction that is not a static alloca (a
        // dynamic alloca may be in the entry block too).
        let entry = c::LLVMGetEntryBasicBlock(f);
        let Some(first) = ir::instructions(entry)
            .find(|&i| ir::opcode(i) != LLVMOpcode::LLVMAlloca || ir::const_int(ir::operand(i, 0)).is_none())
        else {
            return false;
        };
        c::LLVMPositionBuilderBefore(raw(b), first);
        c::LLVMSetCurrentDebugLocation2(raw(b), sites.fallback);
        let slot = c::LLVMBuildAlloca(raw(b), i64, c"copier_san.dynamic_low".as_ptr());
        let top = c::LLVMBuildCall2(raw(b), save_ty, save, std::ptr::null_mut(), 0, c"copier_san.dynamic_top".as_ptr());
        let top_int = c::LLVMBuildPtrToInt(raw(b), top, i64, c"".as_ptr());
        c::LLVMBuildStore(raw(b), top_int, slot);
        for &a in allocas {
            let Some(next) = ir::next_instruction(a) else { continue };
            c::LLVMPositionBuilderBefore(raw(b), next);
            c::LLVMSetCurrentDebugLocation2(raw(b), located(a).unwrap_or(sites.fallback));
            let addr = c::LLVMBuildPtrToInt(raw(b), a, i64, c"".as_ptr());
            let low = c::LLVMBuildLoad2(raw(b), i64, slot, c"".as_ptr());
            let below = c::LLVMBuildICmp(raw(b), LLVMIntPredicate::LLVMIntULT, addr, low, c"".as_ptr());
            let new = c::LLVMBuildSelect(raw(b), below, addr, low, c"".as_ptr());
            c::LLVMBuildStore(raw(b), new, slot);
        }
        for (at, restored) in points {
            let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
            c::LLVMPositionBuilderBefore(raw(b), at);
            c::LLVMSetCurrentDebugLocation2(raw(b), loc);
            let low = c::LLVMBuildLoad2(raw(b), i64, slot, c"".as_ptr());
            let (end, (callee, ty)) = match restored {
                Some(p) => (c::LLVMBuildPtrToInt(raw(b), p, i64, c"".as_ptr()), scope_end),
                None => (c::LLVMBuildPtrToInt(raw(b), top, i64, c"".as_ptr()), frame_end),
            };
            let above = c::LLVMBuildICmp(raw(b), LLVMIntPredicate::LLVMIntUGT, end, low, c"".as_ptr());
            let diff = c::LLVMBuildSub(raw(b), end, low, c"".as_ptr());
            let size = c::LLVMBuildSelect(raw(b), above, diff, c::LLVMConstInt(i64, 0, 0), c"".as_ptr());
            let mut args = [low, size];
            no_merge(c::LLVMBuildCall2(raw(b), ty, callee, args.as_mut_ptr(), 2, c"".as_ptr()));
            if restored.is_some() {
                let new = c::LLVMBuildSelect(raw(b), above, end, low, c"".as_ptr());
                c::LLVMBuildStore(raw(b), new, slot);
            }
        }
    }
    true
}

/// C++ exceptions (Itanium C++ ABI 2.4): a throw's unwinding kills the
/// frames between the thrower and the handler without running their
/// returns. Before each call (or invoke) of `__cxa_throw`/`__cxa_rethrow`,
/// `__copier_san_cxx_throw(sp)`; before each call of `__cxa_begin_catch`
/// (the handler's first act), `__copier_san_cxx_catch(sp)`; `sp` is the
/// calling frame's stack pointer (`llvm.stacksave`). The runtime checks the
/// stack between the two (`sanitizer/src/interception/jump.rs`). Done in
/// the IR rather than by interposing the C++ runtime, so a program linked
/// with `-static-libstdc++` still links; throws made inside uninstrumented
/// code (libstdc++'s own, `std::rethrow_exception`) are not seen. Returns
/// true if a call was added.
fn instrument_exceptions(
    b: &Raw,
    m: LLVMModuleRef,
    f: LLVMValueRef,
    sites: &Sites,
    i64: LLVMTypeRef,
    [throw, catch]: [(LLVMValueRef, LLVMTypeRef); 2],
) -> bool {
    let mut points = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            if !matches!(ir::opcode(inst), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) {
                continue;
            }
            let Some(g) = ir::called_function(inst) else { continue };
            match ir::name(g).as_str() {
                "__cxa_throw" | "__cxa_rethrow" => points.push((inst, throw)),
                "__cxa_begin_catch" => points.push((inst, catch)),
                _ => {}
            }
        }
    }
    if points.is_empty() {
        return false;
    }
    let save_id = ir::intrinsic_id("llvm.stacksave");
    // SAFETY: m and f are live; the builder is positioned before live
    // calls of f (never before a landingpad or phi: the calls follow them).
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let mut ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let save = c::LLVMGetIntrinsicDeclaration(m, save_id, &mut ptr, 1);
        let save_ty = c::LLVMIntrinsicGetType(ctx, save_id, &mut ptr, 1);
        for (at, (callee, ty)) in points {
            let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
            c::LLVMPositionBuilderBefore(raw(b), at);
            c::LLVMSetCurrentDebugLocation2(raw(b), loc);
            let sp = c::LLVMBuildCall2(raw(b), save_ty, save, std::ptr::null_mut(), 0, c"".as_ptr());
            let mut args = [c::LLVMBuildPtrToInt(raw(b), sp, i64, c"".as_ptr())];
            no_merge(c::LLVMBuildCall2(raw(b), ty, callee, args.as_mut_ptr(), 1, c"".as_ptr()));
        }
    }
    true
}

/// Where the checks of a way out of the function go: before `ret`/`resume`
/// `inst`, or before the `musttail` call that precedes it.
fn exit_point(inst: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: inst is a live instruction.
    let prev = unsafe { c::LLVMGetPreviousInstruction(inst) };
    // SAFETY: prev, when not null, is a live instruction.
    let musttail = !prev.is_null()
        && ir::opcode(prev) == LLVMOpcode::LLVMCall
        && unsafe { c::LLVMGetTailCallKind(prev) } == inkwell::llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail;
    if musttail {
        prev
    } else {
        inst
    }
}

/// True if only markers (lifetime ends, debug intrinsics) separate `inst`
/// from its block's `ret`.
fn followed_by_return(inst: LLVMValueRef) -> bool {
    let mut i = ir::next_instruction(inst);
    while let Some(n) = i {
        match ir::opcode(n) {
            LLVMOpcode::LLVMRet => return true,
            LLVMOpcode::LLVMCall if ir::is_debug_or_marker(n) => i = ir::next_instruction(n),
            _ => return false,
        }
    }
    false
}

/// Before every way out of `f` (`ret`, `resume`; before a `musttail` call
/// that precedes a `ret`), call `__copier_san_return(addr, size)` for each
/// escaping stack variable, and before an `llvm.lifetime.end` of one that is
/// not right before a return, `__copier_san_scope_end(addr, size)`: a copy
/// still pending into (or from) the variable when its frame or scope ends
/// would land in (read) memory the program reuses. The calls carry the
/// `ret`'s (the marker's) line. Returns true if any call was added.
fn instrument_frame_ends(
    b: &Raw,
    k: &Checks,
    f: LLVMValueRef,
    vars: &[(LLVMValueRef, u64)],
    sites: &Sites,
    i64: LLVMTypeRef,
    frame_end: (LLVMValueRef, LLVMTypeRef),
    scope_end: (LLVMValueRef, LLVMTypeRef),
) -> bool {
    if vars.is_empty() {
        return false;
    }
    let lifetime_end = ir::intrinsic_id("llvm.lifetime.end");
    let mut points: Vec<(LLVMValueRef, Option<LLVMValueRef>)> = Vec::new();
    for bb in ir::blocks(f) {
        for inst in ir::instructions(bb) {
            match ir::opcode(inst) {
                LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume => points.push((exit_point(inst), None)),
                LLVMOpcode::LLVMCall => {
                    let Some(g) = ir::called_function(inst) else { continue };
                    if ir::function_intrinsic_id(g) != lifetime_end || ir::num_args(inst) == 0 || followed_by_return(inst) {
                        continue;
                    }
                    let ptr = ir::arg(inst, ir::num_args(inst) - 1);
                    if vars.iter().any(|&(a, _)| a == ptr) {
                        points.push((inst, Some(ptr)));
                    }
                }
                _ => {}
            }
        }
    }
    for (at, only) in points {
        let loc = located(at).or_else(|| located_before(at)).unwrap_or(sites.fallback);
        let (callee, ty) = if only.is_some() { scope_end } else { frame_end };
        // Nothing pending: no frame can die with a copy in it.
        b.at(at, loc);
        let busy = when_busy(b, k, at, loc, load_live(b, k));
        for &(a, size) in vars.iter().filter(|(a, _)| only.is_none_or(|p| p == *a)) {
            // SAFETY: `busy` is a live instruction of f; `a` is an entry-block
            // alloca of f, which dominates every instruction but the allocas
            // before it (and `busy` is none of those).
            unsafe {
                c::LLVMPositionBuilderBefore(raw(b), busy);
                c::LLVMSetCurrentDebugLocation2(raw(b), loc);
                let addr = c::LLVMBuildPtrToInt(raw(b), a, i64, c"".as_ptr());
                let mut args = [addr, c::LLVMConstInt(i64, size, 0)];
                no_merge(c::LLVMBuildCall2(raw(b), ty, callee, args.as_mut_ptr(), 2, c"".as_ptr()));
            }
        }
    }
    true
}

/// An instrumented function reads the shadow and calls the runtime (which
/// may end the program): its `memory(...)` and `willreturn` attributes no
/// longer hold (ASan drops them too).
fn drop_memory_attrs(f: LLVMValueRef) {
    for name in ["memory", "willreturn", "nosync"] {
        // SAFETY: f is a live function; removing an absent attribute is a no-op.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            c::LLVMRemoveEnumAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind);
        }
    }
}

fn conflict(cx: &ModuleContext<'_>, name: &str) -> bool {
    cx.diagnose(
        None,
        crate::context::Severity::Error,
        &format!("copier-sanitizer: the module defines '{name}' with another type; cannot instrument"),
    );
    false
}

fn collect(cx: &ModuleContext<'_>, inst: LLVMValueRef, memcpy_ids: &[u32], memset_ids: &[u32], out: &mut Vec<Access>) {
    let op = ir::opcode(inst);
    // SAFETY: inst is a live instruction of the module (handle invariant).
    let align = || unsafe { c::LLVMGetAlignment(inst) };
    let sized = |ptr: LLVMValueRef, ty: LLVMTypeRef, write: bool, out: &mut Vec<Access>| {
        if !ir::is_ptr_as0(ptr) {
            return;
        }
        if let Some(size) = cx.store_size(ty).filter(|&s| s > 0) {
            out.push(Access { inst, ptr, write, size: Some(size), len: None, align: align(), site: Site::Fixed(std::ptr::null_mut()), run: 0 });
        }
    };
    match op {
        LLVMOpcode::LLVMLoad => {
            let ptr = ir::operand(inst, 0);
            // SAFETY: ptr is a live value.
            let constant_global = unsafe { !c::LLVMIsAGlobalVariable(ptr).is_null() && c::LLVMIsGlobalConstant(ptr) != 0 };
            if !constant_global {
                sized(ptr, ir::type_of(inst), false, out);
            }
        }
        LLVMOpcode::LLVMStore => sized(ir::operand(inst, 1), ir::type_of(ir::operand(inst, 0)), true, out),
        LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
            sized(ir::operand(inst, 0), ir::type_of(ir::operand(inst, 1)), true, out)
        }
        LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
            call_site_args(cx, inst, out);
            if op != LLVMOpcode::LLVMCall {
                return;
            }
            let Some(callee) = ir::called_function(inst) else { return };
            let id = ir::function_intrinsic_id(callee);
            if id == 0 {
                return;
            }
            if memcpy_ids.contains(&id) {
                let (dst, src, len) = (ir::arg(inst, 0), ir::arg(inst, 1), ir::arg(inst, 2));
                if ir::is_ptr_as0(src) {
                    out.push(Access { inst, ptr: src, write: false, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
                if ir::is_ptr_as0(dst) {
                    out.push(Access { inst, ptr: dst, write: true, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
            } else if memset_ids.contains(&id) {
                let (dst, len) = (ir::arg(inst, 0), ir::arg(inst, 2));
                if ir::is_ptr_as0(dst) {
                    out.push(Access { inst, ptr: dst, write: true, size: None, len: Some(len), align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
                }
            }
        }
        _ => {}
    }
}

/// The accesses a call instruction makes itself, through arguments passed in
/// memory (LangRef, "Parameter Attributes"): a `byval`, `byref`,
/// `preallocated` or `inalloca` argument's bytes are read at the call site
/// (CodeGen lowers a `byval` argument to a copy into the callee's argument
/// area after this pass ran, so no load of the IR shows that read), and an
/// `sret` argument is written by the callee on the call's behalf. Each is
/// checked before the call over the attribute type's store size, as a load
/// or store of that size (as ASan's `-asan-instrument-byval`); the check
/// carries the call's line. Attributes are read from the call site, else
/// from the called function's declaration.
fn call_site_args(cx: &ModuleContext<'_>, inst: LLVMValueRef, out: &mut Vec<Access>) {
    let callee = ir::called_function(inst);
    if callee.is_some_and(|f| ir::function_intrinsic_id(f) != 0) {
        return;
    }
    let kinds = [("byval", false), ("byref", false), ("preallocated", false), ("inalloca", false), ("sret", true)];
    for i in 0..ir::num_args(inst) {
        let ptr = ir::arg(inst, i);
        if !ir::is_ptr_as0(ptr) {
            continue;
        }
        for &(name, write) in &kinds {
            // SAFETY: inst is a live call site and callee (if any) a function
            // of the module; attribute index i + 1 is argument i; a type
            // attribute's value is a type of the module's context.
            let ty = unsafe {
                let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
                let mut attr = c::LLVMGetCallSiteEnumAttribute(inst, i + 1, kind);
                if attr.is_null() {
                    if let Some(f) = callee.filter(|&f| (i as usize) < c::LLVMCountParams(f) as usize) {
                        attr = c::LLVMGetEnumAttributeAtIndex(f, i + 1, kind);
                    }
                }
                if attr.is_null() {
                    continue;
                }
                c::LLVMGetTypeAttributeValue(attr)
            };
            if ty.is_null() {
                continue;
            }
            if let Some(size) = cx.store_size(ty).filter(|&s| s > 0) {
                out.push(Access { inst, ptr, write, size: Some(size), len: None, align: 1, site: Site::Fixed(std::ptr::null_mut()), run: 0 });
            }
            break;
        }
    }
}

/// Keeps a call to an external function that takes a pointer a real call,
/// by marking the call site `nobuiltin` (as AddressSanitizer's
/// `maybeMarkSanitizerLibraryCallNoBuiltin`). CodeGen runs after this pass
/// and may expand a recognised library call inline: ExpandMemCmp turns
/// `memcmp`/`bcmp` with a small constant length into plain loads, and
/// SelectionDAG lowers other `mem*`/`str*` calls on some targets. Those
/// loads would be unchecked; as a call, the runtime's interceptor checks
/// it. Calls with the `builtin` attribute (C++ `operator new`) and
/// intrinsics are left alone; a call to a function that is not a library
/// function is unaffected by `nobuiltin`.
fn keep_libcall(inst: LLVMValueRef) {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall {
        return;
    }
    let Some(callee) = ir::called_function(inst) else { return };
    if !ir::is_declaration(callee) || ir::function_intrinsic_id(callee) != 0 {
        return;
    }
    // SAFETY: inst is a live call; the attribute kinds are looked up by name
    // and the parameter array has exactly LLVMCountParamTypes entries.
    unsafe {
        let fn_ty = c::LLVMGetCalledFunctionType(inst);
        let n = c::LLVMCountParamTypes(fn_ty) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        c::LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
        if !params.iter().any(|&t| ir::type_kind(t) == inkwell::llvm_sys::LLVMTypeKind::LLVMPointerTypeKind) {
            return;
        }
        let kind = |name: &str| c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
        let fn_index = inkwell::llvm_sys::LLVMAttributeFunctionIndex;
        let (builtin, nobuiltin) = (kind("builtin"), kind("nobuiltin"));
        if nobuiltin == 0 || !c::LLVMGetCallSiteEnumAttribute(inst, fn_index, builtin).is_null() {
            return;
        }
        let attr = c::LLVMCreateEnumAttribute(c::LLVMGetTypeContext(ir::type_of(inst)), nobuiltin, 0);
        c::LLVMAddCallSiteAttribute(inst, fn_index, attr);
    }
}

/// libcopier's `csync_ready_end` and the runtime's replacement
/// `__copier_san_ready_end` (same type), if the module calls the former.
/// Under the sanitizer libcopier returns exactly `addr + n`, so a CopierGen
/// window loop would call the runtime once per access; the replacement
/// returns a window that is wider yet decided by program events only (see
/// `sanitizer/src/interface.rs`).
fn ready_end_replacement(m: LLVMModuleRef) -> Option<(LLVMValueRef, LLVMValueRef)> {
    // SAFETY: m is the live module; the name is NUL-terminated.
    let from = unsafe { c::LLVMGetNamedFunction(m, c"csync_ready_end".as_ptr()) };
    if from.is_null() {
        return None;
    }
    // SAFETY: from is a function of m.
    let fn_ty = unsafe { c::LLVMGlobalGetValueType(from) };
    // SAFETY: fn_ty is a function type; the arrays have LLVMCountParamTypes entries.
    let (ret, params) = unsafe {
        let n = c::LLVMCountParamTypes(fn_ty) as usize;
        let mut params = vec![std::ptr::null_mut(); n];
        c::LLVMGetParamTypes(fn_ty, params.as_mut_ptr());
        (c::LLVMGetReturnType(fn_ty), params)
    };
    let (to, _) = ir::get_or_declare(m, c"__copier_san_ready_end", ret, &params, &["nounwind"])?;
    // SAFETY: both are functions of m.
    (unsafe { c::LLVMGlobalGetValueType(to) } == fn_ty).then_some((from, to))
}

/// Make a direct call to `from` call `to` (same function type).
fn redirect_call(inst: LLVMValueRef, from: LLVMValueRef, to: LLVMValueRef) {
    if ir::opcode(inst) != LLVMOpcode::LLVMCall || ir::called_function(inst) != Some(from) {
        return;
    }
    // SAFETY: the callee is a call's last operand; `to` has the same type.
    unsafe {
        let n = c::LLVMGetNumOperands(inst);
        c::LLVMSetOperand(inst, (n - 1) as u32, to);
    }
}

/// A debug location with a line (not null, not line 0).
fn located(inst: LLVMValueRef) -> Option<LLVMMetadataRef> {
    // SAFETY: inst is a live instruction; a non-null debug location is a
    // DILocation.
    unsafe {
        let loc = di::LLVMInstructionGetDebugLoc(inst);
        (!loc.is_null() && di::LLVMDILocationGetLine(loc) != 0).then_some(loc)
    }
}

/// The located instruction nearest before `inst` in its block.
fn located_before(inst: LLVMValueRef) -> Option<LLVMMetadataRef> {
    // SAFETY: inst is a live instruction.
    let mut i = unsafe { c::LLVMGetPreviousInstruction(inst) };
    while !i.is_null() {
        if let Some(l) = located(i) {
            return Some(l);
        }
        // SAFETY: as above.
        i = unsafe { c::LLVMGetPreviousInstruction(i) };
    }
    None
}

/// Resolves the debug location of each check call of one function (see
/// [`Site`]): the access's own location if it has a line; else the nearest
/// located instruction before it (in its block, then back through unique
/// predecessors); else, for a block entered from predecessors that end at
/// different lines, the line of the predecessor actually taken; else a
/// location on the function's own line (its `DISubprogram`), so a report
/// never lacks a line of the user's program.
struct Sites {
    /// Predecessors of each block, one entry per CFG edge.
    preds: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
    /// The site of an access with no located instruction before it in its block.
    entry: HashMap<LLVMBasicBlockRef, Site>,
    /// Location on the function's line, or null without debug info.
    fallback: LLVMMetadataRef,
}

impl Sites {
    fn new(f: LLVMValueRef) -> Sites {
        let mut preds: HashMap<_, Vec<_>> = HashMap::new();
        for bb in ir::blocks(f) {
            for s in ir::successors(bb) {
                preds.entry(s).or_default().push(bb);
            }
        }
        // SAFETY: f is a live function definition; the subprogram, when
        // present, is a DISubprogram of this function.
        let fallback = unsafe {
            let sp = di::LLVMGetSubprogram(f);
            if sp.is_null() {
                std::ptr::null_mut()
            } else {
                let ctx = c::LLVMGetTypeContext(c::LLVMGlobalGetValueType(f));
                di::LLVMDIBuilderCreateDebugLocation(ctx, di::LLVMDISubprogramGetLine(sp), 0, sp, std::ptr::null_mut())
            }
        };
        Sites { preds, entry: HashMap::new(), fallback }
    }

    fn site(&mut self, b: &Raw, inst: LLVMValueRef) -> Site {
        if let Some(l) = located(inst).or_else(|| located_before(inst)) {
            return Site::Fixed(l);
        }
        let bb = ir::parent_block(inst);
        if let Some(s) = self.entry.get(&bb) {
            return s.clone();
        }
        let s = self.entry_site(b, bb);
        self.entry.insert(bb, s.clone());
        s
    }

    fn distinct_preds(&self, bb: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
        let mut v: Vec<LLVMBasicBlockRef> = Vec::new();
        for &p in self.preds.get(&bb).map_or(&[][..], |v| &v[..]) {
            if !v.contains(&p) {
                v.push(p);
            }
        }
        v
    }

    /// The location the program last passed in `bb` (from its end), going
    /// back through unique predecessors (at most 16 blocks).
    fn at_end(&self, mut bb: LLVMBasicBlockRef) -> Option<LLVMMetadataRef> {
        for _ in 0..16 {
            let term = ir::block_terminator_of(bb);
            if term.is_null() {
                return None;
            }
            if let Some(l) = located(term).or_else(|| located_before(term)) {
                return Some(l);
            }
            match self.distinct_preds(bb)[..] {
                [p] if p != bb => bb = p,
                _ => return None,
            }
        }
        None
    }

    fn entry_site(&self, b: &Raw, bb: LLVMBasicBlockRef) -> Site {
        let preds = self.distinct_preds(bb);
        let locs: Vec<LLVMMetadataRef> = preds.iter().map(|&p| self.at_end(p).unwrap_or(self.fallback)).collect();
        // SAFETY: every non-null location is a live DILocation.
        let key = |l: LLVMMetadataRef| unsafe {
            if l.is_null() {
                (0, std::ptr::null_mut())
            } else {
                (di::LLVMDILocationGetLine(l), di::LLVMDILocationGetScope(l))
            }
        };
        let mut distinct: Vec<LLVMMetadataRef> = Vec::new();
        let mut index = Vec::with_capacity(locs.len());
        for &l in &locs {
            let i = distinct.iter().position(|&d| key(d) == key(l)).unwrap_or_else(|| {
                distinct.push(l);
                distinct.len() - 1
            });
            index.push(i as u64);
        }
        match distinct.len() {
            0 => Site::Fixed(self.fallback),
            1 => Site::Fixed(distinct[0]),
            _ => {
                // SAFETY: bb is a live block with a terminator, entered from
                // exactly the edges in self.preds[bb]; the phi goes before
                // its first instruction and gets one incoming value per edge.
                let phi = unsafe {
                    let first = c::LLVMGetFirstInstruction(bb);
                    c::LLVMPositionBuilderBefore(raw(b), first);
                    c::LLVMSetCurrentDebugLocation2(raw(b), std::ptr::null_mut());
                    let ctx = c::LLVMGetTypeContext(ir::type_of(first));
                    let i32 = c::LLVMInt32TypeInContext(ctx);
                    let phi = c::LLVMBuildPhi(raw(b), i32, c"copier_san.site".as_ptr());
                    for &p in self.preds.get(&bb).map_or(&[][..], |v| &v[..]) {
                        let k = preds.iter().position(|&q| q == p).map_or(0, |j| index[j]);
                        let mut v = [c::LLVMConstInt(i32, k, 0)];
                        let mut blocks = [p];
                        c::LLVMAddIncoming(phi, v.as_mut_ptr(), blocks.as_mut_ptr(), 1);
                    }
                    phi
                };
                Site::ByPredecessor { phi, locs: distinct }
            }
        }
    }
}

impl Site {
    /// One location for a check that cannot branch on the predecessor.
    fn first(&self) -> LLVMMetadataRef {
        match self {
            Site::Fixed(l) => *l,
            Site::ByPredecessor { locs, .. } => locs.first().copied().unwrap_or(std::ptr::null_mut()),
        }
    }
}

/// Shadow bits (a power of two) the fast path loads for an access.
fn shadow_width_bits(size: u64, align: u32) -> u32 {
    if align >= 4 && size >= 4 {
        // 4-aligned: exactly size/4 shadow bytes.
        return (size / 4 * 8) as u32;
    }
    match size {
        1 => 8,
        2 | 4 => 16,
        8 => 32,
        _ => 64,
    }
}

/// Emits the check of `a`; `runs` holds the [`LIVE`] load of each run of
/// accesses (see [`Access::run`]) built so far.
fn emit_check(b: &Raw, k: &Checks, a: &Access, runs: &mut HashMap<usize, LLVMValueRef>) {
    if a.size.is_none() && a.len.is_none() {
        return;
    }
    let w = usize::from(a.write);
    // SAFETY: a.inst is a live instruction in a block.
    let loc = unsafe { di::LLVMInstructionGetDebugLoc(a.inst) };
    // The fast path: nothing pending anywhere, the whole shadow is clear.
    b.at(a.inst, loc);
    let n = *runs.entry(a.run).or_insert_with(|| load_live(b, k));
    let busy = when_busy(b, k, a.inst, loc, n);
    b.at(busy, loc);
    // SAFETY: all values are live in the module; the builder is positioned
    // before the busy block's terminator, in the same function.
    let addr = unsafe { c::LLVMBuildPtrToInt(raw(b), a.ptr, k.i64, c"".as_ptr()) };
    let slot = a.size.and_then(|s| [1u64, 2, 4, 8, 16].iter().position(|&x| x == s));
    match slot {
        Some(i) => {
            let size = a.size.unwrap_or(1);
            let bits = shadow_width_bits(size, a.align);
            // SAFETY: as above; the shadow address is in the runtime's mapped
            // shadow for every application address.
            let cond = unsafe {
                let ctx = c::LLVMGetTypeContext(k.i64);
                let wty = c::LLVMIntTypeInContext(ctx, bits);
                let sh = c::LLVMBuildLShr(raw(b), addr, c::LLVMConstInt(k.i64, SHADOW_SCALE, 0), c"".as_ptr());
                let sa = c::LLVMBuildAdd(raw(b), sh, c::LLVMConstInt(k.i64, SHADOW_OFFSET, 0), c"".as_ptr());
                let sp = c::LLVMBuildIntToPtr(raw(b), sa, c::LLVMPointerTypeInContext(ctx, 0), c"".as_ptr());
                let v = c::LLVMBuildLoad2(raw(b), wty, sp, c"copier_san.shadow".as_ptr());
                c::LLVMSetAlignment(v, 1);
                let v = if a.write {
                    v
                } else {
                    let mask = u64::from_ne_bytes([DST_BITS; 8]) >> (64 - bits);
                    c::LLVMBuildAnd(raw(b), v, c::LLVMConstInt(wty, mask, 0), c"".as_ptr())
                };
                c::LLVMBuildICmp(raw(b), LLVMIntPredicate::LLVMIntNE, v, c::LLVMConstInt(wty, 0, 0), c"".as_ptr())
            };
            let term = split_if_then(cond, busy, true);
            let (f, ty) = k.sized[w][i];
            match &a.site {
                // SAFETY: term is the new block's terminator; the call takes
                // the site's debug location so the report names its line.
                Site::Fixed(loc) => unsafe {
                    c::LLVMPositionBuilderBefore(raw(b), term);
                    c::LLVMSetCurrentDebugLocation2(raw(b), *loc);
                    let mut args = [addr];
                    no_merge(c::LLVMBuildCall2(raw(b), ty, f, args.as_mut_ptr(), 1, c"".as_ptr()));
                },
                // SAFETY: the cold block ends in `br cont`; it is replaced by
                // a switch on the site phi (defined at the top of a block that
                // dominates the access) to one call block per location, each
                // branching to `cont`.
                Site::ByPredecessor { phi, locs } => unsafe {
                    let cold = c::LLVMGetInstructionParent(term);
                    let cont = c::LLVMGetSuccessor(term, 0);
                    let func = c::LLVMGetBasicBlockParent(cold);
                    let ctx = c::LLVMGetTypeContext(k.i64);
                    c::LLVMInstructionEraseFromParent(term);
                    let mut targets = Vec::with_capacity(locs.len());
                    for &loc in locs {
                        let bb = c::LLVMAppendBasicBlockInContext(ctx, func, c"copier_san.report".as_ptr());
                        c::LLVMPositionBuilderAtEnd(raw(b), bb);
                        c::LLVMSetCurrentDebugLocation2(raw(b), loc);
                        let mut args = [addr];
                        no_merge(c::LLVMBuildCall2(raw(b), ty, f, args.as_mut_ptr(), 1, c"".as_ptr()));
                        c::LLVMBuildBr(raw(b), cont);
                        targets.push(bb);
                    }
                    c::LLVMPositionBuilderAtEnd(raw(b), cold);
                    c::LLVMSetCurrentDebugLocation2(raw(b), std::ptr::null_mut());
                    let sw = c::LLVMBuildSwitch(raw(b), *phi, targets[0], (targets.len() - 1) as u32);
                    let i32 = c::LLVMTypeOf(*phi);
                    for (j, &t) in targets.iter().enumerate().skip(1) {
                        c::LLVMAddCase(sw, c::LLVMConstInt(i32, j as u64, 0), t);
                    }
                },
            }
        }
        None => {
            // SAFETY: as above; `l` is the intrinsic's integer length.
            unsafe {
                let len = match (a.size, a.len) {
                    (Some(s), _) => c::LLVMConstInt(k.i64, s, 0),
                    (None, Some(l)) => c::LLVMBuildIntCast2(raw(b), l, k.i64, 0, c"".as_ptr()),
                    (None, None) => return,
                };
                let (f, ty) = k.n[w];
                c::LLVMSetCurrentDebugLocation2(raw(b), a.site.first());
                let mut args = [addr, len];
                no_merge(c::LLVMBuildCall2(raw(b), ty, f, args.as_mut_ptr(), 2, c"".as_ptr()));
            }
        }
    }
}

/// Loads [`LIVE`] at the builder's position. The load is `unordered`:
/// when it reads 0 no copy is pending and the whole shadow is clear; a copy
/// another thread submits is seen through the synchronization that hands
/// its buffer over, and only the program's own calls submit on this thread.
fn load_live(b: &Raw, k: &Checks) -> LLVMValueRef {
    // SAFETY: k.live is the module's i64 global; the builder is positioned
    // in a function definition.
    unsafe {
        let n = c::LLVMBuildLoad2(raw(b), k.i64, k.live, c"copier_san.live".as_ptr());
        c::LLVMSetOrdering(n, inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingUnordered);
        c::LLVMSetAlignment(n, 8);
        n
    }
}

/// Splits before `inst`: `if (live != 0) { new block } inst...`, and
/// returns the new block's terminator (the checks go before it). `live` is
/// a load of [`LIVE`] that dominates `inst` with no call between.
fn when_busy(b: &Raw, k: &Checks, inst: LLVMValueRef, loc: LLVMMetadataRef, live: LLVMValueRef) -> LLVMValueRef {
    b.at(inst, loc);
    // SAFETY: the builder is positioned before `inst`, an instruction (not
    // a PHI) of a function definition; `live` is an i64 there.
    let busy = unsafe { c::LLVMBuildICmp(raw(b), LLVMIntPredicate::LLVMIntNE, live, c::LLVMConstInt(k.i64, 0, 0), c"".as_ptr()) };
    split_if_then(busy, inst, true)
}

/// Marks a check call `nomerge`: CodeGen's tail merging (BranchFolding)
/// and SimplifyCFG otherwise fold identical check calls of different
/// source lines into one with a merged (line 0) location, and the report
/// would lose its line.
fn no_merge(call: LLVMValueRef) {
    // SAFETY: call is a live call instruction; the kind is looked up by name.
    unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(c"nomerge".as_ptr(), "nomerge".len());
        if kind != 0 {
            let attr = c::LLVMCreateEnumAttribute(c::LLVMGetTypeContext(ir::type_of(call)), kind, 0);
            c::LLVMAddCallSiteAttribute(call, inkwell::llvm_sys::LLVMAttributeFunctionIndex, attr);
        }
    }
}

/// An LLVM-C builder of this pass's own, disposed on drop.
struct Raw(LLVMBuilderRef);

impl Raw {
    fn new(m: LLVMModuleRef) -> Raw {
        // SAFETY: m is the live module of this pass run.
        Raw(unsafe { c::LLVMCreateBuilderInContext(c::LLVMGetModuleContext(m)) })
    }

    /// Position before `inst` with the debug location `loc`.
    fn at(&self, inst: LLVMValueRef, loc: LLVMMetadataRef) {
        // SAFETY: inst is a live instruction in a block; loc is null or a
        // DILocation.
        unsafe {
            c::LLVMPositionBuilderBefore(self.0, inst);
            c::LLVMSetCurrentDebugLocation2(self.0, loc);
        }
    }

    /// Position before `inst` with `inst`'s debug location.
    fn before(&self, inst: LLVMValueRef) {
        // SAFETY: inst is a live instruction in a block.
        unsafe {
            c::LLVMPositionBuilderBefore(self.0, inst);
            c::LLVMSetCurrentDebugLocation2(self.0, di::LLVMInstructionGetDebugLoc(inst));
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateBuilderInContext, disposed once.
        unsafe { c::LLVMDisposeBuilder(self.0) }
    }
}

fn raw(b: &Raw) -> LLVMBuilderRef {
    b.0
}

/// Adds `copier_san.module_ctor` (calls the runtime's init and version
/// check) to `llvm.global_ctors` with priority 1.
fn add_module_ctor(cx: &ModuleContext<'_>, b: &ir::Builder) {
    let m = cx.raw();
    let void = b.void_type();
    let (Some((init, init_ty)), Some((check, check_ty))) = (declare(m, INIT, &[], void), declare(m, VERSION_CHECK, &[], void)) else {
        conflict(cx, INIT);
        return;
    };
    // SAFETY: m is the live module; every value built belongs to it.
    unsafe {
        let ctx = c::LLVMGetModuleContext(m);
        let fn_ty = c::LLVMFunctionType(void, std::ptr::null_mut(), 0, 0);
        let ctor = c::LLVMAddFunction(m, c"copier_san.module_ctor".as_ptr(), fn_ty);
        c::LLVMSetLinkage(ctor, LLVMLinkage::LLVMInternalLinkage);
        let entry = c::LLVMAppendBasicBlockInContext(ctx, ctor, c"".as_ptr());
        let bb = c::LLVMCreateBuilderInContext(ctx);
        c::LLVMPositionBuilderAtEnd(bb, entry);
        c::LLVMBuildCall2(bb, init_ty, init, std::ptr::null_mut(), 0, c"".as_ptr());
        c::LLVMBuildCall2(bb, check_ty, check, std::ptr::null_mut(), 0, c"".as_ptr());
        c::LLVMBuildRetVoid(bb);
        c::LLVMDisposeBuilder(bb);

        let i32 = c::LLVMInt32TypeInContext(ctx);
        let ptr = c::LLVMPointerTypeInContext(ctx, 0);
        let mut fields = [i32, ptr, ptr];
        let elem_ty = c::LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), 3, 0);
        let mut elems: Vec<LLVMValueRef> = Vec::new();
        let old = c::LLVMGetNamedGlobal(m, c"llvm.global_ctors".as_ptr());
        if !old.is_null() {
            let init = c::LLVMGetInitializer(old);
            if !init.is_null() && c::LLVMIsAConstantAggregateZero(init).is_null() {
                for i in 0..c::LLVMGetNumOperands(init) {
                    elems.push(c::LLVMGetOperand(init, i as u32));
                }
            }
            c::LLVMSetValueName2(old, c"llvm.global_ctors.old".as_ptr(), "llvm.global_ctors.old".len());
        }
        let mut vals = [c::LLVMConstInt(i32, CTOR_PRIORITY, 0), ctor, c::LLVMConstPointerNull(ptr)];
        elems.push(c::LLVMConstNamedStruct(elem_ty, vals.as_mut_ptr(), 3));
        let arr = c::LLVMConstArray2(elem_ty, elems.as_mut_ptr(), elems.len() as u64);
        let g = c::LLVMAddGlobal(m, c::LLVMTypeOf(arr), c"llvm.global_ctors".as_ptr());
        c::LLVMSetInitializer(g, arr);
        c::LLVMSetLinkage(g, LLVMLinkage::LLVMAppendingLinkage);
        if !old.is_null() {
            c::LLVMDeleteGlobal(old);
        }
    }
}


/// The runtime's pending-copy count [`LIVE`], declared as an external
/// `i64` global (None if the module defines the name otherwise).
fn live_word(m: LLVMModuleRef, i64: LLVMTypeRef) -> Option<LLVMValueRef> {
    let name = CString::new(LIVE).ok()?;
    // SAFETY: m is the live module; the name is NUL-terminated.
    unsafe {
        let g = c::LLVMGetNamedGlobal(m, name.as_ptr());
        if !g.is_null() {
            return (c::LLVMGlobalGetValueType(g) == i64).then_some(g);
        }
        if !c::LLVMGetNamedFunction(m, name.as_ptr()).is_null() {
            return None;
        }
        Some(c::LLVMAddGlobal(m, i64, name.as_ptr()))
    }
}

/// True if `f` is an internal forwarder to `target` (CopierGen's
/// `preserve_allcc` miss helper, [`ir::get_or_define_forwarder`]): one block
/// that calls `target` with its own parameters and returns the result.
fn is_forwarder_to(f: LLVMValueRef, target: LLVMValueRef) -> bool {
    if ir::is_declaration(f) {
        return false;
    }
    // SAFETY: f is a function definition of the module.
    let (internal, blocks) = unsafe {
        (c::LLVMGetLinkage(f) == LLVMLinkage::LLVMInternalLinkage || c::LLVMGetLinkage(f) == LLVMLinkage::LLVMPrivateLinkage, c::LLVMCountBasicBlocks(f))
    };
    if !internal || blocks != 1 {
        return false;
    }
    let Some(bb) = ir::blocks(f).next() else { return false };
    let insts: Vec<LLVMValueRef> = ir::instructions(bb).collect();
    let [call, ret] = insts[..] else { return false };
    ir::opcode(call) == LLVMOpcode::LLVMCall
        && ir::called_function(call) == Some(target)
        && (0..ir::num_args(call)).all(|i| ir::param(f, i) == Some(ir::arg(call, i)))
        && ir::opcode(ret) == LLVMOpcode::LLVMRet
        && ir::operand(ret, 0) == call
}

/// Guards a `csync_ready_end` miss (a direct call, or a call of a forwarder
/// to it) with the runtime's pending-copy count: when [`LIVE`] is 0 the
/// answer is the whole address space (`(void *)-1`, what
/// `__copier_san_ready_end` returns then) and no call is made; otherwise
/// the call runs as before, on a cold path.
fn skip_when_idle(b: &Raw, live: LLVMValueRef, call: LLVMValueRef) {
    let head = ir::parent_block(call);
    let Some(next) = ir::next_instruction(call) else { return };
    b.before(call);
    // SAFETY: `call` is a live call returning a pointer, in a block of a
    // function definition; the load, compare and phi are built in its
    // function, the phi at the top of the block the split leaves `call`'s
    // successors in, whose predecessors are exactly `head` and the new
    // block.
    unsafe {
        let i64 = c::LLVMGlobalGetValueType(live);
        let n = c::LLVMBuildLoad2(raw(b), i64, live, c"copier_san.live".as_ptr());
        c::LLVMSetOrdering(n, inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic);
        c::LLVMSetAlignment(n, 8);
        let busy = c::LLVMBuildICmp(raw(b), LLVMIntPredicate::LLVMIntNE, n, c::LLVMConstInt(i64, 0, 0), c"".as_ptr());
        let term = split_if_then(busy, call, true);
        let cold = c::LLVMGetInstructionParent(term);
        ir::remove_from_parent(call);
        c::LLVMPositionBuilderBefore(raw(b), term);
        c::LLVMInsertIntoBuilder(raw(b), call);
        c::LLVMPositionBuilderBefore(raw(b), next);
        let ty = ir::type_of(call);
        let phi = c::LLVMBuildPhi(raw(b), ty, c"copier_san.ready_end".as_ptr());
        ir::replace_all_uses(call, phi);
        let all = c::LLVMConstIntToPtr(c::LLVMConstAllOnes(i64), ty);
        let mut vals = [call, all];
        let mut blocks = [cold, head];
        c::LLVMAddIncoming(phi, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
    }
}

/// True if no pending copy can cover the memory `ptr` points into: the
/// object under it (through GEPs and casts) is a stack variable or an
/// internal global whose address is only loaded from and stored to
/// (see [`address_stays_local`]). A copy's buffer reaches `amemcpy`, a
/// call; a copy left pending into a frame that died is reported at that
/// frame's end (`__copier_san_return`). `cache` keeps each object's answer.
fn cannot_be_pending(cache: &mut HashMap<LLVMValueRef, bool>, ptr: LLVMValueRef) -> bool {
    let mut v = ptr;
    for _ in 0..64 {
        // SAFETY: v is a live value; a GEP's or cast's operand 0 is its
        // pointer operand.
        let next = unsafe {
            if !c::LLVMIsAGetElementPtrInst(v).is_null() || !c::LLVMIsABitCastInst(v).is_null() || !c::LLVMIsAAddrSpaceCastInst(v).is_null() {
                Some(ir::operand(v, 0))
            } else if !c::LLVMIsAConstantExpr(v).is_null()
                && matches!(c::LLVMGetConstOpcode(v), LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast)
            {
                Some(c::LLVMGetOperand(v, 0))
            } else {
                None
            }
        };
        match next {
            Some(n) => v = n,
            None => break,
        }
    }
    // SAFETY: v is a live value.
    let local = unsafe {
        if !c::LLVMIsAAllocaInst(v).is_null() {
            true
        } else if !c::LLVMIsAGlobalVariable(v).is_null() {
            matches!(c::LLVMGetLinkage(v), LLVMLinkage::LLVMInternalLinkage | LLVMLinkage::LLVMPrivateLinkage)
                && c::LLVMIsThreadLocal(v) == 0
        } else {
            false
        }
    };
    if !local {
        return false;
    }
    *cache.entry(v).or_insert_with(|| address_stays_local(v))
}

/// True if every use of the object `obj`'s address is a load from it, a
/// store to it (not of it), a comparison, a debug or lifetime marker, or a
/// synchronous memory intrinsic, directly or through GEPs, casts, selects
/// and phis: the address never reaches a call (so never `amemcpy`), memory,
/// an integer or another module.
fn address_stays_local(obj: LLVMValueRef) -> bool {
    let mut seen = vec![obj];
    let mut work = vec![obj];
    while let Some(v) = work.pop() {
        for u in ir::users(v) {
            // SAFETY: u is a live user of v.
            let op = unsafe {
                if !c::LLVMIsAConstantExpr(u).is_null() {
                    c::LLVMGetConstOpcode(u)
                } else if !c::LLVMIsAInstruction(u).is_null() {
                    ir::opcode(u)
                } else {
                    return false;
                }
            };
            match op {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast | LLVMOpcode::LLVMSelect | LLVMOpcode::LLVMPHI => {
                    if !seen.contains(&u) {
                        if seen.len() >= 256 {
                            return false;
                        }
                        seen.push(u);
                        work.push(u);
                    }
                }
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => {}
                LLVMOpcode::LLVMStore if ir::operand(u, 0) != v => {}
                LLVMOpcode::LLVMCall if ir::is_debug_or_marker(u) => {}
                LLVMOpcode::LLVMCall
                    if ir::called_function(u).is_some_and(|g| {
                        let id = ir::function_intrinsic_id(g);
                        id != 0 && ["llvm.memcpy", "llvm.memmove", "llvm.memset", "llvm.memcpy.inline", "llvm.memset.inline"].iter().any(|n| ir::intrinsic_id(n) == id)
                    }) => {}
                _ => return false,
            }
        }
    }
    true
}

/// The checks made since the last instruction that may change the shadow
/// (a call) in one block: an access whose pointer and size were checked
/// already, for a write or for this kind of access, is skipped (a write
/// check forbids every bit a read check does). ASan skips repeated
/// addresses in a block the same way.
#[derive(Default)]
struct Checked(Vec<(LLVMValueRef, Option<u64>, Option<LLVMValueRef>, bool)>);

impl Checked {
    /// True if `a` needs its check (and records it).
    fn first(&mut self, a: &Access) -> bool {
        let covered = self.0.iter().any(|&(p, s, l, w)| p == a.ptr && s == a.size && l == a.len && (w || !a.write));
        if !covered {
            self.0.push((a.ptr, a.size, a.len, a.write));
        }
        !covered
    }

    /// Forgets every check after a call that may submit, sync or free;
    /// true if `inst` is one.
    fn after(&mut self, inst: LLVMValueRef) -> bool {
        let call = ir::is_call(inst) && !ir::is_debug_or_marker(inst);
        if call {
            self.0.clear();
        }
        call
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadow_width_covers_every_shadow_byte() {
        for size in [1u64, 2, 4, 8, 16] {
            for align in [1u32, 2, 4, 8, 16] {
                let bits = shadow_width_bits(size, align);
                for addr in 0u64..64 {
                    if addr % u64::from(align) != 0 {
                        continue;
                    }
                    let first = addr >> SHADOW_SCALE;
                    let last = (addr + size - 1) >> SHADOW_SCALE;
                    assert!(last - first < u64::from(bits / 8), "size {size} align {align} addr {addr}");
                }
            }
        }
    }
}
