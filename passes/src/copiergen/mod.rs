//! The `copiergen` pass: rewrites large and variable-length copies into
//! libcopier's asynchronous `amemcpy`/`amemmove` and places `csync` where
//! the program first needs their bytes.
//!
//! Per function:
//! 1. [`candidates`]: find `memcpy`/`memmove`/`__memcpy_chk`/`__memmove_chk`
//!    calls and `llvm.memcpy`/`llvm.memcpy.inline`/`llvm.memmove`; keep the
//!    small-constant, volatile, odd ones synchronous (missed remarks).
//! 2. [`effects`] + [`placement`]: on the unmodified IR (the copies are still
//!    `memcpy`, so capture and alias facts describe the program as written),
//!    a forward dataflow of pending copies decides which instructions need
//!    a narrow (`csync(ptr, size)`) or whole-copy sync.
//! 3. [`lazy_copies`]: copies whose destination only goes to the
//!    write/send family and then dies are submitted lazy.
//! 4. [`emit`]: rewrite the copies and insert the syncs; windowed
//!    `csync_ready_end` guards in loops; mem2reg on the helper slots.
//!
//! Functions of the Copier runtime are never rewritten (brief: names
//! `amemcpy*`, `amemmove*`, `csync*`, `copier_*`, `__copier*`, sections
//! `.text.copier*`), nor are signal handlers and the functions of the
//! module they call ([`signals`]: `amemcpy`/`csync` are not
//! async-signal-safe, `memcpy` is). Modules for targets libcopier does not
//! run on (GPU, wasm, non-Linux) are left alone.

pub mod absorb_calls;
pub mod candidates;
pub mod dispatch;
pub mod effects;
pub mod emit;
pub mod lazy_copies;
pub mod options;
pub mod pending_free;
pub mod placement;
pub mod remark_instances;
pub mod remarks;
pub mod section;
pub mod signals;
pub mod size_profile;

use crate::context::{self, FunctionAnalyses, ModuleContext, Severity};
use crate::ir;
use crate::pass::{ModulePass, Schedule};
use candidates::{IntrinsicIds, SkipReason};
use effects::{CopyFacts, EffectBuilder};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use placement::PendingCopy;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// The CopierGen pass (`-passes=copiergen`, scheduled at the end of every
/// default pipeline).
pub struct CopierGen;

/// Parameters of `-passes=copiergen<...>`, `;`-separated:
/// `threshold=N` (a size, `16k`; overrides `-copiergen-threshold`), `window` / `no-window`
/// (override `-copiergen-window`), `min-overlap=N` (overrides
/// `-copiergen-min-overlap`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Params {
    /// Rewrite threshold for constant lengths, bytes.
    pub threshold: Option<u64>,
    /// Windowed guards in loops.
    pub window: Option<bool>,
    /// Minimum work (instructions) before a copy's first whole-copy sync.
    pub min_overlap: Option<u64>,
}

impl Params {
    /// Parses the text between the angle brackets.
    ///
    /// # Errors
    /// A message naming the unknown or malformed parameter.
    pub fn parse(text: &str) -> Result<Params, String> {
        let mut p = Params::default();
        for item in text.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            if let Some(v) = item.strip_prefix("threshold=") {
                p.threshold = Some(
                    crate::options::parse_size(v).ok_or_else(|| format!("threshold '{v}' is not {}", copier_abi::SIZE_SYNTAX))?,
                );
            } else if let Some(v) = item.strip_prefix("min-overlap=") {
                p.min_overlap = Some(v.parse().map_err(|_| format!("min-overlap '{v}' is not an instruction count"))?);
            } else if item == "window" {
                p.window = Some(true);
            } else if item == "no-window" {
                p.window = Some(false);
            } else {
                return Err(format!(
                    "unknown parameter '{item}' (expected threshold=N, min-overlap=N, window or no-window)"
                ));
            }
        }
        Ok(p)
    }
}

/// Settings of one run.
#[derive(Debug, Clone, Copy)]
struct Config {
    threshold: u64,
    window: bool,
    max_queries: u64,
    min_overlap: u64,
    loop_guards: bool,
    max_narrow: u64,
    unguarded_loops: u64,
    pending_free_functions: u64,
}

