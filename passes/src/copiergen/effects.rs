//! What one instruction may do to a pending copy, and whether that needs a
//! `csync` before it.
//!
//! The rules (DESIGN.md "Semantics"; article: csync before reading or writing
//! the destination, writing or freeing the source, or handing either buffer
//! to another thread or an opaque library):
//!
//! * **narrow**: an access with a known extent (load, store, atomic,
//!   `llvm.memset`, a copy that stays synchronous, `memset`/`memcmp`/
//!   `memchr`/`read`/`write`-like library calls TargetLibraryInfo
//!   recognises, the pointee of a call's `byval`/`byref`/`inalloca`/
//!   `preallocated`/`sret` argument — read or written by the call site
//!   itself, so also before calls to guarded functions and to
//!   `memory(none)` callees) that may read or write the destination, or write the
//!   source, is preceded by `csync(ptr, size)` of exactly its own bytes. One
//!   narrow sync covers every pending copy (csync waits for any copy
//!   touching the range), so the copy stays pending for its other bytes;
//! * **whole copy** (`csync(dst, len)`), for each pending copy concerned:
//!   - an instruction that alias analysis says may touch the destination or
//!     write the source and whose extent is unknown: calls to declarations,
//!     indirect calls, `free`/`realloc`/`munmap`/`operator delete`,
//!     `llvm.lifetime.end`, `va_arg`, inline asm, scalable-vector or
//!     non-address-space-0 accesses. Alias analysis honours callee
//!     attributes (`memory(...)`, `nocapture`, `readnone`, argument-only
//!     access) and capture order (an object no callee can have seen yet
//!     needs no sync);
//!   - inline asm that gets a pointer which may point into a buffer (asm
//!     without a memory clobber may still dereference it);
//!   - a release (atomic store/RMW/cmpxchg/fence with release or stronger
//!     ordering outside the single-thread scope; `pthread_*`, C11 `thrd_*`/
//!     `mtx_*`/`cnd_*`, `sem_post`/`sem_wait`, `__atomic_*`/`__sync_*` calls)
//!     while a buffer may be visible to another thread (anything but a
//!     non-captured local or malloc-like object);
//!   - a volatile store to memory other code can read, while a buffer may
//!     be visible to another thread (a `volatile` ready flag, the hand-off
//!     of code older than C11 atomics);
//!   - an atomic or volatile store (or RMW/cmpxchg) that publishes a pointer
//!     into a buffer to memory other code can read (another thread may read
//!     it at any time; a plain store becomes visible to another thread only
//!     through a later release, call or return, which sync anyway);
//!   - a call that may leave the frame without returning to it: may unwind
//!     (plain `call`, in a function that may unwind), `noreturn`, or not
//!     `willreturn` and not a known library function (`longjmp` from a
//!     callee); `llvm.stackrestore`. Exempt: copies between non-captured
//!     heap objects in a function without `setjmp`;
//! * **every pending copy**: `ret`, `resume`, `musttail` calls (a pending
//!   copy never outlives its frame), `fork`/`vfork`/`exec*`/`posix_spawn`/
//!   `system`/`popen`/`daemon` (a child has no copy service), and
//!   `llvm.coro.*` intrinsics that touch memory.
//!
//! Submissions (the rewritten copies) never need a sync against each other:
//! libcopier orders overlapping copies (RAW/WAR/WAW dependency tracking).

use super::candidates::IntrinsicIds;
use crate::context::{self, FunctionAnalyses, LocSize, Location, ModuleContext, ObjectKind};
use crate::ir;
use copier_abi::symbols;
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// Size of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AccessSize {
    /// A compile-time constant number of bytes.
    Const(u64),
    /// A run-time integer value (bytes), available before the access.
    Value(LLVMValueRef),
    /// Not expressible (scalable vector, unsized).
    Unknown,
}

/// One memory access with a known extent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// First byte.
    pub ptr: LLVMValueRef,
    /// Extent.
    pub size: AccessSize,
    /// May read.
    pub reads: bool,
    /// May write.
    pub writes: bool,
}

impl Access {
    /// The alias-analysis location of the access.
    pub fn location(&self) -> Location {
        let size = match self.size {
            AccessSize::Const(n) => LocSize::Precise(n),
            AccessSize::Value(_) => LocSize::AfterPointer,
            AccessSize::Unknown => LocSize::Unknown,
        };
        Location { ptr: self.ptr, size }
    }

