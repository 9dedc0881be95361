//! Applying a [`Plan`]: rewriting the copies into `amemcpy`/`amemmove`,
//! inserting `csync`, `csync_all` and windowed `csync_ready_end` guards.
//!
//! Values a sync needs that may not dominate it (the destination and length
//! of a copy made on only some paths, the cached ready window of a loop) go
//! through allocas that are promoted to SSA at the end (mem2reg): on paths
//! where the copy did not run, the sync sees `(null, 0)`, an empty range.

use super::candidates::{CopyForm, CopyKind, ObjectSizeCheck};
use super::placement::{PendingCopy, Plan, SyncPoint, SyncRange};
use crate::context::{self, Bounds, FunctionAnalyses};
use crate::ir::{self, Builder};
use copier_abi::symbols;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode};
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use std::collections::{HashMap, HashSet};
use std::ffi::CString;

/// A declared runtime entry point: function and type.
#[derive(Debug, Clone, Copy)]
struct Entry {
    f: LLVMValueRef,
    ty: LLVMTypeRef,
}

/// The libcopier entry points the pass calls (`copier_abi::symbols`).
#[derive(Debug, Clone, Copy)]
pub struct Runtime {
    csync: Entry,
    csync_all: Entry,
    csync_ready_end: Entry,
    /// `__copier_amemcpy_site` / `__copier_amemmove_site` (`copier_abi::site`).
    amemcpy_site: Entry,
    amemmove_site: Entry,
    /// The pending word (`copier_abi::symbols::PENDING`, a `size_t`).
    pending: LLVMValueRef,
}

impl Runtime {
    /// The pending word's global (`copier_abi::symbols::PENDING`).
    pub fn pending_word(&self) -> LLVMValueRef {
        self.pending
    }

