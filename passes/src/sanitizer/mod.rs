//! CopierSanitizer instrumentation (`-passes=copier-sanitizer`).
//!
//! Every load, store, atomic (`atomicrmw`, `cmpxchg`, atomic loads and
//! stores) and memory intrinsic (`llvm.memcpy`/`memmove`/`memset` and their
//! `.inline` forms) is checked against CopierSanitizer's shadow, and so are
//! the bytes a call reads or writes through `byval`/`byref`/`preallocated`/
//! `inalloca`/`sret` arguments (see [`accesses::call_site_args`]): a read must
//! not meet a pending destination, a write must not meet a pending
//! destination or source (see `sanitizer/src/tracker.rs` for when a byte is
//! pending). The pass runs after CopierGen, so it checks CopierGen's own
//! output: an access CopierGen failed to guard with a `csync` is reported.
//!
//! # Code per access (1 to 16 bytes)
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
//! (The check call of a size other than 1, 2, 4, 8 and 16 is
//! `__copier_san_loadN(addr, size)`.)
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
//! the runtime checks the exact bytes). Longer accesses and memory
//! intrinsics call `__copier_san_{load,store}N(addr, size)` behind the
//! same count test; its first step is the shadow test.
//!
//! # Accesses not checked
//! As ASan's stack-safety and same-address optimizations: accesses to a
//! stack variable or an internal global whose address is only loaded from
//! and stored to (never passed to a call, so never to `amemcpy`, never
//! stored, never turned into an integer: [`accesses::cannot_be_pending`]; a copy
//! left pending into a frame that died is reported at that frame's end,
//! below), loads from constant globals, and an access to the pointer and
//! size a check of the same block already covered with no call between
//! (a write check covers a read; [`accesses::Checked`]).
//!
//! # `csync_ready_end` misses
//! A call of `csync_ready_end` (or of CopierGen's forwarder to it) runs
//! only while `__copier_san_live` is nonzero (a monotonic load); otherwise
//! its answer is `(void *)-1`, what the runtime returns when nothing is
//! pending ([`ready_end::skip_when_idle`]). Frame-end checks sit behind the same test.
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
//! the interceptor sees the call instead), except `memcmp`/`bcmp` of a
//! constant length up to 16 bytes: both reads are checked before the call
//! as loads of that size, and CodeGen expands it as in the plain build
//! ([`libcalls::inline_compare`]). Calls to `csync_ready_end` go to
//! `__copier_san_ready_end`, which returns a wider window than libcopier's
//! exact `addr + n` under the sanitizer, decided by program events only.
//! Check calls are `nomerge` and carry a source line (see [`sites::Site`]).
//!
//! # CopierGen's copies
//! A copy CopierGen made of the program's `memcpy`/`memmove`, and a
//! write/send call it absorbed, may meet CopierGen's own pending copies
//! (it chains them) but must not meet bytes the program's own `amemcpy`
//! left pending, exactly as the `memcpy` or `write` it stands for: each
//! such call gets a call of the runtime's check right before it, which
//! also labels the submit as CopierGen's ([`copiergen_calls`]).
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
//! each return and `llvm.stackrestore` (see [`frames::instrument_dynamic_area`]).
//! Frames left by `longjmp` are checked by the runtime's interceptor;
//! frames a C++ exception unwinds, between the throw and the catch (see
//! [`exceptions::instrument_exceptions`]).
//!
//! # When it runs
//! `opt-22 -passes=copier-sanitizer`; from the default pipelines (after
//! CopierGen) when `-copier-sanitizer` is given or `COPIERGEN_SANITIZE=1`
//! is set (`copiergen cc --sanitize` sets it and links `libcopier_san.a`).
//!
//! Not instrumented: the runtime's own functions (the names CopierGen never
//! rewrites), functions with `disable_sanitizer_instrumentation`, accesses
//! outside address space 0, and the accesses above.

//!
//! # Layout (after `AddressSanitizer.cpp`'s seams)
//! [`abi`] the names shared with the runtime; [`accesses`] what to check;
//! [`checks`] the inline test and its cold call; [`frames`] and
//! [`exceptions`] frame ends; [`sites`] the line a report names;
//! [`ready_end`] `csync_ready_end` under the sanitizer; [`copiergen_calls`]
//! CopierGen's copies and absorbed calls; [`libcalls`] library
//! calls kept as calls; [`ctor`] the module constructor; [`options`].

pub mod abi;
mod accesses;
mod checks;
mod copiergen_calls;
mod ctor;
mod exceptions;
mod frames;
mod libcalls;
pub mod options;
mod ready_end;
mod sites;
mod windows;

pub use abi::*;
pub use options::{ENABLE, ENV_SANITIZE, RECOVER};

