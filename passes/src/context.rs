//! Safe(ish) handles on what a Rust pass sees while it runs: the module, its
//! analysis manager, and per-function analyses from the C++ shim (alias
//! analysis, loop depth, library-function facts, remarks).

use crate::ffi;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::module::Module;
use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::ffi::c_char;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;

/// The module a pass runs on, borrowed from the host (clang, opt, lld,
/// rustc) for the duration of one pass run.
pub struct ModuleContext<'m> {
    // The host owns the module: never dispose it (TOOLCHAIN.md).
    module: ManuallyDrop<Module<'m>>,
    raw: LLVMModuleRef,
    mam: *mut ffi::CgModuleAM,
}

impl<'m> ModuleContext<'m> {
    /// Wraps the host's module and module analysis manager.
    ///
    /// # Safety
    /// `raw` and `mam` must be the live module and its analysis manager for
    /// the whole lifetime `'m` (the duration of one pass run).
    pub(crate) unsafe fn new(raw: LLVMModuleRef, mam: *mut ffi::CgModuleAM) -> Self {
        // SAFETY: the caller guarantees `raw` is a live module; ManuallyDrop
        // keeps inkwell from disposing it.
        let module = ManuallyDrop::new(unsafe { Module::new(raw) });
        ModuleContext { module, raw, mam }
    }

    /// The module, as an inkwell [`Module`].
    pub fn module(&self) -> &Module<'m> {
        &self.module
    }

    /// The raw LLVM-C handle of the module.
    pub fn raw(&self) -> LLVMModuleRef {
        self.raw
    }

    /// Starts analysing one function definition. Analyses describe the IR as
    /// it is now: query them, then change the IR, then call
    /// [`FunctionAnalyses::mark_changed`] (dropping the handle invalidates the
    /// function's cached analyses when it changed).
    ///
    /// # Panics
    /// If `function` is a declaration.
    pub fn analyses(&self, function: LLVMValueRef) -> FunctionAnalyses<'_> {
        assert!(!crate::ir::is_declaration(function), "analyses of a declaration");
        // SAFETY: 1. self.mam is the live analysis manager of self.raw;
        // 2. `function` is a definition in that module.
        let ctx = unsafe { ffi::cg_function_begin(self.mam, function) };
        FunctionAnalyses {
            ctx,
            function,
            module: self.raw,
            changed: Cell::new(false),
            queries: Cell::new(0),
            emitted: RefCell::new(HashSet::new()),
            quiet: Cell::new(false),
            _module: PhantomData,
        }
    }

    /// Reports a diagnostic (printed by the host like its own).
    pub fn diagnose(&self, function: Option<LLVMValueRef>, severity: Severity, message: &str) {
        diagnose(self.raw, function, severity, message);
    }

    /// `ptr` as `base + offset` bytes through constant GEPs and casts
    /// (`llvm::GetPointerBaseWithConstantOffset`); `(ptr, 0)` when none.
    pub fn base_offset(&self, ptr: LLVMValueRef) -> (LLVMValueRef, i64) {
        let mut off = 0i64;
        // SAFETY: `ptr` is a pointer value of this module.
        let base = unsafe { ffi::cg_base_offset(self.raw, ptr, &mut off) };
        (base, off)
    }

    /// Store size in bytes of `ty`; `None` for scalable or unsized types.
    pub fn store_size(&self, ty: LLVMTypeRef) -> Option<u64> {
        let mut fixed = false;
        // SAFETY: `ty` belongs to this module's context.
        let size = unsafe { ffi::cg_type_store_size(self.raw, ty, &mut fixed) };
        fixed.then_some(size)
    }
}

/// Severity of a diagnostic reported with [`ModuleContext::diagnose`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Fails the compilation.
    Error,
    /// A warning.
    Warning,
}

pub(crate) fn diagnose(module: LLVMModuleRef, function: Option<LLVMValueRef>, severity: Severity, message: &str) {
    let sev = match severity {
        Severity::Error => ffi::CG_SEVERITY_ERROR,
        Severity::Warning => ffi::CG_SEVERITY_WARNING,
    };
    // SAFETY: `module` is live; the message bytes are valid for the call.
    unsafe {
        ffi::cg_diagnose(
            module,
            function.unwrap_or(std::ptr::null_mut()),
            sev,
            message.as_ptr().cast::<c_char>(),
            message.len(),
        )
    };
}

/// Size of a memory location (`llvm::LocationSize`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LocSize {
    /// Exactly this many bytes from the pointer.
    Precise(u64),
    /// An unknown number of bytes starting at the pointer.
    AfterPointer,
    /// Unknown bytes before or after the pointer.
    Unknown,
}