    /// The entry points with their types: (name, return, parameters).
    fn entries(b: &Builder) -> [(&'static str, LLVMTypeRef, Vec<LLVMTypeRef>); 7] {
        let (ptr, size, void) = (b.ptr_type(), b.intptr_type(), b.void_type());
        [
            (symbols::AMEMCPY, ptr, vec![ptr, ptr, size]),
            (symbols::AMEMMOVE, ptr, vec![ptr, ptr, size]),
            (symbols::CSYNC, void, vec![ptr, size]),
            (symbols::CSYNC_ALL, void, vec![]),
            (symbols::CSYNC_READY_END, ptr, vec![ptr, size]),
            (copier_abi::site::AMEMCPY, ptr, vec![ptr, ptr, size, ptr]),
            (copier_abi::site::AMEMMOVE, ptr, vec![ptr, ptr, size, ptr]),
        ]
    }

    /// Makes `module`'s object file refer to libcopier (its pending word,
    /// from the weak hidden `__copiergen_runtime_anchor`) even when no copy
    /// was rewritten, so that a static link pulls libcopier in (its
    /// `COPIER_STATS` line) for modules that can use it, and only for them
    /// (`-copiergen-link-runtime`, set by `copiergen cc`). Nothing when the
    /// module's names conflict with libcopier's ([`Runtime::conflict`]):
    /// the program's own `__copier_csync` then links as with plain clang.
    pub fn anchor(module: LLVMModuleRef) {
        if Self::conflict(module).is_some() {
            return;
        }
        let size = Builder::new(module).intptr_type();
        let name = CString::new(symbols::PENDING).expect("symbol names have no NUL");
        if let Some(word) = ir::get_or_declare_global(module, &name, size) {
            ir::define_weak_hidden_pointer(module, c"__copiergen_runtime_anchor", word);
        }
    }

    /// Renames the module's local (`static`) functions and variables that
    /// carry a runtime symbol's name (`static int __copier_csync;`): internal
    /// linkage cannot clash with libcopier's definitions, so they are no
    /// [`Runtime::conflict`], and the pass's declarations take the name.
    pub fn rename_local_namesakes(module: LLVMModuleRef) {
        let b = Builder::new(module);
        let names = Self::entries(&b).into_iter().map(|(n, _, _)| n).chain([symbols::PENDING, crate::sanitizer::abi::LIVE]);
        for name in names {
            let c = CString::new(name).expect("symbol names have no NUL");
            let fresh = CString::new(format!("{name}.copiergen.local")).expect("symbol names have no NUL");
            ir::rename_if_local(module, &c, &fresh);
        }
    }

    /// The first runtime symbol `module` defines or declares with another
    /// type than the pass needs (an entry point declared with other
    /// parameters, defined by the module itself with any type, or a
    /// variable of that name; a pending word that is a
    /// function or has another type), with the declaration the pass
    /// expects (`declare ptr @__copier_amemcpy(ptr, ptr, i64)`); `None` when the
    /// pass can declare them all.
    pub fn conflict(module: LLVMModuleRef) -> Option<(String, String)> {
        if let Some(recorded) = recorded_conflict(module) {
            return Some(recorded);
        }
        let b = Builder::new(module);
        for (name, ret, params) in Self::entries(&b) {
            let c = CString::new(name).expect("symbol names have no NUL");
            // A definition of its own, even of libcopier's type, would clash
            // with libcopier's at the link (`void __copier_csync(void *, size_t)`).
            if !ir::can_declare(module, &c, ret, &params) || ir::defines_external_function(module, &c) {
                let params: Vec<String> = params.iter().map(|&t| ir::type_to_string(t)).collect();
                return Some((name.to_owned(), format!("declare {} @{name}({})", ir::type_to_string(ret), params.join(", "))));
            }
        }
        let size = b.intptr_type();
        for word in [symbols::PENDING, crate::sanitizer::abi::LIVE] {
            if !ir::can_declare_global(module, &CString::new(word).expect("symbol names have no NUL"), size) {
                return Some((word.to_owned(), format!("@{word} = external global {}", ir::type_to_string(size))));
            }
        }
        None
    }

    /// Records [`Runtime::conflict`] of an -flto compile's module in its
    /// named metadata [`CONFLICT_MD`] (`!{!"__copier_csync", !"declare void
    /// @__copier_csync(ptr, i64)"}`), which the IR linker keeps in the merged
    /// module, so the link-time run reports it and rewrites nothing.
    /// Returns whether there was a conflict.
    pub fn record_conflict(module: LLVMModuleRef) -> bool {
        let Some((name, expected)) = Self::conflict(module) else { return false };
        if recorded_conflict(module).is_some() {
            return true;
        }
        // SAFETY: module is live; the strings are copied into its context.
        unsafe {
            let cx = c::LLVMGetModuleContext(module);
            let mut ops = [name, expected].map(|t| c::LLVMMDStringInContext2(cx, t.as_ptr().cast(), t.len()));
            let node = c::LLVMMDNodeInContext2(cx, ops.as_mut_ptr(), ops.len());
            c::LLVMAddNamedMetadataOperand(module, CONFLICT_MD.as_ptr(), c::LLVMMetadataAsValue(cx, node));
        }
        true
    }

    /// Whether an -flto compile recorded a conflict in `module`
    /// ([`Runtime::record_conflict`]).
    pub fn has_recorded_conflict(module: LLVMModuleRef) -> bool {
        recorded_conflict(module).is_some()
    }

    /// Declares (or finds) the entry points in `module`.
    ///
    /// # Errors
    /// The name of an entry point the module already defines or declares
    /// with another type ([`Runtime::conflict`]).
    pub fn declare(module: LLVMModuleRef) -> Result<Runtime, String> {
        // Check every name first, so that a conflict leaves the module as it
        // was.
        if let Some((name, _)) = Self::conflict(module) {
            return Err(name);
        }
        let b = Builder::new(module);
        let size = b.intptr_type();
        let entries = Self::entries(&b);
        let names: Vec<CString> =
            entries.iter().map(|(n, _, _)| CString::new(*n).expect("symbol names have no NUL")).collect();
        let mut declared = entries.iter().zip(&names).map(|((_, ret, params), c)| {
            // Every entry point returns (a wait ends when the copies it waits
            // for are done) and never unwinds; `willreturn` also keeps
            // ScalarEvolution's trip counts of loops that contain a guard.
            let (f, ty) = ir::get_or_declare(module, c, *ret, params, &["nounwind", "willreturn"]).expect("checked by can_declare");
            Entry { f, ty }
        });
        let mut next = || declared.next().expect("seven entries");
        // (`amemcpy`/`amemmove` are declared, and checked, for programs that
        // call them themselves; the pass's own copies go through the site
        // entry points.)
        let (_, _, csync, csync_all, csync_ready_end) = (next(), next(), next(), next(), next());
        let (amemcpy_site, amemmove_site) = (next(), next());
        // Under CopierSanitizer (the pass runs from the default pipelines)
        // the guards read the sanitizer's count of unsynced copies instead:
        // it is non-zero whenever a copy is pending (the shadow marks a copy
        // at its submit), and, unlike libcopier's word, which the checker's
        // hooks keep set, it falls to 0 once every copy has been synced.
        let word = if crate::sanitizer::options::enabled() { crate::sanitizer::abi::LIVE } else { symbols::PENDING };
        let pending_name = CString::new(word).expect("symbol names have no NUL");
        let pending = ir::get_or_declare_global(module, &pending_name, size).ok_or_else(|| word.to_owned())?;
        Ok(Runtime { csync, csync_all, csync_ready_end, amemcpy_site, amemmove_site, pending })
    }
}

/// Emits the pending test at the builder's position: `load atomic acquire
/// @__copier_pending != 0`, one `mov` and a compare on x86-64. Non-zero
/// while a copy may be pending anywhere or a checker watches every sync
/// (`copier_abi::symbols::PENDING`); a 0 proves the guarded access needs no
/// runtime call.
fn pending_test(b: &Builder, rt: &Runtime) -> LLVMValueRef {
    let size = b.intptr_type();
    let word = b.load_acquire(size, rt.pending, 8);
    let zero = b.const_int(size, 0);
    b.icmp(LLVMIntPredicate::LLVMIntNE, word, zero)
}

/// Emits `if (pending) call(args)` before `before` (the call carries
/// `before`'s debug location).
fn call_if_pending(b: &Builder, rt: &Runtime, entry: Entry, args: &[LLVMValueRef], before: LLVMValueRef) -> LLVMValueRef {
    let pending = pending_test(b, rt);
    let term = context::split_if_then(pending, before, false);
    b.position_before(term);
    b.set_loc_from(before);
    b.call(entry.ty, entry.f, args)
}

/// `if (cond) new else llvm.memcpy/memmove(dst, src, len)`: moves the
/// submitting call `new` into the then arm, the inline copy (with `new`'s
/// debug location) into the else arm.
fn submit_or_copy(b: &Builder, cond: LLVMValueRef, new: LLVMValueRef, (dst, src, len): (LLVMValueRef, LLVMValueRef, LLVMValueRef), overlap: bool) {
    let (then_term, else_term) = context::split_if_then_else(cond, new);
    ir::remove_from_parent(new);
    b.position_before(then_term);
    b.insert(new);
    b.position_before(else_term);
    b.set_loc_from(new);
    b.mem_copy(dst, src, len, overlap);
}

/// LLVM's C calling convention (`ccc`).
const C_CALL_CONV: u32 = 0;

/// LLVM's `preserve_allcc`.
const PRESERVE_ALL_CALL_CONV: u32 = inkwell::llvm_sys::LLVMCallConv::LLVMPreserveAllCallConv as u32;

/// Loops with at most this many iterations (a constant bound) get no
/// unguarded copy: the first iteration of a loop entry always misses, so a
/// copy would save little and double the code.
const MIN_UNGUARDED_TRIPS: u32 = 8;

/// More whole-copy syncs than this at one point become one `csync_all`.
const MAX_SYNCS_PER_POINT: usize = 4;

/// How a sync point's whole-copy syncs are emitted.
pub fn uses_sync_all(point: &SyncPoint, plan: &Plan) -> bool {
    point.full.iter().any(|&(c, _)| plan.multi_instance[c]) || distinct_copies(point) > MAX_SYNCS_PER_POINT
}

fn distinct_copies(point: &SyncPoint) -> usize {
    let mut v: Vec<usize> = point.full.iter().map(|&(c, _)| c).collect();
    v.sort_unstable();
    v.dedup();
    v.len()
}

struct Emitter {
    b: Builder,
    rt: Runtime,
    ptr: LLVMTypeRef,
    size: LLVMTypeRef,
    allocas: Vec<LLVMValueRef>,
    /// Per copy: slots holding its last (dst, len).
    slots: HashMap<usize, (LLVMValueRef, LLVMValueRef)>,
    /// Per underlying object: the cached ready window (lo, end).
    windows: HashMap<LLVMValueRef, (LLVMValueRef, LLVMValueRef)>,
    entry_point: LLVMValueRef,
    guards: Vec<Guard>,
    /// The function a window miss calls: `csync_ready_end`, or a
    /// `preserve_allcc` forwarder to it (x86-64, AArch64) so that the cold
    /// call does not force the hot loop's values out of registers.
    miss_fn: (LLVMValueRef, u32),
    /// Slots of the increasing-pointer guards, by (point, narrow index).
    own: HashMap<(usize, usize), LLVMValueRef>,
    own_ends: Vec<LLVMValueRef>,
    /// Increasing-pointer guards of constant size, the ones an unguarded
    /// loop copy can drop.
    own_guards: Vec<OwnGuard>,
    /// Window resets `select(pending, null, all-ones)`, by the pending test
    /// they select on: a window that is one of them at its check is empty
    /// exactly when something is pending.
    resets: HashMap<LLVMValueRef, LLVMValueRef>,
    /// The reset built at the function's entry (the windows' initial value).
    entry_reset: Option<LLVMValueRef>,
    /// File and function name strings of the sites, by text.
    strings: HashMap<String, LLVMValueRef>,
    /// Per split copy: the split's conditional branch (successor 0: the
    /// submitting side) and the submitting call.
    splits: HashMap<usize, (LLVMValueRef, LLVMValueRef)>,
}

/// The instructions of one windowed guard, kept to fold the guards whose
/// window turns out empty (the first access after a submission).
struct Guard {
    below: Option<LLVMValueRef>,
    beyond: LLVMValueRef,
    miss: LLVMValueRef,
    /// Instructions of the check only (dead once the branch is folded).
    check: Vec<LLVMValueRef>,
    /// The `csync_ready_end` call on the miss path.
    call: LLVMValueRef,
    /// The check's conditional branch (successor 0: the miss block).
    branch: LLVMValueRef,
}

/// An increasing-pointer guard of constant size `len` on `p`:
/// `if (p > limit) limit = csync_ready_end(p, len) - len`, in a loop that
/// may get an unguarded copy.
struct OwnGuard {
    header: LLVMBasicBlockRef,
    limit_slot: LLVMValueRef,
    /// Slot of `max`, with `p <= max` while the loop runs: computed and
    /// stored in the loop's outside predecessor. A slot, not the value: that
    /// predecessor may lie in another loop (the latch of a loop whose exit
    /// enters this one) that gets versioned first, and then each of its two
    /// copies computes its own `max`; mem2reg joins them.
    max_slot: LLVMValueRef,
    /// Where `max` comes from.
    bounds: Bounds,
    /// The guard's conditional branch (successor 0: the miss block).
    branch: LLVMValueRef,
    /// The check's instructions, dead in a copy without the branch.
    check: Vec<LLVMValueRef>,
    /// The guarded access (for remarks).
    before: LLVMValueRef,
}

impl Emitter {
    /// The `struct copier_site` of the copy `call` in `function`, located
    /// by its debug location (`file:line:col`, or `?` and 0 without one).
    fn site(&mut self, call: LLVMValueRef, function: LLVMValueRef) -> LLVMValueRef {
        let loc = ir::debug_loc(call).unwrap_or_default();
        let mut parts = loc.rsplitn(3, ':');
        let (col, line, file) = (parts.next(), parts.next(), parts.next());
        let (file, line, col) = match (file, line.and_then(|l| l.parse().ok()), col.and_then(|c| c.parse().ok())) {
            (Some(f), Some(l), Some(c)) => (f.to_owned(), l, c),
            _ => ("?".to_owned(), 0, 0),
        };
        let file = match self.strings.get(&file) {
            Some(&g) => g,
            None => {
                let g = self.b.global_string(&file, c"copiergen.file");
                self.strings.insert(file, g);
                g
            }
        };
        let name = ir::name(function);
        let func = match self.strings.get(&name) {
            Some(&g) => g,
            None => {
                let g = self.b.global_string(&name, c"copiergen.function");
                self.strings.insert(name, g);
                g
            }
        };
        self.b.site_global(file, line, col, func)
    }