use crate::context::ModuleContext;
use crate::ir;
use crate::options::PluginOption;
use crate::pass::{ModulePass, Schedule};
use accesses::{cannot_be_pending, collect, Checked};
use checks::{declare_checks, emit_check, live_word, Checks};
use exceptions::CxxHooks;
use frames::FrameEnds;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::prelude::{LLVMModuleRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// The CopierSanitizer instrumentation pass.
pub struct CopierSanitizer;

impl ModulePass for CopierSanitizer {
    fn name(&self) -> &'static str {
        "copier-sanitizer"
    }

    fn schedule(&self) -> Schedule {
        if options::enabled() {
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

    fn options(&self) -> &'static [&'static PluginOption] {
        options::OPTIONS
    }
}

fn is_runtime_function(f: LLVMValueRef) -> bool {
    let name = ir::name(f);
    // libcopier's own functions have reserved names; a program's `csync`
    // or `copier_flush` is the program's.
    ["__copier", "copier_san."].iter().any(|p| name.starts_with(p))
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
    if ctor::is_instrumented(m) || !supported_target(m) {
        return false;
    }
    let b = ir::Builder::new(m);
    let void = b.void_type();
    let i64 = b.int_type(64);
    let suffix = if recover { NOABORT } else { "" };
    let (sized, n) = match declare_checks(m, i64, void, suffix) {
        Ok(d) => d,
        Err(name) => return conflict(cx, &name),
    };
    let Some(frame_ends) = FrameEnds::declare(m, i64, void, suffix) else {
        return conflict(cx, RETURN);
    };
    let ready_end = ready_end::replacement(m);
    let Some(live) = live_word(m, i64) else {
        return conflict(cx, LIVE);
    };
    let checks = Checks { i64, live, sized, n };
    let Some(cxx) = CxxHooks::declare(m, i64, void) else {
        return conflict(cx, CXX_THROW);
    };
    let copiergen_checks = match copiergen_calls::CopierGenChecks::declare(m, i64, void, suffix) {
        Ok(d) => d,
        Err(name) => return conflict(cx, &name),
    };
    let memcpy_ids = [ir::intrinsic_id("llvm.memcpy"), ir::intrinsic_id("llvm.memmove"), ir::intrinsic_id("llvm.memcpy.inline")];
    let memset_ids = [ir::intrinsic_id("llvm.memset"), ir::intrinsic_id("llvm.memset.inline")];

    let mut private = HashMap::new();
    let forwarders: Vec<LLVMValueRef> = match ready_end {
        Some((from, _)) => ir::functions(m).filter(|&f| ready_end::is_forwarder_to(f, from)).collect(),
        None => Vec::new(),
    };
    for f in ir::functions(m).collect::<Vec<_>>() {
        if ir::is_declaration(f) || is_runtime_function(f) {
            continue;
        }
        let mut accesses = Vec::new();
        let mut misses = Vec::new();
        let mut generated = Vec::new();
        let forwarder = ready_end.is_some_and(|(from, _)| ready_end::is_forwarder_to(f, from));
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
                    // The runtime's count (read by CopierGen's guards) is
                    // never a copy's buffer.
                    if accesses[k].ptr == live || cannot_be_pending(&mut private, accesses[k].ptr) || !checked.first(&accesses[k]) {
                        accesses.remove(k);
                    } else {
                        k += 1;
                    }
                }
                if checked.after(inst) {
                    run += 1;
                }
                if let Some(kind) = copiergen_calls::classify(inst) {
                    generated.push((inst, kind));
                }
                libcalls::keep_libcall(inst);
                if let Some((from, to)) = ready_end {
                    if !forwarder && ir::opcode(inst) == LLVMOpcode::LLVMCall && ir::called_function(inst).is_some_and(|g| g == from || forwarders.contains(&g)) {
                        misses.push(inst);
                    }
                    ready_end::redirect_call(inst, from, to);
                }
            }
        }
        // Bytes inside a window the runtime returned are clear.
        if !misses.is_empty() && !options::CHECK_WINDOWS.bool() {
            let ready = ready_end.map(|(from, to)| vec![from, to]).unwrap_or_default().into_iter().chain(forwarders.iter().copied()).collect();
            let mut w = windows::Windows::new(f, ready, live);
            accesses.retain(|a| !w.covers(a));
        }
        // Before any check is built: the checks' ptrtoint of an alloca
        // would read as an escape.
        let vars = frames::escaping_allocas(cx, f);
        let dynamic = frames::escaping_dynamic_allocas(f);
        // Locations are resolved on the CFG as the optimizer left it, before
        // the checks split any block.
        let mut sites = sites::Sites::new(f);
        for a in &mut accesses {
            a.site = sites.site(&b, a.inst);
        }
        let generated: Vec<_> = generated.into_iter().map(|(inst, kind)| (inst, kind, sites.site(&b, inst).first())).collect();
        if !accesses.is_empty() || !misses.is_empty() {
            frames::hoist_static_allocas(f);
        }
        let mut runs = HashMap::new();
        for a in &accesses {
            emit_check(&b, &checks, a, &mut runs);
        }
        for &call in &misses {
            ready_end::skip_when_idle(&b, live, call);
        }
        for &(call, kind, loc) in &generated {
            copiergen_checks.emit(&b, call, kind, loc);
        }
        let ends = frames::instrument_frame_ends(&b, &checks, f, &vars, &sites, &frame_ends);
        let ends = frames::instrument_dynamic_area(&b, m, f, &dynamic, &sites, &frame_ends) || ends;
        let ends = exceptions::instrument_exceptions(&b, m, f, &sites, &cxx) || ends;
        if !accesses.is_empty() || ends || !misses.is_empty() || !generated.is_empty() {
            drop_memory_attrs(f);
        }
    }
    if let Err(name) = ctor::add_module_ctor(m, &b) {
        conflict(cx, name);
    }
    ctor::mark_instrumented(m);
    true // the module constructor was added
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