impl ModulePass for CopierGen {
    fn name(&self) -> &'static str {
        "copiergen"
    }

    fn schedule(&self) -> Schedule {
        Schedule { lto_prelink: true, ..Schedule::PIPELINE_END }
    }

    fn parse_params(&self, params: &str) -> Result<(), String> {
        Params::parse(params).map(|_| ())
    }

    fn options(&self) -> &'static [&'static crate::options::PluginOption] {
        options::OPTIONS
    }

    fn run(&self, cx: &ModuleContext<'_>, params: &str) -> bool {
        let triple = ir::target_triple(cx.raw());
        if params == crate::pass::LTO_PRELINK {
            // The link-time run sees the module after LTO internalized its
            // symbols, when `void __copier_csync(...) {...}` looks like a
            // `static` one: record the conflict now, and anchor libcopier
            // as below.
            if module_has_copies(cx) {
                emit::Runtime::rename_local_namesakes(cx.raw());
            }
            let recorded = emit::Runtime::record_conflict(cx.raw());
            if !recorded && options::LINK_RUNTIME.bool() && target_supported(&triple) {
                emit::Runtime::anchor(cx.raw());
            }
            return recorded || options::LINK_RUNTIME.bool();
        }
        // Link glue, not a rewrite: also under -copiergen-disable, which
        // copiergen cc builds still link libcopier for.
        if options::LINK_RUNTIME.bool() && target_supported(&triple) {
            emit::Runtime::anchor(cx.raw());
        }
        if options::DISABLE.bool() {
            return false;
        }
        let params = match Params::parse(params) {
            Ok(p) => p,
            Err(e) => {
                cx.diagnose(None, Severity::Error, &e);
                return false;
            }
        };
        if !target_supported(&triple) {
            remark_unsupported_target(cx, &triple);
            return false;
        }
        // A `static` namesake cannot clash at link time: it makes way.
        if module_has_copies(cx) {
            emit::Runtime::rename_local_namesakes(cx.raw());
        }
        // Checked once per module with copies, before any analysis: one
        // warning, and every copy gets the same remark. A conflict an -flto
        // compile recorded warns without copies too, as `copiergen cc` does
        // at an -flto link of that module's object.
        if let Some((name, expected)) = emit::Runtime::conflict(cx.raw())
            .filter(|_| emit::Runtime::has_recorded_conflict(cx.raw()) || module_has_copies(cx))
        {
            cx.diagnose(
                None,
                Severity::Warning,
                &format!(
                    "the module defines '{name}' itself (a name reserved for libcopier), or declares it with another type or as a variable, but libcopier's is '{expected}'; every copy of the module stays synchronous"
                ),
            );
            remark_every_copy(cx, &SkipReason::RuntimeDeclConflict(name));
            return false;
        }
        let cfg = Config {
            threshold: params.threshold.unwrap_or_else(|| options::THRESHOLD.uint()),
            window: params.window.unwrap_or_else(|| options::WINDOW.bool()),
            max_queries: options::MAX_QUERIES.uint(),
            min_overlap: params.min_overlap.unwrap_or_else(|| options::MIN_OVERLAP.uint()),
            loop_guards: options::LOOP_GUARDS.bool(),
            max_narrow: options::MAX_NARROW.uint(),
            unguarded_loops: options::UNGUARDED_LOOPS.uint(),
            pending_free_functions: options::PENDING_FREE_FUNCTIONS.uint(),
        };
        let ids = IntrinsicIds::lookup();
        let mut runtime = None;
        // Snapshot: the pass adds declarations while it runs.
        // available_externally bodies (ThinLTO imports) are never emitted.
        let definitions: Vec<LLVMValueRef> = ir::functions(cx.raw())
            .filter(|&f| !ir::is_declaration(f) && !ir::is_available_externally(f))
            .collect();
        let signal_context = signals::signal_context(&definitions);
        let guarded = if options::GUARD_CALLEES.bool() {
            select_guarded(cx, &cfg, &ids, &definitions, &signal_context)
        } else {
            HashSet::new()
        };
        let facts = ModuleFacts { guarded, signal_context };
        let verify = options::VERIFY.bool();
        let dispatch = options::DISPATCH.bool();
        let check = |f: LLVMValueRef| {
            if let Err(message) = context::verify_function(f) {
                let name = ir::name(f);
                cx.diagnose(
                    Some(f),
                    Severity::Error,
                    &format!("internal error: CopierGen produced invalid IR in function '{name}' (please report; -mllvm -copiergen-disable avoids it): {message}"),
                );
            }
        };
        let mut changed = false;
        let mut unguarded = Vec::new();
        for f in definitions {
            // The unguarded copy is taken before the pass changes the body.
            let clone = if dispatch && facts.guarded.contains(&f) { dispatch::clone_body(cx, f) } else { None };
            let changed_f = run_on_function(cx, &cfg, &ids, &mut runtime, &facts, f, false);
            match (clone, &runtime) {
                (Some(clone), Some(Ok(rt))) if changed_f => {
                    dispatch::insert(f, clone, rt);
                    unguarded.push((f, clone));
                }
                (Some(clone), _) => dispatch::discard(clone),
                (None, _) => {}
            }
            if changed_f && verify {
                check(f);
            }
            changed |= changed_f;
        }
        for &(_, f) in &unguarded {
            if run_on_function(cx, &cfg, &ids, &mut runtime, &facts, f, true) && verify {
                check(f);
            }
        }
        if let (false, Some(Ok(rt))) = (unguarded.is_empty(), &runtime) {
            let clones: HashMap<LLVMValueRef, LLVMValueRef> = unguarded.iter().copied().collect();
            for f in dispatch::redirect_calls(cx, &clones, rt, cfg.unguarded_loops as usize) {
                if verify {
                    check(f);
                }
            }
        }
        dispatch::clear_marks(cx.raw());
        changed
    }
}