    fn slot(&mut self, ty: LLVMTypeRef, name: &std::ffi::CStr, init: LLVMValueRef) -> LLVMValueRef {
        self.b.position_before_no_loc(self.entry_point);
        let a = self.b.alloca(ty, name);
        self.b.store(init, a);
        self.allocas.push(a);
        a
    }

    fn copy_slot(&mut self, c: usize) -> (LLVMValueRef, LLVMValueRef) {
        if let Some(&s) = self.slots.get(&c) {
            return s;
        }
        let null = self.b.null_ptr();
        let zero = self.b.const_int(self.size, 0);
        let s = (self.slot(self.ptr, c"copiergen.dst", null), self.slot(self.size, c"copiergen.len", zero));
        self.slots.insert(c, s);
        s
    }

    /// A window reset at the builder's position: the whole address space
    /// when nothing is pending (no copy can touch any byte until the next
    /// submission), else the empty window.
    fn reset_value(&mut self) -> LLVMValueRef {
        let pending = pending_test(&self.b, &self.rt);
        let (null, all) = (self.b.null_ptr(), self.b.all_ones_ptr());
        let v = self.b.select(pending, null, all);
        self.resets.insert(v, pending);
        v
    }

    fn window(&mut self, object: LLVMValueRef) -> (LLVMValueRef, LLVMValueRef) {
        if let Some(&w) = self.windows.get(&object) {
            return w;
        }
        let init = match self.entry_reset {
            Some(v) => v,
            None => {
                self.b.position_before_no_loc(self.entry_point);
                let v = self.reset_value();
                self.entry_reset = Some(v);
                v
            }
        };
        let null = self.b.null_ptr();
        let w = (self.slot(self.ptr, c"copiergen.lo", null), self.slot(self.ptr, c"copiergen.end", init));
        self.windows.insert(object, w);
        w
    }