    /// Whether a narrow `csync(ptr, size)` can cover it.
    pub fn syncable(&self) -> bool {
        self.size != AccessSize::Unknown && ir::is_ptr_as0(self.ptr)
    }
}

/// Why a whole-copy sync is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FullReason {
    /// `ret`: the copy must not outlive the frame.
    Return,
    /// `resume`: unwinding out of the frame.
    Resume,
    /// A `musttail` call: the frame ends at the call.
    MustTail,
    /// A call alias analysis cannot clear: may read the destination.
    CallReadsDst,
    /// A call alias analysis cannot clear: may write the destination.
    CallWritesDst,
    /// A call alias analysis cannot clear: may write (or free) the source.
    CallWritesSrc,
    /// A non-call instruction without a known extent touches the buffers.
    UnknownAccess,
    /// `free`, `realloc`, `munmap`, `operator delete` of a buffer.
    Free,
    /// A release operation while a buffer may be visible to other threads.
    Release,
    /// A thread or lock operation (by callee name).
    ThreadOperation,
    /// A volatile store to memory other code can read while a buffer may be
    /// visible to other threads: a flag that says a buffer is ready, the
    /// hand-off of code written before C11 atomics.
    VolatileStore,
    /// A store publishing a pointer into a buffer.
    PointerEscape,
    /// A call that may leave the frame abnormally.
    MayNotReturn,
    /// `llvm.stackrestore` frees dynamic stack memory.
    StackRestore,
    /// `fork`, `exec*`, `posix_spawn`, ... (the child has no copy service).
    ProcessOperation,
    /// A coroutine intrinsic that may suspend the frame.
    Coroutine,
    /// A guarded function's call that may touch memory a caller's copy may
    /// still be writing.
    CallerBuffers,
    /// Inline asm gets a pointer that may point into a buffer.
    AsmOperand,
    /// An access with a known extent, in a function with too many of them
    /// to guard one by one (`-copiergen-max-narrow`).
    CoarseAccess(NarrowReason),
}

impl FullReason {
    /// Whether the sync is there because the analysis could not prove
    /// something (reported as a missed remark too).
    pub fn conservative(self) -> bool {
        matches!(
            self,
            FullReason::CallReadsDst
                | FullReason::CallWritesDst
                | FullReason::CallWritesSrc
                | FullReason::UnknownAccess
                | FullReason::MayNotReturn
                | FullReason::AsmOperand
                | FullReason::CoarseAccess(_)
                | FullReason::CallerBuffers
        )
    }
}

/// Why a narrow sync is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NarrowReason {
    /// The access may read the destination.
    ReadsDst,
    /// The access may write the destination.
    WritesDst,
    /// The access may write the source.
    WritesSrc,
}

/// Everything about one instruction that the placement needs, computed once.
#[derive(Debug, Clone, Default)]
pub struct Effect {
    /// Accesses with a known extent.
    pub accesses: Vec<Access>,
    /// Ask alias analysis about the instruction as a whole.
    pub opaque: bool,
    /// Sync every pending copy before it.
    pub sync_all: Option<FullReasonCell>,
    /// A release operation (thread hand-off).
    pub release: Option<FullReasonCell>,
    /// Stores this pointer value to memory other code can read.
    pub escapes: Option<LLVMValueRef>,
    /// May leave the frame abnormally (or free stack memory).
    pub leaves_frame: Option<FullReasonCell>,
    /// Submits the candidate copy with this index.
    pub submits: Option<usize>,
    /// A call the program makes to the Copier runtime itself (its own
    /// `amemcpy`, ...): cached ready windows are stale after it.
    pub user_submission: bool,
    /// Name of the callee, for remarks.
    pub callee: Option<String>,
    /// The callee releases memory (`free`, `realloc`, `munmap`, `delete`).
    pub frees: bool,
    /// A call to a guarded function (no sync needed for it).
    pub guarded_call: bool,
    /// Pointer operands of inline asm: asm without a memory clobber may
    /// still dereference them (the compiler does not see it), so a buffer
    /// they may point into is synced whole.
    pub asm_pointers: Vec<LLVMValueRef>,
    /// A call of the write/send family: the runtime entry point that
    /// absorbs it ([`absorb_calls`](super::absorb_calls)).
    pub absorb: Option<&'static str>,
}