/// Whether libcopier can run on the module's target: x86-64 Linux, or no
/// triple (hand-written IR for `opt`).
fn target_supported(triple: &str) -> bool {
    triple.is_empty() || (triple.starts_with("x86_64") && triple.contains("-linux") && !triple.ends_with("x32"))
}

/// Missed remarks (when requested) for the copies of a module whose target
/// has no libcopier.
fn remark_unsupported_target(cx: &ModuleContext<'_>, triple: &str) {
    remark_every_copy(cx, &SkipReason::UnsupportedTarget(triple.to_owned()));
}

/// Whether some function of the module has a copy the pass recognises.
fn module_has_copies(cx: &ModuleContext<'_>) -> bool {
    let ids = IntrinsicIds::lookup();
    ir::functions(cx.raw())
        .filter(|&f| !ir::is_declaration(f))
        .any(|f| ir::blocks(f).flat_map(ir::instructions).any(|i| candidates::recognize(i, &ids).is_some()))
}

/// Missed remarks (when requested) for every copy of the module: `why`
/// keeps them all synchronous.
fn remark_every_copy(cx: &ModuleContext<'_>, why: &SkipReason) {
    let ids = IntrinsicIds::lookup();
    for f in ir::functions(cx.raw()).filter(|&f| !ir::is_declaration(f)) {
        let found: Vec<_> =
            ir::blocks(f).flat_map(ir::instructions).filter_map(|i| candidates::recognize(i, &ids).map(|(_, _, n)| (i, n))).collect();
        if found.is_empty() {
            continue;
        }
        let fa = cx.analyses(f);
        if !fa.remarks_enabled() {
            return;
        }
        let cr = remark_instances::CopyRemarks::new(&fa);
        for (i, name) in found {
            remarks::skipped(&cr, i, &name, const_len_of(i), why);
        }
    }
}

fn has_funclets(function: LLVMValueRef) -> bool {
    ir::blocks(function).flat_map(ir::instructions).any(|i| {
        matches!(
            ir::opcode(i),
            LLVMOpcode::LLVMCatchSwitch
                | LLVMOpcode::LLVMCatchPad
                | LLVMOpcode::LLVMCleanupPad
                | LLVMOpcode::LLVMCatchRet
                | LLVMOpcode::LLVMCleanupRet
        )
    })
}