    /// The first byte and length of a narrow sync's range, built at the
    /// builder's position.
    fn range_values(&self, range: SyncRange) -> (LLVMValueRef, LLVMValueRef) {
        match range {
            SyncRange::Bytes { base, offset, len } => {
                let ptr = if offset == 0 {
                    base
                } else {
                    self.b.byte_gep(base, self.b.const_int(self.size, offset as u64))
                };
                (ptr, self.b.const_int(self.size, len))
            }
            SyncRange::Dynamic { ptr, len } => (ptr, self.b.int_cast(len, self.size)),
        }
    }

    /// `if (ptr < lo || ptr + size > end) { end = csync_ready_end(ptr, size); lo = end == -1 ? 0 : ptr; }`
    /// before `before`.
    fn windowed_guard(&mut self, before: LLVMValueRef, object: LLVMValueRef, range: SyncRange) {
        let (lo_slot, end_slot) = self.window(object);
        self.b.position_before(before);
        let (ptr, n) = self.range_values(range);
        let lo = self.b.load(self.ptr, lo_slot);
        let end = self.b.load(self.ptr, end_slot);
        let last = self.b.byte_gep(ptr, n);
        let below = self.b.icmp(LLVMIntPredicate::LLVMIntULT, ptr, lo);
        let beyond = self.b.icmp(LLVMIntPredicate::LLVMIntUGT, last, end);
        let miss = self.b.or(below, beyond);
        let term = context::split_if_then(miss, before, true);
        let branch = ir::block_terminator_of(ir::predecessors(ir::parent_block(term))[0]);
        self.b.position_before(term);
        self.b.set_loc_from(before);
        let new_end = self.miss_call(ptr, n);
        // An answer of all-ones (nothing pending anywhere) opens the
        // window below `ptr` too, so a backward walk stops missing.
        let all = self.b.all_ones_ptr();
        let none_pending = self.b.icmp(LLVMIntPredicate::LLVMIntEQ, new_end, all);
        let new_lo = self.b.select(none_pending, self.b.null_ptr(), ptr);
        self.b.store(new_lo, lo_slot);
        self.b.store(new_end, end_slot);
        // (Not the slot loads: mem2reg deletes them.)
        let check = vec![miss, below, beyond, last];
        self.guards.push(Guard { below: Some(below), beyond, miss, check, call: new_end, branch });
    }

    /// The end-only guard of a pointer that only grows in its loop, with a
    /// slot of its own reset on loop entry (so every access of this loop
    /// execution is at or above the first miss's pointer). Constant size
    /// `n`: the slot holds `limit = end - n` and the hot path is one
    /// compare, `if (ptr > limit) limit = csync_ready_end(ptr, n) - n;`
    /// (the reset value null always misses; `end >= ptr + n >= n`, so the
    /// subtraction never wraps). A run-time size keeps `end`:
    /// `if (ptr + size > end) end = csync_ready_end(ptr, size);`.
    fn increasing_guard(
        &mut self,
        before: LLVMValueRef,
        slot: LLVMValueRef,
        range: SyncRange,
        header: LLVMBasicBlockRef,
        bound: Option<(LLVMValueRef, Bounds)>,
    ) {
        // (`bound`: the slot of the loop's maximum address, and its kinds.)
        self.b.position_before(before);
        let (ptr, n) = self.range_values(range);
        let window = self.b.load(self.ptr, slot);
        let (miss, check) = match range {
            SyncRange::Bytes { .. } => {
                let miss = self.b.icmp(LLVMIntPredicate::LLVMIntUGT, ptr, window);
                (miss, vec![miss, window])
            }
            SyncRange::Dynamic { .. } => {
                let last = self.b.byte_gep(ptr, n);
                let miss = self.b.icmp(LLVMIntPredicate::LLVMIntUGT, last, window);
                (miss, vec![miss, last, window])
            }
        };
        let term = context::split_if_then(miss, before, true);
        let branch = ir::block_terminator(miss);
        self.b.position_before(term);
        self.b.set_loc_from(before);
        let new_end = self.miss_call(ptr, n);
        match range {
            SyncRange::Bytes { len, .. } => {
                let back = self.b.const_int(self.size, len.wrapping_neg());
                let limit = self.b.byte_gep(new_end, back);
                self.b.store(limit, slot);
                if let Some((max_slot, bounds)) = bound {
                    self.own_guards.push(OwnGuard {
                        header,
                        limit_slot: slot,
                        max_slot,
                        bounds,
                        branch,
                        check: check.clone(),
                        before,
                    });
                }
            }
            SyncRange::Dynamic { .. } => {
                self.b.store(new_end, slot);
            }
        }
        self.guards.push(Guard { below: None, beyond: miss, miss, check, call: new_end, branch });
    }