/// A memory location: `size` bytes at `ptr` (`llvm::MemoryLocation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Location {
    /// The pointer value.
    pub ptr: LLVMValueRef,
    /// How many bytes from `ptr`.
    pub size: LocSize,
}

impl LocSize {
    fn ffi(self) -> (u64, u8) {
        match self {
            LocSize::Precise(n) => (n, ffi::CG_SIZE_PRECISE),
            LocSize::AfterPointer => (0, ffi::CG_SIZE_AFTER_POINTER),
            LocSize::Unknown => (0, ffi::CG_SIZE_UNKNOWN),
        }
    }
}

/// How an instruction may touch a location (`llvm::ModRefInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModRef {
    /// May read it.
    pub reads: bool,
    /// May write it.
    pub writes: bool,
}

/// What an underlying object is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    /// Unknown (loaded pointer, call result, phi of several objects, ...).
    Unknown,
    /// A static `alloca`: stack memory of this frame.
    Alloca,
    /// A global variable.
    Global,
    /// A thread-local global variable.
    ThreadLocal,
    /// The result of a `noalias` call (malloc-like).
    Heap,
    /// A function argument.
    Argument,
}

/// Facts about a call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CallProps(u32);

impl CallProps {
    /// `nounwind`.
    pub fn nounwind(self) -> bool {
        self.0 & ffi::CG_CALL_NOUNWIND != 0
    }
    /// `willreturn`.
    pub fn willreturn(self) -> bool {
        self.0 & ffi::CG_CALL_WILLRETURN != 0
    }
    /// `noreturn`.
    pub fn noreturn(self) -> bool {
        self.0 & ffi::CG_CALL_NORETURN != 0
    }
    /// A `musttail` call.
    pub fn musttail(self) -> bool {
        self.0 & ffi::CG_CALL_MUSTTAIL != 0
    }
    /// The callee is a C library function TargetLibraryInfo recognises.
    pub fn known_libfunc(self) -> bool {
        self.0 & ffi::CG_CALL_KNOWN_LIBFUNC != 0
    }
    /// An inline-assembly call.
    pub fn inline_asm(self) -> bool {
        self.0 & ffi::CG_CALL_INLINE_ASM != 0
    }
    /// An indirect call.
    pub fn indirect(self) -> bool {
        self.0 & ffi::CG_CALL_INDIRECT != 0
    }
    /// `returns_twice` (setjmp, vfork).
    pub fn returns_twice(self) -> bool {
        self.0 & ffi::CG_CALL_RETURNS_TWICE != 0
    }
    /// `memory(none)`.
    pub fn does_not_access_memory(self) -> bool {
        self.0 & ffi::CG_CALL_DOES_NOT_ACCESS_MEMORY != 0
    }
    /// An intrinsic call.
    pub fn intrinsic(self) -> bool {
        self.0 & ffi::CG_CALL_INTRINSIC != 0
    }
    /// Accesses at most argument and inaccessible memory.
    pub fn argmem_only(self) -> bool {
        self.0 & ffi::CG_CALL_ARGMEM_ONLY != 0
    }
    /// Has operand bundles that may read or write memory (their operands
    /// are read at the call site, which a callee's body cannot see).
    pub fn memory_bundles(self) -> bool {
        self.0 & ffi::CG_CALL_MEMORY_BUNDLES != 0
    }
}

/// What a call does itself with the memory one of its pointer arguments
/// points to (see [`call_arg_memory`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArgMemory {
    /// Read at the call site (`byval`: the caller's copy into the argument
    /// area) or by the callee (`byref`, `inalloca`, `preallocated`).
    pub reads: bool,
    /// Written by the callee (`sret`, `inalloca`, `preallocated`).
    pub writes: bool,
    /// Bytes from the pointer: the pointee type's allocation size (what
    /// codegen copies for `byval`); `None` when it has none (unsized or
    /// scalable type).
    pub size: Option<u64>,
}

/// How call site `call` itself uses the memory its argument `arg_no` points
/// to, from the call site's or the callee's `byval`, `byref`, `inalloca`,
/// `preallocated` and `sret` attributes (LangRef "Parameter Attributes");
/// `None` for a plain argument. These bytes are accessed whatever the
/// callee's body does: a `byval` argument is copied by the call itself.
pub fn call_arg_memory(call: LLVMValueRef, arg_no: u32) -> Option<ArgMemory> {
    let mut size = u64::MAX;
    // SAFETY: `call` is a CallBase of the module being worked on (handle
    // invariant of crate::ir); `size` is a valid out-pointer.
    let k = unsafe { ffi::cg_call_arg_memory(call, arg_no, &mut size) };
    (k != 0).then_some(ArgMemory {
        reads: k & ffi::CG_ARG_READS != 0,
        writes: k & ffi::CG_ARG_WRITES != 0,
        size: (size != u64::MAX).then_some(size),
    })
}