fn has_setjmp(fa: &FunctionAnalyses<'_>, function: LLVMValueRef) -> bool {
    ir::blocks(function).flat_map(ir::instructions).any(|i| {
        matches!(ir::opcode(i), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) && fa.call_props(i).returns_twice()
    })
}

/// What the module-wide analyses found, before any function changes.
struct ModuleFacts {
    /// Functions that can run while a caller's copy is pending.
    guarded: HashSet<LLVMValueRef>,
    /// Signal handlers and their callees, with the reason for each.
    signal_context: HashMap<LLVMValueRef, String>,
}

fn run_on_function(
    cx: &ModuleContext<'_>,
    cfg: &Config,
    ids: &IntrinsicIds,
    runtime: &mut Option<Result<emit::Runtime, String>>,
    facts: &ModuleFacts,
    f: LLVMValueRef,
    unguarded_copy: bool,
) -> bool {
    let (guarded, signal_context) = (&facts.guarded, &facts.signal_context);
    let is_guarded = guarded.contains(&f);
    let found: Vec<_> = ir::blocks(f)
        .flat_map(ir::instructions)
        .filter_map(|i| candidates::recognize(i, ids).map(|(k, form, name)| (i, k, form, name)))
        .collect();
    if (found.is_empty() && !is_guarded) || ir::has_fn_attr(f, "naked") {
        return false;
    }
    let fa = cx.analyses(f);
    if unguarded_copy {
        fa.quiet_remarks();
    }
    // (flushed before the IR changes, or when dropped on an early return)
    let cr = remark_instances::CopyRemarks::new(&fa);
    let remarks = fa.remarks_enabled();
    let skip_all = |why: SkipReason| {
        if remarks {
            for (i, _, _, name) in &found {
                remarks::skipped(&cr, *i, name, const_len_of(*i), &why);
            }
        }
        false
    };
    if candidates::is_runtime_function(f) {
        return skip_all(SkipReason::RuntimeFunction(ir::name(f)));
    }
    if let Some(handler) = signal_context.get(&f) {
        return skip_all(SkipReason::SignalHandler { function: ir::name(f), handler: handler.clone() });
    }
    if has_funclets(f) {
        return skip_all(SkipReason::Funclets);
    }

    let mut calls = Vec::new();
    for (i, kind, form, name) in &found {
        let classified = candidates::classify(*i, *kind, *form, name.clone(), cfg.threshold).and_then(|c| {
            library_copy(&fa, &c)?;
            if c.const_len.is_none() {
                let max = fa.length_max(c.len, c.call);
                if max < cfg.threshold {
                    return Err(SkipReason::BoundedBelowThreshold(max, cfg.threshold));
                }
                let object = fa.copy_object_max(c.call);
                if object < cfg.threshold {
                    return Err(SkipReason::ObjectBelowThreshold(object, cfg.threshold));
                }
                if let Some(size_profile::Verdict::Short { calls, short, max }) =
                    size_profile::verdict(c.call, cfg.threshold)
                {
                    return Err(SkipReason::ProfiledBelowThreshold { calls, short, max, threshold: cfg.threshold });
                }
            }
            Ok(c)
        });
        match classified {
            Ok(c) => calls.push(c),
            Err(why) => {
                if remarks {
                    remarks::skipped(&cr, *i, name, const_len_of(*i), &why);
                }
            }
        }
    }
    if calls.is_empty() && !is_guarded {
        return false;
    }
    let setjmp = has_setjmp(&fa, f);
    let copies: Vec<PendingCopy> = calls
        .into_iter()
        .map(|call| PendingCopy {
            facts: CopyFacts::new(&fa, call.dst, call.src, call.const_len, setjmp, source_range(&call)),
            loc: ir::debug_loc(call.call),
            profile: if call.const_len.is_none() { size_profile::verdict(call.call, cfg.threshold) } else { None },
            call,
        })
        .collect();
    let function_nounwind = ir::has_fn_attr(f, "nounwind");
    let make_plan = |copies: &[PendingCopy]| {
        let candidate_index: HashMap<LLVMValueRef, usize> =
            copies.iter().enumerate().map(|(i, c)| (c.call.call, i)).collect();
        let eb = EffectBuilder {
            cx,
            fa: &fa,
            ids,
            candidates: &candidate_index,
            function_nounwind,
            guarded,
            private_cache: RefCell::new(HashMap::new()),
        };
        let plan = placement::plan(f, &fa, &eb, copies, is_guarded, cfg.max_queries, false)?;
        if plan.narrow_count() as u64 > cfg.max_narrow {
            return placement::plan(f, &fa, &eb, copies, is_guarded, cfg.max_queries, true);
        }
        Ok(plan)
    };
    let over_budget = |over: placement::OverBudget, copies: &[PendingCopy], runtime: &mut Option<_>| {
        if remarks {
            for c in copies {
                let why = SkipReason::TooLarge(over.queries, cfg.max_queries);
                remarks::skipped(&cr, c.call.call, &c.call.callee, c.call.const_len, &why);
            }
        }
        // Callers rely on a guarded function: wait for them at its entry.
        is_guarded && guard_at_entry(cx, &fa, runtime)
    };
    let mut copies = copies;
    let mut plan = match make_plan(&copies) {
        Ok(p) => p,
        Err(over) => return over_budget(over, &copies, runtime),
    };
    // Copies the cost model rejects stay synchronous (waited for at once,
    // or paying guards on every iteration of their loop); plan again
    // without them, until it rejects none (a guard several copies need
    // names one of them: the next plan names another).
    loop {
        let skip: Vec<Option<SkipReason>> = (0..copies.len()).map(|i| cost_skip(&fa, cfg, &copies, &plan, i)).collect();
        if !skip.iter().any(Option::is_some) {
            break;
        }
        let mut kept = Vec::new();
        for (c, why) in copies.into_iter().zip(skip) {
            match why {
                Some(why) => {
                    if remarks {
                        remarks::skipped(&cr, c.call.call, &c.call.callee, c.call.const_len, &why);
                    }
                }
                None => kept.push(c),
            }
        }
        copies = kept;
        if copies.is_empty() && !is_guarded {
            return false;
        }
        plan = match make_plan(&copies) {
            Ok(p) => p,
            Err(over) => return over_budget(over, &copies, runtime),
        };
    }
    if !plan.reachable.iter().any(|&r| r) && !is_guarded {
        if remarks {
            for c in &copies {
                remarks::skipped(&cr, c.call.call, &c.call.callee, c.call.const_len, &SkipReason::Unreachable);
            }
        }
        return false;
    }

    // Declared only now: a function that rewrites nothing adds nothing.
    let rt = match runtime.get_or_insert_with(|| emit::Runtime::declare(cx.raw())) {
        Ok(rt) => *rt,
        Err(name) => {
            // (not reached: `run` checks the declarations first and warns once)
            if remarks {
                for c in &copies {
                    let why = SkipReason::RuntimeDeclConflict(name.clone());
                    remarks::skipped(&cr, c.call.call, &c.call.callee, c.call.const_len, &why);
                }
            }
            return false;
        }
    };

    let lazy = if options::LAZY.bool() { lazy_copies::choose(cx.raw(), &fa, &copies, &plan) } else { lazy_copies::LazyPlan::default() };
    // Remarks before the IR changes: they point at the original calls.
    if remarks {
        for (i, c) in copies.iter().enumerate() {
            if plan.reachable[i] {
                remarks::rewritten(&cr, &c.call);
                if let Some(size_profile::Verdict::Long { calls, long }) = c.profile {
                    remarks::profiled_long(&cr, &c.call, calls, long, cfg.threshold);
                }
            } else {
                remarks::skipped(&cr, c.call.call, &c.call.callee, c.call.const_len, &SkipReason::Unreachable);
            }
        }
        let numbers = cr.flush();
        for pc in &mut copies {
            // (later remarks name the copy: with its instance, if the copy
            // remarks of its location needed one)
            if let (Some(&(i, n)), Some(loc)) = (numbers.get(&pc.call.call), &mut pc.loc) {
                *loc = format!("{loc} (instance {i} of {n})");
            }
        }
        for point in &plan.points {
            remarks::sync_point(&fa, &copies, &plan, point, cfg.window, &lazy.drops);
        }
        if is_guarded {
            remarks::guarded(&fa, f);
        }
    }
    emit::apply(
        cx.raw(),
        &fa,
        rt,
        &copies,
        &plan,
        &lazy,
        emit::Limits {
            window: cfg.window,
            max_unguarded: cfg.unguarded_loops as usize,
            max_pending_free_body: cfg.pending_free_functions as usize,
            threshold: cfg.threshold,
        },
    );
    true
}