    fn miss_call(&self, ptr: LLVMValueRef, n: LLVMValueRef) -> LLVMValueRef {
        let (f, cc) = self.miss_fn;
        let call = self.b.call(self.rt.csync_ready_end.ty, f, &[ptr, n]);
        ir::set_call_conv(call, cc);
        call
    }

    /// Invalidates every cached window (after a submission).
    fn reset_windows_after(&mut self, inst: LLVMValueRef) {
        if (self.windows.is_empty() && self.own_ends.is_empty()) || !self.b.position_after(inst) {
            // A submission by `invoke` (the program's own amemcpy): its
            // windows stay; libcopier's copies are its caller's to sync.
            return;
        }
        let reset = self.reset_value();
        let null = self.b.null_ptr();
        let los: Vec<LLVMValueRef> = self.windows.values().map(|&(lo, _)| lo).collect();
        let ends: Vec<LLVMValueRef> = self.windows.values().map(|&(_, end)| end).chain(self.own_ends.iter().copied()).collect();
        for lo in los {
            self.b.store(null, lo);
        }
        for end in ends {
            self.b.store(reset, end);
        }
    }
}

/// The options [`apply`] follows.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Ready-window checks (`-copiergen-window`).
    pub window: bool,
    /// Largest loop (instructions) that gets an unguarded or pending-free
    /// copy (`-copiergen-unguarded-loops`; 0: none).
    pub max_unguarded: usize,
    /// Largest function (instructions) whose body gets a pending-free copy
    /// (`-copiergen-pending-free-functions`; 0: none).
    pub max_pending_free_body: usize,
    /// Bytes: a copy of variable length takes the inline
    /// `llvm.memcpy`/`llvm.memmove` when it is shorter and nothing is
    /// pending (the test the runtime's fast path makes, without the call),
    /// with no window reset after it; only the other path submits.
    pub threshold: u64,
}