/// A [`FullReason`] (wrapper so `Effect` can derive `Default`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullReasonCell(pub FullReason);

impl Effect {
    /// Whether the instruction may need a whole-copy sync (anything but
    /// accesses with a nameable extent).
    pub fn may_need_full(&self) -> bool {
        self.sync_all.is_some()
            || self.release.is_some()
            || self.escapes.is_some()
            || self.opaque
            || self.leaves_frame.is_some()
            || !self.asm_pointers.is_empty()
            || self.accesses.iter().any(|a| !a.syncable())
    }

    /// Whether the instruction can matter to a pending copy at all.
    pub fn is_inert(&self) -> bool {
        self.accesses.is_empty()
            && !self.opaque
            && self.sync_all.is_none()
            && self.release.is_none()
            && self.escapes.is_none()
            && self.leaves_frame.is_none()
            && self.submits.is_none()
            && !self.user_submission
    }
}

/// Facts about one candidate copy used by the conflict rules.
#[derive(Debug, Clone)]
pub struct CopyFacts {
    /// Destination location.
    pub dst: Location,
    /// Source location.
    pub src: Location,
    /// A buffer may be visible to another thread (not a non-captured local
    /// or heap object).
    pub shared: bool,
    /// Leaving the frame abnormally cannot expose or kill the buffers (both
    /// are non-captured heap objects and the function has no `setjmp`).
    pub frame_exempt: bool,
    /// The *callers' copies* of a guarded function: whatever its callers
    /// left pending, anywhere in memory the function does not own. `dst` and
    /// `src` are not used (null); syncing it whole is `csync_all`.
    pub callers: bool,
    /// Set for a `memcpy` (not `memmove`) that runs at most once per call
    /// of the function (its block is in no cycle): its source and
    /// destination do not overlap (or are equal), so a read proven inside
    /// `[src, src + len)` needs no sync against it.
    pub source: Option<SourceRange>,
}

/// The source range of a single-instance `memcpy` (see
/// [`CopyFacts::source`]).
#[derive(Debug, Clone, Copy)]
pub struct SourceRange {
    /// The copy call (must dominate the access).
    pub call: LLVMValueRef,
    /// First source byte.
    pub ptr: LLVMValueRef,
    /// Length in bytes (an integer value).
    pub len: LLVMValueRef,
}

/// Whether `object` is memory no other code (thread, callee, caller) can
/// name: a non-captured static alloca or non-captured malloc-like result.
pub fn is_private_object(fa: &FunctionAnalyses<'_>, object: LLVMValueRef) -> bool {
    matches!(context::object_kind(object), ObjectKind::Alloca | ObjectKind::Heap) && !fa.may_be_captured(object)
}

/// Whether another thread may read what a volatile store writes into
/// `object`: not a thread-local, nor an object only this function can name
/// ([`is_private_object`]) or a local whose every use is a load or a store
/// through it (LLVM's capture tracking counts a volatile access as a
/// capture, so a `volatile` local would otherwise look shared).
fn volatile_target_shared(fa: &FunctionAnalyses<'_>, object: LLVMValueRef) -> bool {
    match context::object_kind(object) {
        ObjectKind::ThreadLocal => false,
        ObjectKind::Alloca if only_loaded_and_stored(object) => false,
        _ => !is_private_object(fa, object),
    }
}

/// Whether every use of `object` is a load from it, a store to it (not of
/// it) or a lifetime marker.
fn only_loaded_and_stored(object: LLVMValueRef) -> bool {
    ir::users(object).into_iter().all(|u| match ir::opcode(u) {
        LLVMOpcode::LLVMLoad => true,
        LLVMOpcode::LLVMStore => ir::operand(u, 0) != object,
        LLVMOpcode::LLVMCall => ir::called_function(u).is_some_and(|f| ir::name(f).starts_with("llvm.lifetime.")),
        _ => false,
    })
}

fn is_private_heap(fa: &FunctionAnalyses<'_>, object: LLVMValueRef) -> bool {
    context::object_kind(object) == ObjectKind::Heap && !fa.may_be_captured(object)
}