/// Why the cost model keeps copy `c` of `plan` synchronous, if it does:
/// its whole-copy sync follows at once (`-copiergen-min-overlap`), or it
/// would pay guards on every iteration of its loop (`-copiergen-loop-guards`).
fn cost_skip(fa: &FunctionAnalyses<'_>, cfg: &Config, copies: &[PendingCopy], plan: &placement::Plan, c: usize) -> Option<SkipReason> {
    if let Some(q) = placement::work_before_sync(copies, plan, c, cfg.min_overlap) {
        let point = &plan.points[q.point];
        let mut sync = remarks::describe_point(point);
        // A coarse plan waits for the whole copy at its first conflicting
        // access: say so, it is why nothing overlaps.
        if point.full.iter().any(|&(k, r)| k == c && matches!(r, effects::FullReason::CoarseAccess(_))) {
            sync += &format!(" (planned coarsely: the function needs more than {} narrow syncs, -copiergen-max-narrow)", cfg.max_narrow);
        }
        return Some(SkipReason::NoOverlap { work: q.work, limit: cfg.min_overlap, sync, others: q.points - 1 });
    }
    if !cfg.loop_guards {
        return None;
    }
    let g = placement::guards_every_iteration(fa, copies, plan, c)?;
    Some(SkipReason::LoopGuards { guards: g.guards, first: remarks::describe_point(&plan.points[g.point]), whole: g.whole })
}