/// Applies `plan` to the function analysed by `fa`. Call only after every
/// analysis query: the IR changes.
pub fn apply(
    module: LLVMModuleRef,
    fa: &FunctionAnalyses<'_>,
    rt: Runtime,
    copies: &[PendingCopy],
    plan: &Plan,
    lazy: &super::lazy_copies::LazyPlan,
    limits: Limits,
) {
    let Limits { window: window_enabled, max_unguarded, max_pending_free_body, threshold } = limits;
    // Bounds for unguarded loop copies first, from ScalarEvolution of the
    // program as written: the guards' calls would hide trip counts (a loop
    // that calls something writing memory need not terminate).
    let mut bounds: HashMap<(usize, usize), (LLVMValueRef, Bounds)> = HashMap::new();
    if window_enabled && max_unguarded > 0 {
        for (pi, point) in plan.points.iter().enumerate() {
            for (k, n) in point.narrow.iter().enumerate() {
                let (Some(entry), SyncRange::Bytes { base, offset, len }) = (n.monotonic, n.range) else { continue };
                if !plan.windowed(point, window_enabled) || !plan.versionable.contains(&entry.header) {
                    continue;
                }
                if let Some(b) = fa.loop_max_address(entry.header, max_unguarded, MIN_UNGUARDED_TRIPS, base, offset, len) {
                    bounds.insert((pi, k), b);
                }
            }
        }
    }
    let quiet_loops =
        if max_unguarded > 0 { super::pending_free::candidates(fa, copies, plan, lazy) } else { Vec::new() };
    let quiet_body = max_pending_free_body > 0 && super::pending_free::body_candidate(copies, plan, lazy);
    fa.mark_changed();
    let function = fa.function();
    let b = Builder::new(module);
    let (ptr, size) = (b.ptr_type(), b.intptr_type());
    let mut em = Emitter {
        b,
        rt,
        ptr,
        size,
        allocas: Vec::new(),
        slots: HashMap::new(),
        windows: HashMap::new(),
        entry_point: ir::entry_insertion_point(function),
        guards: Vec::new(),
        own: HashMap::new(),
        own_ends: Vec::new(),
        own_guards: Vec::new(),
        miss_fn: (rt.csync_ready_end.f, C_CALL_CONV),
        resets: HashMap::new(),
        entry_reset: None,
        strings: HashMap::new(),
        splits: HashMap::new(),
    };
    let triple = ir::target_triple(module);
    if plan.points.iter().any(|p| plan.windowed(p, window_enabled) && !p.narrow.is_empty())
        && (triple.starts_with("x86_64") || triple.starts_with("aarch64"))
    {
        let f = ir::get_or_define_forwarder(
            module,
            c"copiergen.csync_ready_end",
            rt.csync_ready_end.ty,
            rt.csync_ready_end.f,
            PRESERVE_ALL_CALL_CONV,
        );
        super::section::place_added(f);
        em.miss_fn = (f, PRESERVE_ALL_CALL_CONV);
    }

    // Every slot first, in the entry block: later edits split blocks.
    let mut max_slots: HashMap<(usize, usize), (LLVMValueRef, Bounds)> = HashMap::new();
    for (pi, point) in plan.points.iter().enumerate() {
        for (k, n) in point.narrow.iter().enumerate() {
            if !plan.windowed(point, window_enabled) {
                continue;
            }
            match n.monotonic {
                Some(entry) => {
                    let null = em.b.null_ptr();
                    let end = em.slot(ptr, c"copiergen.end", null);
                    // Reset on every entry into the loop, before anything
                    // splits the preheader (the pending test is hoisted
                    // there, out of the loop).
                    em.b.position_before_no_loc(ir::block_terminator_of(entry.predecessor));
                    let reset = em.reset_value();
                    em.b.store(reset, end);
                    em.own.insert((pi, k), end);
                    em.own_ends.push(end);
                    if let Some((max, kinds)) = bounds.remove(&(pi, k)) {
                        // The bound goes through a slot (see OwnGuard): its
                        // initial value, never read at the loop (every entry
                        // passes the store), would keep the guarded loop.
                        let all_ones = em.b.const_int(size, u64::MAX);
                        let max_slot = em.slot(size, c"copiergen.max", all_ones);
                        em.b.position_before_no_loc(ir::block_terminator_of(entry.predecessor));
                        em.b.store(max, max_slot);
                        max_slots.insert((pi, k), (max_slot, kinds));
                    }
                }
                None => {
                    em.window(n.object);
                }
            }
        }
        if !point.full.is_empty() && !uses_sync_all(point, plan) {
            for &(c, _) in &point.full {
                em.copy_slot(c);
            }
        }
    }

    for (pi, point) in plan.points.iter().enumerate() {
        for (k, n) in point.narrow.iter().enumerate() {
            if let Some(&end) = em.own.get(&(pi, k)) {
                let header = n.monotonic.expect("own windows are monotonic").header;
                em.increasing_guard(point.before, end, n.range, header, max_slots.remove(&(pi, k)));
            } else if plan.windowed(point, window_enabled) {
                em.windowed_guard(point.before, n.object, n.range);
            } else {
                em.b.position_before(point.before);
                let (ptr, len) = em.range_values(n.range);
                call_if_pending(&em.b, &rt, rt.csync, &[ptr, len], point.before);
            }
        }
        if point.full.is_empty() {
            continue;
        }
        if uses_sync_all(point, plan) {
            em.b.position_before(point.before);
            call_if_pending(&em.b, &rt, rt.csync_all, &[], point.before);
        } else {
            let mut done = Vec::new();
            for &(c, _) in &point.full {
                if done.contains(&c) {
                    continue;
                }
                done.push(c);
                let (dst_slot, len_slot) = em.copy_slot(c);
                em.b.position_before(point.before);
                let dst = em.b.load(ptr, dst_slot);
                let len = em.b.load(size, len_slot);
                let mut wait = pending_test(&em.b, &rt);
                if point.in_loop {
                    // After the first sync the slot says (null, 0): later
                    // iterations skip the call.
                    let zero = em.b.const_int(size, 0);
                    let unsynced = em.b.icmp(LLVMIntPredicate::LLVMIntNE, len, zero);
                    wait = em.b.and(wait, unsynced);
                }
                let term = context::split_if_then(wait, point.before, false);
                em.b.position_before(term);
                em.b.set_loc_from(point.before);
                // (a lazy copy's end of life drops it: copier_drop)
                let (f, ty) = lazy.sync_entry(point.before, c).unwrap_or((rt.csync.f, rt.csync.ty));
                em.b.call(ty, f, &[dst, len]);
                // The copy is complete: an empty range from here on.
                let null = em.b.null_ptr();
                let zero = em.b.const_int(size, 0);
                em.b.store(null, dst_slot);
                em.b.store(zero, len_slot);
            }
        }
    }

    // Calls of the write/send family that read pending copies call the
    // runtime's absorbing entry point instead (the copies stay pending).
    for point in &plan.points {
        if let Some((entry, _)) = point.absorb {
            super::absorb_calls::retarget(module, point.before, entry);
        }
    }

    for (i, pc) in copies.iter().enumerate() {
        if !plan.reachable[i] {
            continue;
        }
        let c = &pc.call;
        em.b.position_before(c.call);
        let len = em.b.int_cast(c.len, size);
        let cond = match (c.check, c.dst_size) {
            (ObjectSizeCheck::Runtime, Some(dst_size)) => {
                let limit = em.b.int_cast(dst_size, size);
                Some(em.b.icmp(LLVMIntPredicate::LLVMIntUGT, len, limit))
            }
            _ => None,
        };
        let entry = match c.kind {
            CopyKind::Copy => rt.amemcpy_site,
            CopyKind::Move => rt.amemmove_site,
        };
        // (a lazy copy: amemcpy_lazy, no site)
        let site = lazy.submit_entry(i).is_none().then(|| em.site(c.call, function));
        let new = match (lazy.submit_entry(i), site) {
            (Some((f, ty)), _) => {
                let lazy = em.b.call(ty, f, &[c.dst, c.src, len]);
                ir::set_flag_md(lazy, crate::sanitizer::abi::GENERATED_MD);
                lazy
            }
            (None, Some(site)) => em.b.call(entry.ty, entry.f, &[c.dst, c.src, len, site]),
            (None, None) => unreachable!("a site for every eager copy"),
        };
        if c.form != CopyForm::Intrinsic && ir::has_uses(c.call) {
            // (memcpy, memmove and amemcpy return `dst`; after the split
            // below the call no longer dominates the uses)
            ir::replace_all_uses(c.call, c.dst);
        }
        if let Some(cond) = cond {
            // if (len > dstlen) __memcpy_chk(dst, src, len, dstlen): the
            // original checked call, which reports the overflow and aborts.
            let term = context::split_if_then(cond, new, true);
            ir::remove_from_parent(c.call);
            em.b.position_before(term);
            em.b.insert(c.call);
        } else {
            ir::erase(c.call);
        }
        {
            // Split: a variable-length copy shorter than the threshold
            // runs inline while nothing is pending (`len >= threshold ||
            // pending` first: the short path reads no site state); then a
            // copy whose site the runtime found never pays runs inline while
            // nothing is pending; else the site entry point submits (it
            // orders an inline copy after pending copies).
            em.b.position_before(new);
            let pending = pending_test(&em.b, &rt);
            let overlap = c.kind == CopyKind::Move;
            // (no split where the size profile has the copy long)
            let profiled_long = matches!(pc.profile, Some(super::size_profile::Verdict::Long { .. }));
            if ir::const_int(c.len).is_none() && !profiled_long {
                let limit = em.b.const_int(size, threshold);
                let long = em.b.icmp(LLVMIntPredicate::LLVMIntUGE, len, limit);
                let slow = em.b.or(long, pending);
                submit_or_copy(&em.b, slow, new, (c.dst, c.src, len), overlap);
                let split = ir::block_terminator_of(ir::predecessors(ir::parent_block(new))[0]);
                em.splits.insert(i, (split, new));
                em.b.position_before(new);
            }
            if let Some(site) = site {
                let i32t = em.b.int32_type();
                let state_ptr = em.b.byte_gep(site, em.b.const_int(size, copier_abi::site::STATE_OFFSET as u64));
                let state = em.b.load_relaxed(i32t, state_ptr, 4);
                let inline = em.b.const_int(i32t, copier_abi::site::INLINE as u64);
                let async_site = em.b.icmp(LLVMIntPredicate::LLVMIntNE, state, inline);
                let submit = em.b.or(pending, async_site);
                submit_or_copy(&em.b, submit, new, (c.dst, c.src, len), overlap);
            } else if ir::is_instruction(pending) && !ir::has_uses(pending) {
                // (a lazy copy has no site split: a constant length needs
                // no pending test either)
                let word = ir::operand(pending, 0);
                ir::erase(pending);
                if ir::is_instruction(word) && !ir::has_uses(word) {
                    ir::erase(word);
                }
            }
        }
        if let Some(&(dst_slot, len_slot)) = em.slots.get(&i) {
            let placed = em.b.position_after(new);
            debug_assert!(placed, "a call is never a terminator");
            em.b.store(c.dst, dst_slot);
            em.b.store(len, len_slot);
        }
        em.reset_windows_after(new);
    }
    for &call in &plan.user_submissions {
        em.reset_windows_after(call);
    }

    let versioned = if window_enabled && max_unguarded > 0 { version_loops(&mut em, fa, plan, max_unguarded) } else { Vec::new() };
    let guard_branches: Vec<LLVMValueRef> = em.guards.iter().map(|g| g.branch).collect();
    let pending_free =
        super::pending_free::version(fa, &em.b, rt.pending, &quiet_loops, &em.splits, &guard_branches, max_unguarded);
    let pending_free_body = if quiet_body {
        super::pending_free::version_body(fa, &em.b, rt.pending, &em.splits, &guard_branches, max_pending_free_body)
    } else {
        None
    };

    // The slots of increasing-pointer guards stay in memory: in a hot loop
    // a loop-carried register costs more (spills, moves on every iteration)
    // than one L1 load folded into the compare.
    let promote: Vec<LLVMValueRef> = em.allocas.iter().copied().filter(|a| !em.own_ends.contains(a)).collect();
    let phis_before: HashSet<LLVMValueRef> = function_phis(function).into_iter().collect();
    fa.promote_allocas(&promote);

    // A guard whose window end is the empty one set at the entry or by a
    // submission on every path to it (mem2reg found the constant null)
    // always misses (`p + n > null` only fails for p + n == 0, which no
    // object reaches): its check goes, and when no later guard reads the
    // window it sets, a plain csync does the same wait.
    for g in &em.guards {
        // The builder may have folded any of them to a constant.
        if ![g.miss, g.beyond].into_iter().chain(g.below).all(ir::is_instruction) {
            continue;
        }
        let window = ir::operand(g.beyond, 1);
        if ir::is_null_constant(window) {
            context::make_unconditional(ir::block_terminator(g.miss), 0);
        } else if let Some(&pending) = em.resets.get(&window) {
            // `p + n > select(pending, null, all-ones)` is `pending`.
            ir::set_condition(ir::block_terminator(g.miss), pending);
        } else {
            continue;
        }
        erase_unused(&g.check);
        if !ir::has_uses(g.call) {
            em.b.position_before(g.call);
            em.b.call(rt.csync.ty, rt.csync.f, &[ir::operand(g.call, 0), ir::operand(g.call, 1)]);
            ir::erase(g.call);
        }
    }
    // Window PHIs that only fed the checks removed above.
    let new_phis: Vec<LLVMValueRef> = function_phis(function).into_iter().filter(|p| !phis_before.contains(p)).collect();
    delete_dead_phis(&new_phis);
    // Window resets that only fed those checks, with their pending tests:
    // an acquire load is not trivially dead, so LLVM would keep it.
    for (&reset, &pending) in &em.resets {
        if !ir::is_instruction(reset) || ir::has_uses(reset) {
            continue;
        }
        ir::erase(reset);
        if ir::is_instruction(pending) && !ir::has_uses(pending) {
            let word = ir::operand(pending, 0);
            ir::erase(pending);
            if ir::is_instruction(word) && !ir::has_uses(word) {
                ir::erase(word);
            }
        }
    }

    if fa.remarks_enabled() {
        for (before, guards, kind) in versioned {
            super::remarks::unguarded_loop(fa, before, guards, kind);
        }
        for (submit, copies) in pending_free {
            super::remarks::pending_free_loop(fa, submit, copies);
        }
        if let Some((submit, checks)) = pending_free_body {
            super::remarks::pending_free_function(fa, submit, checks);
        }
    }
}