impl CopyFacts {
    /// Computes the facts of a copy `(dst, src, len)`.
    pub fn new(
        fa: &FunctionAnalyses<'_>,
        dst: LLVMValueRef,
        src: LLVMValueRef,
        const_len: Option<u64>,
        has_setjmp: bool,
        source: Option<SourceRange>,
    ) -> CopyFacts {
        let size = const_len.map_or(LocSize::AfterPointer, LocSize::Precise);
        let dst_obj = context::underlying_object(dst);
        let src_obj = context::underlying_object(src);
        CopyFacts {
            dst: Location { ptr: dst, size },
            src: Location { ptr: src, size },
            shared: !(is_private_object(fa, dst_obj) && is_private_object(fa, src_obj)),
            frame_exempt: !has_setjmp && is_private_heap(fa, dst_obj) && is_private_heap(fa, src_obj),
            callers: false,
            source,
        }
    }

    /// The callers' pending copies of a guarded function (see
    /// [`CopyFacts::callers`]).
    pub fn callers() -> CopyFacts {
        let none = Location { ptr: std::ptr::null_mut(), size: LocSize::Unknown };
        CopyFacts { dst: none, src: none, shared: true, frame_exempt: false, callers: true, source: None }
    }
}

/// An argument of a library function accessed over an extent given by
/// another argument: (pointer argument, length argument, reads, writes).
type ExtentArg = (u32, u32, bool, bool);

/// The pointer a stored value carries: the value itself, or the operand of
/// a `ptrtoint` (atomic pointer stores are often emitted as integers).
fn stored_pointer(value: LLVMValueRef) -> Option<LLVMValueRef> {
    if ir::address_space(value).is_some() {
        Some(value)
    } else if ir::is_instruction(value) && ir::opcode(value) == LLVMOpcode::LLVMPtrToInt {
        Some(ir::operand(value, 0))
    } else {
        None
    }
}

/// Library functions whose pointer arguments are accessed over an extent
/// given by another argument. Used only when TargetLibraryInfo recognises
/// the callee.
const EXTENT_FUNCTIONS: &[(&str, &[ExtentArg])] = &[
    ("memset", &[(0, 2, false, true)]),
    ("bzero", &[(0, 1, false, true)]),
    ("memcmp", &[(0, 2, true, false), (1, 2, true, false)]),
    ("bcmp", &[(0, 2, true, false), (1, 2, true, false)]),
    ("memchr", &[(0, 2, true, false)]),
    ("memrchr", &[(0, 2, true, false)]),
    ("memcpy", &[(0, 2, false, true), (1, 2, true, false)]),
    ("memmove", &[(0, 2, false, true), (1, 2, true, false)]),
    ("read", &[(1, 2, false, true)]),
    ("write", &[(1, 2, true, false)]),
    ("pread", &[(1, 2, false, true)]),
    ("pwrite", &[(1, 2, true, false)]),
    ("send", &[(1, 2, true, false)]),
    ("recv", &[(1, 2, false, true)]),
];

/// Callees (by name prefix) that synchronise with other threads.
const THREAD_PREFIXES: &[&str] = &[
    "pthread_", "thrd_", "mtx_", "cnd_", "sem_post", "sem_wait", "sem_timedwait", "sem_trywait", "__atomic_",
    "__sync_", "futex", "__cxa_guard_release",
];

/// Callees (exact names) that start or replace processes.
const PROCESS_FUNCTIONS: &[&str] = &[
    "fork", "vfork", "_Fork", "clone", "clone3", "posix_spawn", "posix_spawnp", "system", "popen", "execl", "execle",
    "execlp", "execv", "execve", "execvp", "execvpe", "fexecve", "daemon",
];

/// Callees (exact names) that release memory.
const FREE_FUNCTIONS: &[&str] = &["free", "cfree", "realloc", "reallocarray", "munmap", "mremap", "madvise"];

/// Callees (exact names, declared, not defined in the module) that are the
/// Copier runtime's waits: their reserved symbols, which `copier.h`'s
/// declarations call. A declared public `csync` may be a function the
/// program defines in another file (libcopier's is weak), so it is an
/// ordinary call.
const RUNTIME_WAITS: &[&str] = &[symbols::CSYNC, symbols::CSYNC_ALL, symbols::CSYNC_READY_END];