/// Fallback for a guarded function the analysis cannot plan: wait for
/// every pending copy at its entry.
fn guard_at_entry(
    cx: &ModuleContext<'_>,
    fa: &FunctionAnalyses<'_>,
    runtime: &mut Option<Result<emit::Runtime, String>>,
) -> bool {
    match runtime.get_or_insert_with(|| emit::Runtime::declare(cx.raw())) {
        Ok(rt) => {
            emit::sync_all_at_entry(cx.raw(), fa, *rt);
            true
        }
        // Nothing in the module can be rewritten: no caller leaves a copy.
        Err(_) => false,
    }
}

/// Functions whose callers in this module need not sync for them: their
/// bodies wait for whatever the callers left pending before touching it
/// (the callers' copies, a pseudo-copy pending at their entry). Chosen where
/// it moves a sync later: functions with a loop called while a copy the
/// call may touch is pending, then (one level) the functions with a loop
/// those call with pointers. Only exact, non-interposable definitions (the
/// body that runs is this one), at most [`MAX_GUARDED`] per module.
fn select_guarded(
    cx: &ModuleContext<'_>,
    cfg: &Config,
    ids: &IntrinsicIds,
    definitions: &[LLVMValueRef],
    signal_context: &HashMap<LLVMValueRef, String>,
) -> HashSet<LLVMValueRef> {
    let mut guarded = HashSet::new();
    // A guard costs a csync per straight-line access group on every call,
    // pending copies or not; it pays off where the callee loops over memory
    // (windows: an inline check per access, a call per window).
    // A guard is a csync: never in code a signal handler may run.
    let eligible = |f: LLVMValueRef| {
        context::is_exact_definition(f)
            && !candidates::is_runtime_function(f)
            && !signal_context.contains_key(&f)
            && !ir::has_fn_attr(f, "naked")
            && !has_funclets(f)
            && ir::blocks(f).flat_map(ir::instructions).count() <= MAX_GUARDED_SIZE
            && has_cycle(f)
    };
    let mut eligible_cache: HashMap<LLVMValueRef, bool> = HashMap::new();
    let mut is_eligible = |f: LLVMValueRef| *eligible_cache.entry(f).or_insert_with(|| eligible(f));
    let mut frontier = Vec::new();
    for &x in definitions {
        let copies: Vec<_> = ir::blocks(x)
            .flat_map(ir::instructions)
            .filter_map(|i| candidates::recognize(i, ids).and_then(|(k, form, n)| candidates::classify(i, k, form, n, cfg.threshold).ok()))
            .collect();
        if copies.is_empty() || candidates::is_runtime_function(x) || signal_context.contains_key(&x) || has_funclets(x) {
            continue;
        }
        let fa = cx.analyses(x);
        // Copies whose length range (or size profile) stays below the
        // threshold stay memcpy
        // (run_on_function): they leave nothing pending.
        let copies: Vec<_> = copies
            .into_iter()
            .filter(|c| {
                c.const_len.is_some()
                    || (fa.length_max(c.len, c.call) >= cfg.threshold
                        && fa.copy_object_max(c.call) >= cfg.threshold
                        && !matches!(size_profile::verdict(c.call, cfg.threshold), Some(size_profile::Verdict::Short { .. })))
            })
            .collect();
        let facts: Vec<CopyFacts> =
            copies.iter().map(|c| CopyFacts::new(&fa, c.dst, c.src, c.const_len, true, None)).collect();
        for call in ir::blocks(x).flat_map(ir::instructions).filter(|&i| is_plain_call(i)) {
            let Some(f) = ir::called_function(call) else { continue };
            if guarded.contains(&f) || !is_eligible(f) {
                continue;
            }
            // Only a call that may run while the copy is pending (after it
            // on some path), and that touches its buffers or may not return
            // normally (either would make the caller wait before the call).
            let props = fa.call_props(call);
            let may_leave = !(props.nounwind() && props.willreturn());
            let touches = copies.iter().zip(&facts).any(|(copy, c)| {
                if !fa.may_reach(copy.call, call) {
                    return false;
                }
                let d = fa.mod_ref(call, c.dst);
                may_leave || d.reads || d.writes || fa.mod_ref(call, c.src).writes
            });
            if touches && guarded.len() < MAX_GUARDED {
                guarded.insert(f);
                frontier.push(f);
            }
        }
    }
    // One level deeper: what the guarded functions call with memory they do
    // not own would otherwise be a csync_all inside them.
    for f in frontier {
        for call in ir::blocks(f).flat_map(ir::instructions).filter(|&i| is_plain_call(i)) {
            let Some(h) = ir::called_function(call) else { continue };
            if guarded.len() >= MAX_GUARDED || guarded.contains(&h) || !is_eligible(h) {
                continue;
            }
            let passes_pointers = (0..ir::num_args(call)).any(|i| ir::address_space(ir::arg(call, i)).is_some());
            if passes_pointers {
                guarded.insert(h);
            }
        }
    }
    guarded
}