/// Kind of an optimization remark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RemarkKind {
    /// `-Rpass=`: something was done.
    Passed,
    /// `-Rpass-missed=`: something was not done, and why.
    Missed,
    /// `-Rpass-analysis=`: a fact found by the analysis.
    Analysis,
}

/// Analyses of one function, valid while its IR is unchanged.
pub struct FunctionAnalyses<'m> {
    ctx: *mut ffi::CgFunctionCtx,
    function: LLVMValueRef,
    module: LLVMModuleRef,
    changed: Cell<bool>,
    queries: Cell<u64>,
    /// Remarks emitted with a source location: (kind, name, location, text).
    emitted: RefCell<HashSet<(u8, String, String, String)>>,
    /// Remarks off (see [`FunctionAnalyses::quiet_remarks`]).
    quiet: Cell<bool>,
    _module: PhantomData<&'m ()>,
}

impl FunctionAnalyses<'_> {
    /// The function analysed.
    pub fn function(&self) -> LLVMValueRef {
        self.function
    }

    /// Number of alias queries made so far.
    pub fn queries(&self) -> u64 {
        self.queries.get()
    }

    /// Records that the function's IR changed: its cached analyses are
    /// invalidated when this handle is dropped. Alias queries are invalid
    /// from now on.
    pub fn mark_changed(&self) {
        self.changed.set(true);
    }

    /// How instruction `inst` may touch `loc` (alias analysis, including the
    /// callee's `memory(...)`, `nocapture` and `readnone` attributes).
    pub fn mod_ref(&self, inst: LLVMValueRef, loc: Location) -> ModRef {
        debug_assert!(!self.changed.get(), "alias query after an IR change");
        self.queries.set(self.queries.get() + 1);
        let (size, kind) = loc.size.ffi();
        // SAFETY: inst and loc.ptr are values of the analysed function (or
        // constants) and the IR has not changed since the analyses were built.
        let mr = unsafe { ffi::cg_mod_ref(self.ctx, inst, loc.ptr, size, kind) };
        ModRef { reads: mr & ffi::CG_REF != 0, writes: mr & ffi::CG_MOD != 0 }
    }

    /// Whether two locations may overlap.
    pub fn may_alias(&self, a: Location, b: Location) -> bool {
        debug_assert!(!self.changed.get(), "alias query after an IR change");
        self.queries.set(self.queries.get() + 1);
        let (s1, k1) = a.size.ffi();
        let (s2, k2) = b.size.ffi();
        // SAFETY: as in mod_ref.
        unsafe { ffi::cg_alias(self.ctx, a.ptr, s1, k1, b.ptr, s2, k2) != ffi::CG_NO_ALIAS }
    }

    /// Facts about the call site `call` (a call, invoke or callbr).
    pub fn call_props(&self, call: LLVMValueRef) -> CallProps {
        // SAFETY: `call` is a CallBase of the analysed function.
        CallProps(unsafe { ffi::cg_call_props(self.ctx, call) })
    }

    /// Whether `object` may be captured anywhere in the function (returns
    /// count as captures; passing it to `free`/`operator delete` does not).
    pub fn may_be_captured(&self, object: LLVMValueRef) -> bool {
        // SAFETY: `object` is a value of the analysed function.
        unsafe { ffi::cg_may_be_captured(self.ctx, object) }
    }

    /// Whether `call` is the C library function its callee is named after
    /// (TargetLibraryInfo: prototype, not `nobuiltin`, not disabled by the
    /// function's `-fno-builtin` attributes).
    pub fn is_library_call(&self, call: LLVMValueRef) -> bool {
        // SAFETY: `call` is a CallBase of the analysed function.
        unsafe { ffi::cg_is_library_call(self.ctx, call) }
    }

    /// Whether the C library's routine `name` (`memcpy`, `memmove`) is the
    /// one this function would get: TargetLibraryInfo has it (not disabled
    /// by `-fno-builtin`/`-fno-builtin-<name>`) and the module does not
    /// define a function of that name.
    pub fn library_routine_usable(&self, name: &str) -> bool {
        // SAFETY: the name bytes are valid for the call.
        unsafe { ffi::cg_library_routine_usable(self.ctx, name.as_ptr().cast::<c_char>(), name.len()) }
    }

    /// Whether instruction `to` may run after `from` on some path of the
    /// function (false is a proof: LLVM's `isPotentiallyReachable`).
    pub fn may_reach(&self, from: LLVMValueRef, to: LLVMValueRef) -> bool {
        // SAFETY: both are instructions of the analysed function.
        unsafe { ffi::cg_may_reach(self.ctx, from, to) }
    }

    /// The largest value the integer `len` (a copy length, bytes) can take,
    /// from ScalarEvolution's unsigned range, ValueTracking's constant
    /// range (known bits, `!range`, assumptions, trip counts) and
    /// LazyValueInfo's range at the instruction `at` (the conditions on the
    /// paths to it); `u64::MAX` when unbounded.
    pub fn length_max(&self, len: LLVMValueRef, at: LLVMValueRef) -> u64 {
        // SAFETY: `len` is an integer value and `at` an instruction of the
        // analysed function.
        unsafe { ffi::cg_length_max(self.ctx, len, at) }
    }

    /// The most bytes the copy call `call` (destination, source, length
    /// operands first) can move without undefined behaviour: the smaller
    /// of what is left of its destination's and its source's objects from
    /// the pointers it is given (LLVM's `getObjectSize`: allocas, globals
    /// with a definitive initializer, allocation calls of constant size);
    /// `u64::MAX` when neither object's size is known.
    pub fn copy_object_max(&self, call: LLVMValueRef) -> u64 {
        // SAFETY: `call` is a call instruction of the analysed function.
        unsafe { ffi::cg_copy_object_max(self.ctx, call) }
    }

    /// Loop nesting depth of `bb` (0 outside natural loops).
    pub fn loop_depth(&self, bb: LLVMBasicBlockRef) -> u32 {
        // SAFETY: `bb` is a block of the analysed function.
        unsafe { ffi::cg_loop_depth(self.ctx, bb) }
    }

    /// If `ptr`, used in `bb`, only grows from one iteration to the next of
    /// the innermost loop containing `bb` (ScalarEvolution: affine add
    /// recurrence with a known positive step), that loop's unique
    /// predecessor outside it (every entry into the loop passes through it).
    pub fn increasing_in_loop(&self, ptr: LLVMValueRef, bb: LLVMBasicBlockRef) -> Option<LoopEntry> {
        let mut header = std::ptr::null_mut();
        // SAFETY: `ptr` is a value and `bb` a block of the analysed function,
        // whose IR has not changed since the analyses were built; `header`
        // is a valid out-pointer.
        let pre = unsafe { ffi::cg_increasing_in_loop(self.ctx, ptr, bb, &mut header) };
        (!pre.is_null()).then_some(LoopEntry { predecessor: pre, header })
    }

    /// `p - q` in bytes when ScalarEvolution shows it is a constant (both
    /// evaluated at one point of the same iteration).
    pub fn constant_distance(&self, p: LLVMValueRef, q: LLVMValueRef) -> Option<i64> {
        let mut d = 0i64;
        // SAFETY: `p` and `q` are values of the analysed function, whose IR
        // has not changed since the analyses were built.
        unsafe { ffi::cg_constant_distance(self.ctx, p, q, &mut d) }.then_some(d)
    }

    /// Whether the access of `size` bytes (a constant, or `size_value` when
    /// given) at `ptr`, made by instruction `at`, lies inside `[base, base +
    /// len)` of the copy call `copy`, which must dominate `at`
    /// (ScalarEvolution with the conditions that dominate `at`).
    #[allow(clippy::too_many_arguments)]
    pub fn access_within(
        &self,
        ptr: LLVMValueRef,
        size: u64,
        size_value: Option<LLVMValueRef>,
        base: LLVMValueRef,
        len: LLVMValueRef,
        at: LLVMValueRef,
        copy: LLVMValueRef,
    ) -> bool {
        debug_assert!(!self.changed.get(), "analysis query after an IR change");
        self.queries.set(self.queries.get() + 1);
        // SAFETY: every value belongs to the analysed function, whose IR has
        // not changed since the analyses were built.
        unsafe {
            ffi::cg_access_within(self.ctx, ptr, size, size_value.unwrap_or(std::ptr::null_mut()), base, len, at, copy)
        }
    }

    /// The header of the innermost natural loop containing `bb` when that
    /// loop contains no other loop (loop info of the IR as it was).
    pub fn innermost_loop(&self, bb: LLVMBasicBlockRef) -> Option<LLVMBasicBlockRef> {
        debug_assert!(!self.changed.get(), "loop query after an IR change");
        // SAFETY: `bb` is a block of the analysed function.
        let h = unsafe { ffi::cg_innermost_loop(self.ctx, bb) };
        (!h.is_null()).then_some(h)
    }

    /// For each block of `blocks`: the header of the outermost natural loop
    /// containing it that contains no block of `blocked`, has at most
    /// `max_insts` instructions and can be copied ([`Self::prepare_loop`]
    /// would take it), or `None`; `None` too when the blocks of `blocks` in
    /// that loop are expected to run fewer than `min_per_entry` times per
    /// entry into the loop (block frequencies: profiles and branch weights,
    /// else LLVM's static estimate), or, with `outermost_only`, when that
    /// loop lies in another loop. Loop info of the IR as it is *now*, so
    /// it may follow changes; call [`Self::prepare_loop`] before cloning.
    pub fn outermost_loops_without(
        &self,
        blocks: &[LLVMBasicBlockRef],
        blocked: &[LLVMBasicBlockRef],
        max_insts: usize,
        min_per_entry: u32,
        outermost_only: bool,
    ) -> Vec<Option<LLVMBasicBlockRef>> {
        let mut out = vec![std::ptr::null_mut(); blocks.len()];
        // SAFETY: every block is a block of the analysed function; `out`
        // has room for one header per block.
        unsafe {
            ffi::cg_outermost_loops_without(
                self.ctx,
                blocks.as_ptr(),
                blocks.len(),
                blocked.as_ptr(),
                blocked.len(),
                max_insts,
                min_per_entry,
                outermost_only,
                out.as_mut_ptr(),
            )
        };
        out.into_iter().map(|h| (!h.is_null()).then_some(h)).collect()
    }

    /// Whether `bb` lies in the natural loop headed by `header` (loop info
    /// of the IR as it was before any change).
    pub fn loop_contains(&self, header: LLVMBasicBlockRef, bb: LLVMBasicBlockRef) -> bool {
        debug_assert!(!self.changed.get(), "loop query after an IR change");
        // SAFETY: both are blocks of the analysed function.
        unsafe { ffi::cg_loop_contains(self.ctx, header, bb) }
    }

    /// Prepares the loop headed by `header` in the *current* IR (after the
    /// pass's changes) for [`FunctionAnalyses::clone_loop`]: loop-simplify
    /// and LCSSA form, fresh analyses. Returns its preheader, or `None` when
    /// it has more than `max_insts` instructions or cannot be copied.
    pub fn prepare_loop(&self, header: LLVMBasicBlockRef, max_insts: usize) -> Option<LLVMBasicBlockRef> {
        // SAFETY: `header` is a block of the analysed function.
        let pre = unsafe { ffi::cg_loop_prepare(self.ctx, header, max_insts) };
        (!pre.is_null()).then_some(pre)
    }

    /// Before any IR change: an integer `m` (pointer width), computed at the
    /// end of the unique outside predecessor of the loop headed by
    /// `header`, such that `ptr + offset <= m` whenever the loop accesses
    /// `[ptr + offset, + len)` while it runs, saturated at `2^64 - 1 - len`
    /// (see `cg_loop_max_address`), and where the bound comes from. `None`
    /// (nothing emitted) when the loop has more than `max_insts`
    /// instructions, at most `min_trips` iterations, or cannot be copied.
    pub fn loop_max_address(
        &self,
        header: LLVMBasicBlockRef,
        max_insts: usize,
        min_trips: u32,
        ptr: LLVMValueRef,
        offset: i64,
        len: u64,
    ) -> Option<(LLVMValueRef, Bounds)> {
        let mut kinds = 0u8;
        // SAFETY: `header` is a block and `ptr` a pointer value of the
        // analysed function, whose analyses are those of the current IR
        // (the expansion keeps them valid); `kinds` is a valid out-pointer.
        let v = unsafe { ffi::cg_loop_max_address(self.ctx, header, max_insts, min_trips, ptr, offset, len, &mut kinds) };
        (!v.is_null()).then_some((
            v,
            Bounds { trip_count: kinds & ffi::CG_BOUND_TRIP_COUNT != 0, object_size: kinds & ffi::CG_BOUND_OBJECT_SIZE != 0 },
        ))
    }

    /// After [`FunctionAnalyses::prepare_loop`]: copies the loop headed by
    /// `header`. The copy is entered from the original header, after its
    /// PHIs, through the returned dispatch branch (`br i1 false, copy,
    /// rest`: set its condition); see `cg_loop_clone`.
    pub fn clone_loop(&self, header: LLVMBasicBlockRef) -> (LoopClone, LLVMValueRef) {
        let mut dispatch = std::ptr::null_mut();
        // SAFETY: prepare_loop succeeded for `header` and the IR has not
        // changed since; `dispatch` is a valid out-pointer.
        let raw = unsafe { ffi::cg_loop_clone(self.ctx, header, &mut dispatch) };
        (LoopClone { raw }, dispatch)
    }

    /// Function versioning: copies the function's body (every block but
    /// the entry's static allocas, which both versions share). The copy is
    /// entered from the entry block through the returned dispatch branch
    /// (`br i1 false, copy, original`: set its condition); the
    /// [`LoopClone`] methods apply to the copy. `None`, changing nothing,
    /// when the function has more than `max_insts` instructions or cannot be
    /// copied (see `cg_body_clone`).
    pub fn clone_body(&self, max_insts: usize) -> Option<(LoopClone, LLVMValueRef)> {
        let mut dispatch = std::ptr::null_mut();
        // SAFETY: the context's function is live; `dispatch` is a valid
        // out-pointer.
        let raw = unsafe { ffi::cg_body_clone(self.ctx, max_insts, &mut dispatch) };
        (!raw.is_null()).then(|| (LoopClone { raw }, dispatch))
    }

    /// Promotes the given allocas to SSA registers (mem2reg); returns how
    /// many were promotable.
    pub fn promote_allocas(&self, allocas: &[LLVMValueRef]) -> usize {
        let mut v = allocas.to_vec();
        // SAFETY: the allocas are instructions of the analysed function; the
        // shim builds a fresh dominator tree for the current IR.
        unsafe { ffi::cg_promote_allocas(self.ctx, v.as_mut_ptr(), v.len()) }
    }

    /// Whether remarks of pass `copiergen` are requested (and not turned
    /// off for this function).
    pub fn remarks_enabled(&self) -> bool {
        // SAFETY: the context is live.
        !self.quiet.get() && unsafe { ffi::cg_remarks_enabled(self.ctx) }
    }

    /// Turns remarks off for this function: a copy of a body the pass made
    /// itself, whose decisions the original's remarks already describe.
    pub fn quiet_remarks(&self) {
        self.quiet.set(true);
    }

    /// Emits a remark named `name` at instruction `at` (its debug location),
    /// made of `(key, value)` arguments; key `"String"` is plain text.
    ///
    /// A remark identical to one already emitted for this function at the
    /// same source location is dropped: the copies of an unrolled or
    /// versioned loop would repeat it, and identical lines tell the reader
    /// nothing more. Remarks without a location are all kept.
    pub fn remark(&self, kind: RemarkKind, name: &str, at: Option<LLVMValueRef>, args: &[(&str, String)]) {
        if let Some(loc) = at.and_then(crate::ir::debug_loc) {
            let text: String = args.iter().map(|(_, v)| v.as_str()).collect();
            if !self.emitted.borrow_mut().insert((kind as u8, name.to_owned(), loc, text)) {
                return;
            }
        }
        let ffi_args: Vec<ffi::CgRemarkArg> = args
            .iter()
            .map(|(k, v)| ffi::CgRemarkArg {
                key: k.as_ptr().cast::<c_char>(),
                key_len: k.len(),
                val: v.as_ptr().cast::<c_char>(),
                val_len: v.len(),
            })
            .collect();
        let kind = match kind {
            RemarkKind::Passed => ffi::CG_REMARK_PASSED,
            RemarkKind::Missed => ffi::CG_REMARK_MISSED,
            RemarkKind::Analysis => ffi::CG_REMARK_ANALYSIS,
        };
        // SAFETY: every pointer is valid for the call; `at` is an instruction
        // of the analysed function or null.
        unsafe {
            ffi::cg_remark(
                self.ctx,
                kind,
                name.as_ptr().cast::<c_char>(),
                name.len(),
                at.unwrap_or(std::ptr::null_mut()),
                ffi_args.as_ptr(),
                ffi_args.len(),
            )
        };
    }

    /// Reports a diagnostic about this function.
    pub fn diagnose(&self, severity: Severity, message: &str) {
        diagnose(self.module, Some(self.function), severity, message);
    }
}