/// Callees (by name prefix) that are the Copier runtime's own submission
/// entry points, by their reserved and their public names (a program's own
/// `amemcpy` taken for one only resets the cached ready windows).
const RUNTIME_SUBMIT_PREFIXES: &[&str] = &["__copier_amemcpy", "__copier_amemmove", "__copier_submit", "amemcpy", "amemmove", "copier_submit"];

/// Computes the effects of every instruction of interest.
pub struct EffectBuilder<'a, 'm> {
    /// Module (type sizes).
    pub cx: &'a ModuleContext<'m>,
    /// Function analyses.
    pub fa: &'a FunctionAnalyses<'a>,
    /// Intrinsic IDs.
    pub ids: &'a IntrinsicIds,
    /// Candidate copy index by call instruction.
    pub candidates: &'a HashMap<LLVMValueRef, usize>,
    /// The analysed function is `nounwind`: an exception cannot leave it
    /// (it would terminate the program), so only `longjmp`-like exits count.
    pub function_nounwind: bool,
    /// Guarded functions of the module: they sync whatever their callers
    /// left pending before touching it, so calls to them need no sync.
    pub guarded: &'a HashSet<LLVMValueRef>,
    /// Cache of [`is_private_object`] per underlying object.
    pub private_cache: RefCell<HashMap<LLVMValueRef, bool>>,
}

impl EffectBuilder<'_, '_> {
    /// Whether `ptr` points into memory only this function can name (see
    /// [`is_private_object`]), or into read-only memory.
    fn owned_or_constant(&self, ptr: LLVMValueRef) -> bool {
        let object = context::underlying_object(ptr);
        if let Some(&p) = self.private_cache.borrow().get(&object) {
            return p;
        }
        let p = context::is_constant_global(object) || is_private_object(self.fa, object);
        self.private_cache.borrow_mut().insert(object, p);
        p
    }

    /// What the callers' pending copies need before `inst` (a guarded
    /// function's own accesses of memory it does not own, and every way
    /// memory leaves its control).
    fn callers_full_conflict(&self, inst: LLVMValueRef, e: &Effect) -> Option<FullReason> {
        match e.sync_all {
            // A normal return hands the callers' copies back to the callers,
            // which still track them.
            Some(FullReasonCell(FullReason::Return)) => return None,
            Some(FullReasonCell(r)) => return Some(r),
            None => {}
        }
        if e.submits.is_some() {
            return None;
        }
        if let Some(FullReasonCell(r)) = e.release.filter(|r| r.0 != FullReason::VolatileStore) {
            return Some(r);
        }
        if let Some(v) = e.escapes {
            if !self.owned_or_constant(v) {
                return Some(FullReason::PointerEscape);
            }
        }
        if let Some(FullReasonCell(r)) = e.release {
            return Some(r);
        }
        if e.asm_pointers.iter().any(|&p| !self.owned_or_constant(p)) {
            return Some(FullReason::AsmOperand);
        }
        if e.accesses.iter().any(|a| !a.syncable() && !self.owned_or_constant(a.ptr)) {
            return Some(FullReason::UnknownAccess);
        }
        if e.opaque {
            let is_call = ir::is_call(inst);
            let private_args = is_call && {
                let props = self.fa.call_props(inst);
                props.argmem_only()
                    && (0..ir::num_args(inst))
                        .map(|i| ir::arg(inst, i))
                        .filter(|&a| ir::address_space(a).is_some())
                        .all(|a| self.owned_or_constant(a))
            };
            if !private_args {
                return Some(if e.frees { FullReason::Free } else { FullReason::CallerBuffers });
            }
        }
        if let Some(FullReasonCell(r)) = e.leaves_frame {
            return Some(r);
        }
        None
    }

    fn type_size(&self, v: LLVMValueRef) -> AccessSize {
        self.cx.store_size(ir::type_of(v)).map_or(AccessSize::Unknown, AccessSize::Const)
    }

    fn length(v: LLVMValueRef) -> AccessSize {
        match ir::const_int(v) {
            Some(n) => AccessSize::Const(n),
            None if ir::int_width(v).is_some() => AccessSize::Value(v),
            None => AccessSize::Unknown,
        }
    }