/// Whether the copy is the C library's (else the program may provide its
/// own routine, which must keep running where the program calls it, never
/// from libcopier's service thread):
/// a `memcpy`/`memmove`/`_chk` call must be one TargetLibraryInfo
/// recognises (not `nobuiltin`, not under `-fno-builtin`), and — for every
/// form, since libcopier copies with them — the module must not define
/// `memcpy` or `memmove`, nor the function disable them as builtins.
fn library_copy(fa: &FunctionAnalyses<'_>, c: &candidates::CopyCall) -> Result<(), SkipReason> {
    if c.form != candidates::CopyForm::Intrinsic && !fa.is_library_call(c.call) {
        return Err(SkipReason::NoBuiltin);
    }
    let routines = match c.kind {
        candidates::CopyKind::Copy => ["memcpy", "memmove"],
        candidates::CopyKind::Move => ["memmove", "memcpy"],
    };
    match routines.into_iter().find(|r| !fa.library_routine_usable(r)) {
        Some(r) => Err(SkipReason::ProgramCopyRoutine(r.to_owned())),
        None => Ok(()),
    }
}

/// The source range of `call` when it is a `memcpy` that runs at most once
/// per call of its function (see [`effects::CopyFacts::source`]).
fn source_range(call: &candidates::CopyCall) -> Option<effects::SourceRange> {
    (call.kind == candidates::CopyKind::Copy && !in_cycle(ir::parent_block(call.call)))
        .then_some(effects::SourceRange { call: call.call, ptr: call.src, len: call.len })
}