/// Every PHI node of `function`.
fn function_phis(function: LLVMValueRef) -> Vec<LLVMValueRef> {
    ir::blocks(function)
        .flat_map(|b| ir::instructions(b).take_while(|&i| ir::opcode(i) == LLVMOpcode::LLVMPHI))
        .collect()
}

/// Deletes the PHIs of `phis` that no instruction outside the set needs
/// (directly or through PHIs of the set that are needed).
fn delete_dead_phis(phis: &[LLVMValueRef]) {
    let set: HashSet<LLVMValueRef> = phis.iter().copied().collect();
    let mut live: HashSet<LLVMValueRef> = HashSet::new();
    let mut work: Vec<LLVMValueRef> =
        phis.iter().copied().filter(|&p| ir::users(p).iter().any(|u| !set.contains(u))).collect();
    while let Some(p) = work.pop() {
        if !live.insert(p) {
            continue;
        }
        for i in 0..ir::num_operands(p) {
            let v = ir::operand(p, i);
            if set.contains(&v) && !live.contains(&v) {
                work.push(v);
            }
        }
    }
    for &p in phis {
        if !live.contains(&p) {
            ir::erase_replacing_with_poison(p);
        }
    }
}

/// Erases the instructions of `insts` (in order) that are unused.
fn erase_unused(insts: &[LLVMValueRef]) {
    let mut done: Vec<LLVMValueRef> = Vec::new();
    for &i in insts {
        if !done.contains(&i) && ir::is_instruction(i) && !ir::has_uses(i) {
            ir::erase(i);
            done.push(i);
        }
    }
}