    /// The effect of `inst`.
    pub fn effect(&self, inst: LLVMValueRef) -> Effect {
        let mut e = Effect::default();
        match ir::opcode(inst) {
            LLVMOpcode::LLVMLoad => {
                e.accesses.push(Access { ptr: ir::operand(inst, 0), size: self.type_size(inst), reads: true, writes: false });
            }
            LLVMOpcode::LLVMStore => {
                let value = ir::operand(inst, 0);
                let ptr = ir::operand(inst, 1);
                e.accesses.push(Access { ptr, size: self.type_size(value), reads: false, writes: true });
                if context::is_release(inst) {
                    e.release = Some(FullReasonCell(FullReason::Release));
                } else if ir::is_volatile(inst) && volatile_target_shared(self.fa, context::underlying_object(ptr)) {
                    e.release = Some(FullReasonCell(FullReason::VolatileStore));
                }
                // Another thread may read an atomic or volatile store at any
                // time. A plain store is read by another thread only after a
                // synchronizes-with edge this thread creates later (a release,
                // a call that may contain one, the return): all synced there.
                let racy_readable = ir::is_volatile(inst) || context::is_atomic(inst);
                if let Some(stored) = stored_pointer(value) {
                    if racy_readable && !is_private_object(self.fa, context::underlying_object(ptr)) {
                        e.escapes = Some(stored);
                    }
                }
            }
            LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
                let ptr = ir::operand(inst, 0);
                let value = ir::operand(inst, 1);
                e.accesses.push(Access { ptr, size: self.type_size(value), reads: true, writes: true });
                if context::is_release(inst) {
                    e.release = Some(FullReasonCell(FullReason::Release));
                }
                let value = ir::operand(inst, if ir::opcode(inst) == LLVMOpcode::LLVMAtomicCmpXchg { 2 } else { 1 });
                if let Some(stored) = stored_pointer(value) {
                    if !is_private_object(self.fa, context::underlying_object(ptr)) {
                        e.escapes = Some(stored);
                    }
                }
            }
            LLVMOpcode::LLVMFence if context::is_release(inst) => {
                e.release = Some(FullReasonCell(FullReason::Release));
            }
            LLVMOpcode::LLVMVAArg => e.opaque = true,
            LLVMOpcode::LLVMRet => e.sync_all = Some(FullReasonCell(FullReason::Return)),
            LLVMOpcode::LLVMResume => e.sync_all = Some(FullReasonCell(FullReason::Resume)),
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => self.call_effect(inst, &mut e),
            _ => {}
        }
        e
    }

    fn call_effect(&self, inst: LLVMValueRef, e: &mut Effect) {
        if let Some(&idx) = self.candidates.get(&inst) {
            e.submits = Some(idx);
            return;
        }
        let props = self.fa.call_props(inst);
        let op = ir::opcode(inst);
        let callee = ir::called_function(inst);
        let name = callee.map(ir::name).unwrap_or_default();
        e.callee = Some(if props.inline_asm() {
            "inline asm".to_owned()
        } else if name.is_empty() {
            "an indirect callee".to_owned()
        } else {
            format!("'{name}'")
        });
        if props.musttail() {
            e.sync_all = Some(FullReasonCell(FullReason::MustTail));
            return;
        }
        // Memory the call site itself reads or writes through its pointer
        // arguments, whatever the callee's body does or declares: the copy
        // of a `byval` argument is made by the call (before the callee runs,
        // so no guard in the callee can cover it), and `memory(...)`
        // attributes do not describe it. Narrow accesses of the pointee's
        // size (a whole-copy sync when the size has no name).
        for i in 0..ir::num_args(inst) {
            if let Some(m) = context::call_arg_memory(inst, i) {
                let size = m.size.map_or(AccessSize::Unknown, AccessSize::Const);
                e.accesses.push(Access { ptr: ir::arg(inst, i), size, reads: m.reads, writes: m.writes });
            }
        }
        if callee.is_some_and(|f| self.guarded.contains(&f)) && !props.memory_bundles() {
            // A guarded callee syncs whatever it touches of our pending
            // copies, and everything before any way out but a return. Not
            // what the call site itself accesses: its argument memory
            // (above) and its operand bundles' operands (such a call is
            // treated as an ordinary one).
            e.guarded_call = true;
            return;
        }
        if props.inline_asm() {
            e.opaque = !props.does_not_access_memory();
            e.asm_pointers = (0..ir::num_args(inst)).map(|i| ir::arg(inst, i)).filter(|&a| ir::address_space(a).is_some()).collect();
            return;
        }

        if props.intrinsic() {
            let id = callee.map_or(0, ir::function_intrinsic_id);
            let ids = self.ids;
            if id == ids.memset || id == ids.memset_inline {
                e.accesses.push(Access { ptr: ir::arg(inst, 0), size: Self::length(ir::arg(inst, 2)), reads: false, writes: true });
            } else if id == ids.memcpy || id == ids.memcpy_inline || id == ids.memmove {
                let len = Self::length(ir::arg(inst, 2));
                e.accesses.push(Access { ptr: ir::arg(inst, 0), size: len, reads: false, writes: true });
                e.accesses.push(Access { ptr: ir::arg(inst, 1), size: len, reads: true, writes: false });
            } else if id == ids.stackrestore {
                e.leaves_frame = Some(FullReasonCell(FullReason::StackRestore));
            } else if name.starts_with("llvm.lifetime.start") {
                // Starts a new lifetime of a stack object: accesses nothing.
                // (A copy into the object from an earlier lifetime was synced
                // at that lifetime's llvm.lifetime.end.)
            } else if name.starts_with("llvm.coro.") && !props.does_not_access_memory() {
                // A coroutine suspend or end returns to the caller or resumer
                // (the pass normally runs after coroutine lowering).
                e.sync_all = Some(FullReasonCell(FullReason::Coroutine));
            } else {
                e.opaque = !props.does_not_access_memory();
            }
            return;
        }

        if PROCESS_FUNCTIONS.contains(&name.as_str()) {
            e.sync_all = Some(FullReasonCell(FullReason::ProcessOperation));
            return;
        }
        if RUNTIME_WAITS.contains(&name.as_str()) && callee.is_some_and(ir::is_declaration) {
            // libcopier's waits read and write no byte of any copy: they
            // complete copies, and the guards after them still check their
            // windows (a program's hand-placed csync_ready_end keeps its
            // window instead of getting a csync_all before it).
            return;
        }
        if THREAD_PREFIXES.iter().any(|p| name.starts_with(p)) {
            e.release = Some(FullReasonCell(FullReason::ThreadOperation));
        }
        if RUNTIME_SUBMIT_PREFIXES.iter().any(|p| name.starts_with(p)) {
            e.user_submission = true;
        }
        e.frees = FREE_FUNCTIONS.contains(&name.as_str()) || name.starts_with("_ZdlPv") || name.starts_with("_ZdaPv");
        e.absorb = super::absorb_calls::absorbing_entry(inst);

        let extents = if props.known_libfunc() {
            EXTENT_FUNCTIONS.iter().find(|(n, _)| *n == name).map(|(_, x)| *x)
        } else {
            None
        };
        match extents {
            Some(list) if list.iter().all(|&(p, l, _, _)| p < ir::num_args(inst) && l < ir::num_args(inst)) => {
                for &(p, l, reads, writes) in list {
                    e.accesses.push(Access { ptr: ir::arg(inst, p), size: Self::length(ir::arg(inst, l)), reads, writes });
                }
            }
            _ => e.opaque = !props.does_not_access_memory(),
        }

        // May the call leave this frame without returning to it? An invoke's
        // unwind edge stays in the function (the dataflow follows it).
        let may_unwind = op == LLVMOpcode::LLVMCall && !props.nounwind() && !self.function_nounwind;
        let may_longjmp = !props.willreturn() && !props.known_libfunc();
        if props.noreturn() || may_unwind || may_longjmp {
            e.leaves_frame = Some(FullReasonCell(FullReason::MayNotReturn));
        }
    }

    /// Whether `inst` (with effect `e`) needs the whole pending copy `c`
    /// synced before it, and why. Accesses with a known extent never do
    /// (see [`Self::narrow_conflict`]), except when the extent cannot be
    /// named in a narrow sync.
    pub fn full_conflict(&self, inst: LLVMValueRef, e: &Effect, c: &CopyFacts) -> Option<FullReason> {
        if c.callers {
            return self.callers_full_conflict(inst, e);
        }
        if let Some(FullReasonCell(r)) = e.sync_all {
            return Some(r);
        }
        if e.submits.is_some() {
            // libcopier orders overlapping copies itself (dependency tracker).
            return None;
        }
        // (a volatile store of a buffer's pointer is named as its escape)
        if let Some(FullReasonCell(r)) = e.release.filter(|r| r.0 != FullReason::VolatileStore) {
            if c.shared {
                return Some(r);
            }
        }
        if let Some(v) = e.escapes {
            let stored = Location { ptr: v, size: LocSize::Unknown };
            let dst = Location { ptr: c.dst.ptr, size: LocSize::Unknown };
            let src = Location { ptr: c.src.ptr, size: LocSize::Unknown };
            if self.fa.may_alias(stored, dst) || self.fa.may_alias(stored, src) {
                return Some(FullReason::PointerEscape);
            }
        }
        if let Some(FullReasonCell(r)) = e.release {
            if c.shared {
                return Some(r);
            }
        }
        for &p in &e.asm_pointers {
            let arg = Location { ptr: p, size: LocSize::Unknown };
            let dst = Location { ptr: c.dst.ptr, size: LocSize::Unknown };
            let src = Location { ptr: c.src.ptr, size: LocSize::Unknown };
            if self.fa.may_alias(arg, dst) || self.fa.may_alias(arg, src) {
                return Some(FullReason::AsmOperand);
            }
        }
        for a in e.accesses.iter().filter(|a| !a.syncable()) {
            if self.touches(a, c, None).is_some() {
                return Some(FullReason::UnknownAccess);
            }
        }
        if e.opaque {
            let is_call = ir::is_call(inst);
            let on_dst = self.fa.mod_ref(inst, c.dst);
            if on_dst.writes || on_dst.reads {
                return Some(match (is_call, on_dst.writes) {
                    _ if e.frees => FullReason::Free,
                    (false, _) => FullReason::UnknownAccess,
                    (true, true) => FullReason::CallWritesDst,
                    (true, false) => FullReason::CallReadsDst,
                });
            }
            if self.fa.mod_ref(inst, c.src).writes {
                return Some(if e.frees {
                    FullReason::Free
                } else if is_call {
                    FullReason::CallWritesSrc
                } else {
                    FullReason::UnknownAccess
                });
            }
        }
        // Checked last so that remarks name the alias-analysis reason when
        // there is one.
        if let Some(FullReasonCell(r)) = e.leaves_frame {
            if !c.frame_exempt {
                return Some(r);
            }
        }
        None
    }

    /// Whether the access `e.accesses[i]` (syncable) touches the pending
    /// copy `c` in a way that needs its bytes synced first.
    pub fn narrow_conflict(&self, inst: LLVMValueRef, e: &Effect, i: usize, c: &CopyFacts) -> Option<NarrowReason> {
        let a = &e.accesses[i];
        if c.callers {
            return (!self.owned_or_constant(a.ptr))
                .then_some(if a.writes { NarrowReason::WritesDst } else { NarrowReason::ReadsDst });
        }
        self.touches(a, c, Some(inst))
    }

    /// Whether `a`, a read made by `at`, lies inside the source of the
    /// single-instance `memcpy` `c`: memcpy's source and destination do
    /// not overlap (or are equal, `llvm.memcpy`; the copy then rewrites
    /// the bytes a read sees with themselves), so such a read cannot see a
    /// byte the copy writes, and reading a source never needs a sync.
    fn reads_only_source(&self, a: &Access, c: &CopyFacts, at: Option<LLVMValueRef>) -> bool {
        let (Some(at), Some(s), false) = (at, c.source, a.writes) else { return false };
        let (size, value) = match a.size {
            AccessSize::Const(n) => (n, None),
            AccessSize::Value(v) => (0, Some(v)),
            AccessSize::Unknown => return false,
        };
        self.fa.access_within(a.ptr, size, value, s.ptr, s.len, at, s.call)
    }

    fn touches(&self, a: &Access, c: &CopyFacts, at: Option<LLVMValueRef>) -> Option<NarrowReason> {
        let loc = a.location();
        if (a.reads || a.writes) && self.fa.may_alias(loc, c.dst) && !self.reads_only_source(a, c, at) {
            Some(if a.writes { NarrowReason::WritesDst } else { NarrowReason::ReadsDst })
        } else if a.writes && self.fa.may_alias(loc, c.src) {
            Some(NarrowReason::WritesSrc)
        } else {
            None
        }
    }
}