impl Drop for FunctionAnalyses<'_> {
    fn drop(&mut self) {
        // SAFETY: ctx came from cg_function_begin and is ended exactly once.
        unsafe { ffi::cg_function_end(self.ctx, self.changed.get()) };
    }
}

/// Where a loop is entered: its unique predecessor outside it and its
/// header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoopEntry {
    /// The loop's unique predecessor outside it.
    pub predecessor: LLVMBasicBlockRef,
    /// The loop's header.
    pub header: LLVMBasicBlockRef,
}

/// Where [`FunctionAnalyses::loop_max_address`] found its bound (neither:
/// the largest address).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bounds {
    /// ScalarEvolution: start + step * maximum backedge-taken count.
    pub trip_count: bool,
    /// The size of the underlying allocation.
    pub object_size: bool,
}

/// Deletes `v` and what only it used, when `v` is an unused instruction
/// without side effects (else nothing).
pub fn delete_if_dead(v: LLVMValueRef) {
    // SAFETY: `v` is a live value.
    unsafe { ffi::cg_delete_if_dead(v) }
}

/// Runs LLVM's IR verifier (`verifyFunction`, llvm/IR/Verifier.h) on
/// `function`.
///
/// # Errors
/// The verifier's message (at most 2000 bytes of it) when the function is
/// not valid IR.
pub fn verify_function(function: LLVMValueRef) -> Result<(), String> {
    let mut buf = vec![0u8; 2000];
    // SAFETY: `function` is a function of a live module; `buf` is writable
    // for `buf.len()` bytes and the shim writes at most that many,
    // NUL-terminated.
    let n = unsafe { ffi::cg_verify_function(function, buf.as_mut_ptr().cast(), buf.len()) };
    if n == 0 {
        return Ok(());
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    Err(String::from_utf8_lossy(&buf[..end]).trim_end().to_owned())
}

/// The value map of a loop or body copy made by
/// [`FunctionAnalyses::clone_loop`] or [`FunctionAnalyses::clone_body`].
pub struct LoopClone {
    raw: *mut ffi::CgLoopClone,
}

impl LoopClone {
    /// The copy of `v` (`v` itself when it is not in the copied loop).
    pub fn lookup(&self, v: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: raw is live until drop; `v` is a live value.
        unsafe { ffi::cg_loop_clone_lookup(self.raw, v) }
    }

    /// The copy of block `bb` (`bb` itself when it was not copied).
    pub fn lookup_block(&self, bb: LLVMBasicBlockRef) -> LLVMBasicBlockRef {
        use inkwell::llvm_sys::core::{LLVMBasicBlockAsValue, LLVMValueAsBasicBlock};
        // SAFETY: `bb` is a live block; the map holds blocks for blocks.
        unsafe { LLVMValueAsBasicBlock(self.lookup(LLVMBasicBlockAsValue(bb))) }
    }

    /// After [`FunctionAnalyses::clone_body`]: every edge of the copy into
    /// the copy of a block of `targets` goes to that original block (bail
    /// edges), the PHIs of both updated (`cg_body_clone_bail`).
    pub fn bail_to(&self, targets: &[LLVMBasicBlockRef]) {
        // SAFETY: raw is live; `targets` are blocks of its function.
        unsafe { ffi::cg_body_clone_bail(self.raw, targets.as_ptr(), targets.len()) }
    }

    /// After the caller pointed branches of the copy into the original loop
    /// (bail edges, [`set_successor`]): rewrites the uses of the original
    /// loop's values that a bail edge reaches to PHIs of the original's
    /// value and the copy's (`cg_loop_clone_repair_ssa`).
    pub fn repair_ssa(&self, fa: &FunctionAnalyses<'_>) {
        // SAFETY: raw is live and belongs to fa's function; the IR is valid
        // apart from those uses.
        unsafe { ffi::cg_loop_clone_repair_ssa(fa.ctx, self.raw) }
    }

    /// In the copy only: every load of the global `word` becomes 0, then
    /// constant branches fold and the function's unreachable blocks go
    /// (`cg_loop_clone_assume_zero`). Values of deleted blocks are gone:
    /// look up first.
    pub fn assume_zero(&self, fa: &FunctionAnalyses<'_>, word: LLVMValueRef) {
        // SAFETY: raw is live and belongs to fa's function; `word` is a
        // global.
        unsafe { ffi::cg_loop_clone_assume_zero(fa.ctx, self.raw, word) }
    }
}

impl Drop for LoopClone {
    fn drop(&mut self) {
        // SAFETY: raw came from cg_loop_clone and is freed exactly once.
        unsafe { ffi::cg_loop_clone_end(self.raw) }
    }
}

/// `llvm::getUnderlyingObject`: strips GEPs, casts and aliases from `ptr`.
pub fn underlying_object(ptr: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: `ptr` is a live value.
    unsafe { ffi::cg_underlying_object(ptr) }
}

/// Whether `function`'s body is the one every call from this module runs
/// (exact, non-interposable definition).
pub fn is_exact_definition(function: LLVMValueRef) -> bool {
    // SAFETY: `function` is a live function.
    unsafe { ffi::cg_is_exact_definition(function) }
}

/// Whether `object` is a constant global (read-only memory: never a
/// copy's destination).
pub fn is_constant_global(object: LLVMValueRef) -> bool {
    // SAFETY: `object` is a live value.
    unsafe { ffi::cg_is_constant_global(object) }
}

/// Classifies an underlying object.
pub fn object_kind(object: LLVMValueRef) -> ObjectKind {
    // SAFETY: `object` is a live value.
    match unsafe { ffi::cg_object_kind(object) } {
        ffi::CG_OBJECT_ALLOCA => ObjectKind::Alloca,
        ffi::CG_OBJECT_GLOBAL => ObjectKind::Global,
        ffi::CG_OBJECT_THREAD_LOCAL => ObjectKind::ThreadLocal,
        ffi::CG_OBJECT_HEAP => ObjectKind::Heap,
        ffi::CG_OBJECT_ARGUMENT => ObjectKind::Argument,
        _ => ObjectKind::Unknown,
    }
}

/// Whether `inst` is an atomic instruction or fence with release (or
/// stronger) ordering in the system scope: it can publish memory to another
/// thread.
pub fn is_release(inst: LLVMValueRef) -> bool {
    // SAFETY: `inst` is a live instruction.
    unsafe { ffi::cg_atomic_ordering(inst) >= ffi::CG_ORDERING_RELEASE && !ffi::cg_is_single_thread_scope(inst) }
}

/// Whether `inst` is an atomic memory instruction (any ordering).
pub fn is_atomic(inst: LLVMValueRef) -> bool {
    // SAFETY: `inst` is a live instruction.
    unsafe { ffi::cg_atomic_ordering(inst) != 0 }
}

/// Replaces the conditional branch `br` by a branch to its successor
/// `succ` (0 or 1); PHIs of the other successor drop this edge.
pub fn make_unconditional(br: LLVMValueRef, succ: u32) {
    // SAFETY: `br` is a live conditional `br` instruction; succ < 2.
    unsafe { ffi::cg_make_unconditional(br, succ) }
}

/// Points successor `index` of the terminator `term` at `target` (the
/// caller keeps PHIs and SSA valid).
pub fn set_successor(term: LLVMValueRef, index: u32, target: LLVMBasicBlockRef) {
    // SAFETY: `term` is a live terminator with more than `index` successors.
    unsafe { ffi::cg_set_successor(term, index, target) }
}

/// Splits `before`'s block into `if (cond) { new block } before...`; returns
/// the new block's terminator. `unlikely` marks the new block cold.
pub fn split_if_then(cond: LLVMValueRef, before: LLVMValueRef, unlikely: bool) -> LLVMValueRef {
    // SAFETY: `cond` is an i1 value available at `before`, an instruction
    // (not a PHI) in a block of a function definition.
    unsafe { ffi::cg_split_if_then(cond, before, unlikely) }
}

/// A copy of `function`'s body as an internal function named `name`
/// (`None` for variadic functions and arguments passed in the caller's
/// frame: byval, inalloca, preallocated, swift ABI). The copy keeps
/// `function`'s own instructions and `function` gets the cloned ones, so the
/// copy's use lists, which the backend reads, are the original body's.
pub fn clone_for_dispatch(cx: &ModuleContext<'_>, function: LLVMValueRef, name: &std::ffi::CStr) -> Option<LLVMValueRef> {
    // SAFETY: `function` is a function of cx's module, no function context
    // of it is open (its cached analyses are invalidated); the name is
    // NUL-terminated.
    let f = unsafe { ffi::cg_clone_for_dispatch(cx.mam, function, name.as_ptr()) };
    (!f.is_null()).then_some(f)
}

/// Inserts `if (*word == 0) return tail call clone(args)` before `before`,
/// an instruction of `function`'s entry block after its allocas.
pub fn insert_dispatch(function: LLVMValueRef, clone: LLVMValueRef, word: LLVMValueRef, before: LLVMValueRef) {
    // SAFETY: `clone` has `function`'s type; `word` is a `size_t` global;
    // `before` is in `function`'s entry block.
    unsafe { ffi::cg_insert_dispatch(function, clone, word, before) }
}

/// Replaces the call `call` of a guarded function by `*word == 0 ?
/// clone(args) : callee(args)`; false (nothing changed) for an `invoke` or
/// a `musttail` call.
pub fn dispatch_call(call: LLVMValueRef, clone: LLVMValueRef, word: LLVMValueRef) -> bool {
    // SAFETY: `call` is a call instruction in a function body whose callee
    // has `clone`'s type; `word` is a `size_t` global.
    unsafe { ffi::cg_dispatch_call(call, clone, word) }
}

/// Splits `before`'s block into `if (cond) { then } else { else }
/// before...`; returns the terminators of the then and else blocks.
pub fn split_if_then_else(cond: LLVMValueRef, before: LLVMValueRef) -> (LLVMValueRef, LLVMValueRef) {
    let (mut then_term, mut else_term) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: as split_if_then; the out-pointers are live locals.
    unsafe { ffi::cg_split_if_then_else(cond, before, &mut then_term, &mut else_term) };
    (then_term, else_term)
}