/// Whether `block` lies on a cycle of the CFG (a loop, reducible or not):
/// whether it can reach itself.
fn in_cycle(block: LLVMBasicBlockRef) -> bool {
    let mut seen = HashSet::new();
    let mut work = ir::successors(block);
    while let Some(b) = work.pop() {
        if b == block {
            return true;
        }
        if seen.insert(b) {
            work.extend(ir::successors(b));
        }
    }
    false
}

/// Whether the CFG of `function` has a cycle (a loop, reducible or not).
fn has_cycle(function: LLVMValueRef) -> bool {
    let rpo = placement::reverse_post_order(function);
    let index: HashMap<_, _> = rpo.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    rpo.iter().enumerate().any(|(i, &b)| ir::successors(b).iter().any(|s| index.get(s).is_some_and(|&j| j <= i)))
}

/// Most guarded functions per module.
const MAX_GUARDED: usize = 64;

/// Largest function (instructions) that may be guarded.
const MAX_GUARDED_SIZE: usize = 5000;

/// A `call` (not `musttail`) or `invoke`.
fn is_plain_call(inst: LLVMValueRef) -> bool {
    match ir::opcode(inst) {
        LLVMOpcode::LLVMInvoke => true,
        LLVMOpcode::LLVMCall => {
            // SAFETY: `inst` is a call instruction of the module being run.
            let kind = unsafe { inkwell::llvm_sys::core::LLVMGetTailCallKind(inst) };
            kind != inkwell::llvm_sys::LLVMTailCallKind::LLVMTailCallKindMustTail
        }
        _ => false,
    }
}

/// The constant length argument of a recognised copy call, if any.
fn const_len_of(call: LLVMValueRef) -> Option<u64> {
    if ir::num_args(call) > 2 { ir::const_int(ir::arg(call, 2)) } else { None }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_parse_threshold_and_window() {
        assert_eq!(Params::parse("").unwrap(), Params::default());
        assert_eq!(
            Params::parse("threshold=4096;no-window").unwrap(),
            Params { threshold: Some(4096), window: Some(false), min_overlap: None }
        );
        assert_eq!(
            Params::parse(" window ; threshold=0;min-overlap=3 ").unwrap(),
            Params { threshold: Some(0), window: Some(true), min_overlap: Some(3) }
        );
        assert!(Params::parse("threshold=-1").unwrap_err().contains("is not a size in bytes"));
        assert_eq!(Params::parse("threshold=16k").unwrap().threshold, Some(16384));
        assert!(Params::parse("fast").unwrap_err().contains("unknown parameter 'fast'"));
    }

    #[test]
    fn only_x86_64_linux_or_tripleless_modules_are_rewritten() {
        assert!(target_supported(""));
        assert!(target_supported("x86_64-unknown-linux-gnu"));
        assert!(target_supported("x86_64-pc-linux-musl"));
        assert!(!target_supported("aarch64-unknown-linux-android"));
        assert!(!target_supported("i686-pc-linux-gnu"));
        assert!(!target_supported("x86_64-pc-linux-gnux32"));
        assert!(!target_supported("riscv64-unknown-linux-gnu"));
        assert!(!target_supported("nvptx64-nvidia-cuda"));
        assert!(!target_supported("amdgcn-amd-amdhsa"));
        assert!(!target_supported("wasm32-unknown-unknown"));
        assert!(!target_supported("x86_64-apple-darwin"));
    }
}