/// Loop versioning of the loops whose increasing-pointer guards the plan
/// allows to drop ([`Plan::versionable`], innermost first): the loop is
/// copied without those guards, and its header, after the PHIs, enters the
/// copy once every such guard's window covers all the addresses the guard
/// can check until the loop exits: `limit >= max(ptr)` with the bound
/// [`FunctionAnalyses::loop_max_address`] computed first (trip count, object size, or the
/// largest address: the runtime's "nothing pending" window). No submission
/// runs inside the loop, so the windows stay valid while the copy runs.
/// Returns, per versioned loop, the first guarded access, the number of
/// guards dropped and the bounds all of them have (for remarks).
fn version_loops(
    em: &mut Emitter,
    fa: &FunctionAnalyses<'_>,
    plan: &Plan,
    max_insts: usize,
) -> Vec<(LLVMValueRef, usize, Bounds)> {
    let mut done = Vec::new();
    for &header in &plan.versionable {
        let guards: Vec<&OwnGuard> = em.own_guards.iter().filter(|g| g.header == header).collect();
        if guards.is_empty() {
            continue;
        }
        if fa.prepare_loop(header, max_insts).is_none() {
            for g in &guards {
                drop_max(g.max_slot);
            }
            continue;
        }
        let bounds: Vec<(LLVMValueRef, Bounds)> = guards.iter().map(|g| (g.max_slot, g.bounds)).collect();
        let (clone, dispatch) = fa.clone_loop(header);
        // The copy's guard instructions, looked up before anything changes.
        let copied: Vec<(LLVMValueRef, Vec<LLVMValueRef>)> = guards
            .iter()
            .map(|g| (clone.lookup(g.branch), g.check.iter().map(|&i| clone.lookup(i)).collect()))
            .collect();
        drop(clone);
        em.b.position_before_no_loc(dispatch);
        let mut cond: Option<LLVMValueRef> = None;
        for (g, &(max_slot, _)) in guards.iter().zip(&bounds) {
            let max = em.b.load(em.size, max_slot);
            let limit = em.b.load(em.ptr, g.limit_slot);
            let limit = em.b.ptr_to_int(limit, em.size);
            let covers = em.b.icmp(LLVMIntPredicate::LLVMIntUGE, limit, max);
            cond = Some(cond.map_or(covers, |c| em.b.and(c, covers)));
        }
        ir::set_condition(dispatch, cond.expect("at least one guard"));
        for (branch, check) in copied {
            context::make_unconditional(branch, 1);
            erase_unused(&check);
        }
        // What bounds every guard (for the remark).
        let all = Bounds {
            trip_count: bounds.iter().all(|(_, k)| k.trip_count),
            object_size: bounds.iter().all(|(_, k)| k.object_size),
        };
        done.push((guards[0].before, guards.len(), all));
    }
    done
}

/// Erases the stores of a loop bound no loop copy needs (in the loop's
/// predecessor and in any copy of it) and the computations only they used.
fn drop_max(max_slot: LLVMValueRef) {
    for user in ir::users(max_slot) {
        if ir::opcode(user) == LLVMOpcode::LLVMStore && ir::operand(user, 1) == max_slot {
            let value = ir::operand(user, 0);
            ir::erase(user);
            context::delete_if_dead(value);
        }
    }
}

/// Inserts `csync_all()` at the entry of the function analysed by `fa` (the
/// fallback guard of a guarded function the analysis could not plan).
pub fn sync_all_at_entry(module: LLVMModuleRef, fa: &FunctionAnalyses<'_>, rt: Runtime) {
    fa.mark_changed();
    let b = Builder::new(module);
    let at = ir::entry_insertion_point(fa.function());
    b.position_before_no_loc(at);
    call_if_pending(&b, &rt, rt.csync_all, &[], at);
}

/// Named metadata of an -flto compile's module that defines a libcopier
/// name ([`Runtime::record_conflict`]).
pub const CONFLICT_MD: &std::ffi::CStr = c"copiergen.runtime_conflict";

/// The first conflict recorded in `module`'s [`CONFLICT_MD`], as
/// `(name, expected declaration)`.
fn recorded_conflict(module: LLVMModuleRef) -> Option<(String, String)> {
    // SAFETY: module is live; operand arrays have the counts LLVM reports;
    // MDString bytes are copied at once.
    unsafe {
        if c::LLVMGetNamedMetadataNumOperands(module, CONFLICT_MD.as_ptr()) == 0 {
            return None;
        }
        let mut nodes = vec![std::ptr::null_mut(); c::LLVMGetNamedMetadataNumOperands(module, CONFLICT_MD.as_ptr()) as usize];
        c::LLVMGetNamedMetadataOperands(module, CONFLICT_MD.as_ptr(), nodes.as_mut_ptr());
        let node = nodes[0];
        if c::LLVMGetMDNodeNumOperands(node) != 2 {
            return None;
        }
        let mut ops = [std::ptr::null_mut(); 2];
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
        let text = |v| {
            let mut len = 0u32;
            let p = c::LLVMGetMDString(v, &mut len);
            (!p.is_null()).then(|| String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned())
        };
        Some((text(ops[0])?, text(ops[1])?))
    }
}
