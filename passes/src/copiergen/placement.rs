//! csync placement: a forward dataflow of pending copies over the CFG.
//!
//! State at a program point: the set of candidate copies that **may** still
//! be pending there (a may-analysis: union at merges). A copy becomes
//! pending at its call and stops being pending at a whole-copy sync. A
//! narrow sync (`csync(ptr, size)` of one access) leaves the copy pending for
//! its other bytes. The fixed point is computed over the blocks reachable
//! from the entry, in reverse post-order, following every CFG edge
//! (including `invoke` unwind edges, so landing pads see what may be pending
//! when the callee throws); irreducible cycles need no special case.
//!
//! Every sync is placed immediately before the instruction that needs it, on
//! exactly the paths where the copy may be pending: as late as the analysis
//! allows, and always reached before the access it protects. On a path where
//! the copy did not run, the sync covers an empty range (a no-op).

use super::candidates::CopyCall;
use super::effects::{AccessSize, CopyFacts, Effect, EffectBuilder, FullReason, NarrowReason};
use crate::context::{FunctionAnalyses, LoopEntry};
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMOpcode;
use std::collections::{HashMap, HashSet};

/// A copy being rewritten, with what the analysis knows about it.
#[derive(Debug, Clone)]
pub struct PendingCopy {
    /// The call.
    pub call: CopyCall,
    /// Facts for the conflict rules.
    pub facts: CopyFacts,
    /// Its source location (`file:line:col`), if it has debug info.
    pub loc: Option<String>,
}

/// The bytes a narrow sync waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncRange {
    /// `len` bytes at `base + offset`: one access, or the hull of several
    /// accesses off one base in one block (constant offsets).
    Bytes {
        /// Base pointer (available at the sync point).
        base: LLVMValueRef,
        /// Byte offset from `base`.
        offset: i64,
        /// Length in bytes.
        len: u64,
    },
    /// `len` (a run-time value) bytes at `ptr`.
    Dynamic {
        /// First byte.
        ptr: LLVMValueRef,
        /// Length in bytes.
        len: LLVMValueRef,
    },
}

/// One narrow sync.
#[derive(Debug, Clone)]
pub struct NarrowSync {
    /// What it waits for.
    pub range: SyncRange,
    /// How many accesses of the block it covers.
    pub covers: usize,
    /// Underlying object of the access pointer (key of its ready window).
    pub object: LLVMValueRef,
    /// In a loop where the synced pointer only grows (ScalarEvolution): the
    /// loop's unique outside predecessor and its header. Its windowed guard
    /// then keeps a window of its own, reset in that predecessor (on every
    /// loop entry), and checks only the end.
    pub monotonic: Option<LoopEntry>,
    /// Why.
    pub reason: NarrowReason,
    /// A copy that needs it (for remarks).
    pub copy: usize,
}

/// The syncs to insert before one instruction.
#[derive(Debug, Clone)]
pub struct SyncPoint {
    /// The guarded instruction.
    pub before: LLVMValueRef,
    /// Narrow syncs of its accesses.
    pub narrow: Vec<NarrowSync>,
    /// Whole-copy syncs: (copy index, reason).
    pub full: Vec<(usize, FullReason)>,
    /// The instruction is inside a natural loop.
    pub in_loop: bool,
    /// Callee name of a call, for remarks.
    pub callee: Option<String>,
}

impl Plan {
    /// Number of narrow syncs (the code the guards add grows with it).
    pub fn narrow_count(&self) -> usize {
        self.points.iter().map(|p| p.narrow.len()).sum()
    }
}

/// The result of the placement analysis.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Where to sync, in block order.
    pub points: Vec<SyncPoint>,
    /// Copies that may still be pending from an earlier execution when they
    /// run again (a copy in a loop without a whole-copy sync in between):
    /// their whole-copy syncs use `csync_all`, since one `(dst, len)` cannot
    /// name every pending instance.
    pub multi_instance: Vec<bool>,
    /// Copies in blocks reachable from the entry (others are left alone).
    pub reachable: Vec<bool>,
    /// Calls to the program's own Copier submissions (`amemcpy`, ...):
    /// cached ready windows are reset after them.
    pub user_submissions: Vec<LLVMValueRef>,
    /// Index of the callers' pending copies of a guarded function.
    pub callers: Option<usize>,
    /// Headers of the loops that may get an unguarded copy (emit's loop
    /// versioning): loops with an increasing-pointer guard of constant size
    /// and no submission inside (a submission would invalidate the windows
    /// while the copy runs).
    pub versionable: Vec<LLVMBasicBlockRef>,
}

impl Plan {
    /// Whether the narrow sync at `point` uses a windowed guard (an inline
    /// check of a cached ready window, `csync_ready_end` on a miss) rather
    /// than a `csync` call: inside loops, where later iterations hit the
    /// window. Straight-line code gets plain calls (smaller code).
    pub fn windowed(&self, point: &SyncPoint, window_enabled: bool) -> bool {
        window_enabled && point.in_loop
    }
}

/// Largest hull (bytes) one grouped narrow sync may cover.
const MAX_HULL: u64 = 4096;

/// Most earlier bases of a block a pointer is compared with (constant
/// distance) before it becomes a base itself.
const MAX_NEAR_BASES: usize = 8;

/// Most ready ranges remembered per program point.
const MAX_AVAILABLE: usize = 64;

/// Byte ranges known ready at a program point: synced since the last
/// submission on every path (a must-analysis: intersection at merges).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Ready(Vec<(LLVMValueRef, i64, i64)>);

impl Ready {
    fn covers(&self, base: LLVMValueRef, lo: i64, hi: i64) -> bool {
        self.0.iter().any(|&(b, l, h)| b == base && l <= lo && hi <= h)
    }
    fn add(&mut self, base: LLVMValueRef, lo: i64, hi: i64) {
        if !self.covers(base, lo, hi) {
            if self.0.len() == MAX_AVAILABLE {
                self.0.remove(0);
            }
            self.0.push((base, lo, hi));
        }
    }
    fn meet(&self, other: &Ready) -> Ready {
        let mut r = Ready::default();
        for &(b, l, h) in &self.0 {
            if other.covers(b, l, h) {
                r.add(b, l, h);
            }
        }
        for &(b, l, h) in &other.0 {
            if self.covers(b, l, h) {
                r.add(b, l, h);
            }
        }
        r
    }
}

/// The analysis ran out of its alias-query budget.
#[derive(Debug, Clone, Copy)]
pub struct OverBudget {
    /// Queries made.
    pub queries: u64,
}

/// Multiplicative hasher for the memo tables (keys are pointers and small
/// integers; SipHash's DoS resistance buys nothing here and dominated the
/// analysis time on large functions).
#[derive(Default)]
struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, v: usize) {
        self.write_u64(v as u64);
    }
}

type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

#[derive(Clone, PartialEq, Eq)]
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(n: usize) -> BitSet {
        BitSet(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    fn remove(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    fn contains(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
    fn union_with(&mut self, o: &BitSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &bits)| (0..64).filter(move |b| bits & (1 << b) != 0).map(move |b| w * 64 + b))
    }
    fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }
}

/// Blocks reachable from the entry, in reverse post-order.
pub fn reverse_post_order(function: LLVMValueRef) -> Vec<LLVMBasicBlockRef> {
    let Some(entry) = ir::blocks(function).next() else {
        return Vec::new();
    };
    let mut visited = HashSet::new();
    let mut post = Vec::new();
    // Iterative DFS: (block, successors, next successor index).
    let mut stack: Vec<(LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>, usize)> = Vec::new();
    visited.insert(entry);
    stack.push((entry, ir::successors(entry), 0));
    while let Some((bb, succs, next)) = stack.last_mut() {
        if *next < succs.len() {
            let s = succs[*next];
            *next += 1;
            if visited.insert(s) {
                let ss = ir::successors(s);
                stack.push((s, ss, 0));
            }
        } else {
            post.push(*bb);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// What one instruction needs: whole-copy syncs (copy, reason) and narrow
/// syncs (access index, reason, copy).
type Syncs = (Vec<(usize, FullReason)>, Vec<(usize, NarrowReason, usize)>);

struct Analysis<'a, 'b, 'm> {
    eb: &'a EffectBuilder<'b, 'm>,
    fa: &'a FunctionAnalyses<'b>,
    facts: Vec<CopyFacts>,
    full_memo: FastMap<(LLVMValueRef, usize), Option<FullReason>>,
    coarse: bool,
    narrow_memo: FastMap<(LLVMValueRef, usize, usize), Option<NarrowReason>>,
    max_queries: u64,
}

impl Analysis<'_, '_, '_> {
    fn budget(&self) -> Result<(), OverBudget> {
        if self.fa.queries() > self.max_queries {
            Err(OverBudget { queries: self.fa.queries() })
        } else {
            Ok(())
        }
    }

    fn full(&mut self, inst: LLVMValueRef, e: &Effect, c: usize) -> Result<Option<FullReason>, OverBudget> {
        if let Some(&r) = self.full_memo.get(&(inst, c)) {
            return Ok(r);
        }
        let r = self.eb.full_conflict(inst, e, &self.facts[c]);
        self.budget()?;
        self.full_memo.insert((inst, c), r);
        Ok(r)
    }

    fn narrow(&mut self, inst: LLVMValueRef, e: &Effect, i: usize, c: usize) -> Result<Option<NarrowReason>, OverBudget> {
        if let Some(&r) = self.narrow_memo.get(&(inst, i, c)) {
            return Ok(r);
        }
        let r = self.eb.narrow_conflict(inst, e, i, &self.facts[c]);
        self.budget()?;
        self.narrow_memo.insert((inst, i, c), r);
        Ok(r)
    }

    /// Applies one instruction to the state; returns the syncs it needs.
    /// A narrow sync covers every pending copy at once (csync waits for any
    /// copy touching the range), so each access stops at the first copy it
    /// conflicts with.
    fn transfer(&mut self, inst: LLVMValueRef, e: &Effect, state: &mut BitSet) -> Result<Syncs, OverBudget> {
        let mut full = Vec::new();
        let mut narrow = Vec::new();
        if let Some(c) = e.submits {
            state.insert(c);
            return Ok((full, narrow));
        }
        let pending: Vec<usize> = state.iter().collect();
        if e.may_need_full() {
            for &c in &pending {
                if let Some(r) = self.full(inst, e, c)? {
                    state.remove(c);
                    full.push((c, r));
                }
            }
        }
        for (i, a) in e.accesses.iter().enumerate() {
            if !a.syncable() {
                continue;
            }
            for &c in &pending {
                if !state.contains(c) {
                    continue;
                }
                if let Some(why) = self.narrow(inst, e, i, c)? {
                    if self.coarse {
                        // Coarse mode: the first access a copy conflicts
                        // with waits for all of it (every copy it touches).
                        state.remove(c);
                        full.push((c, FullReason::CoarseAccess(why)));
                        continue;
                    }
                    narrow.push((i, why, c));
                    break;
                }
            }
        }
        Ok((full, narrow))
    }
}

/// Computes where the copies of `function` need syncs. In `coarse` mode
/// an access that conflicts with a pending copy waits for the whole copy
/// (fewer, larger syncs: the fallback for functions that would need too
/// many narrow ones).
///
/// # Errors
/// [`OverBudget`] when the function needs more than `max_queries` alias
/// queries; nothing may then be rewritten.
pub fn plan(
    function: LLVMValueRef,
    fa: &FunctionAnalyses<'_>,
    eb: &EffectBuilder<'_, '_>,
    copies: &[PendingCopy],
    callers: bool,
    max_queries: u64,
    coarse: bool,
) -> Result<Plan, OverBudget> {
    let rpo = reverse_post_order(function);
    let index: HashMap<LLVMBasicBlockRef, usize> = rpo.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); rpo.len()];
    for (i, &b) in rpo.iter().enumerate() {
        for s in ir::successors(b) {
            if let Some(&j) = index.get(&s) {
                preds[j].push(i);
            }
        }
    }

    let copy_index: HashMap<LLVMValueRef, usize> = copies.iter().enumerate().map(|(i, c)| (c.call.call, i)).collect();
    let mut reachable = vec![false; copies.len()];
    let mut user_submissions = Vec::new();
    // The instructions of interest of each block, with their effects.
    let mut body: Vec<Vec<(LLVMValueRef, Effect)>> = Vec::with_capacity(rpo.len());
    for &b in &rpo {
        let mut v = Vec::new();
        for inst in ir::instructions(b) {
            if let Some(&c) = copy_index.get(&inst) {
                reachable[c] = true;
            }
            let e = eb.effect(inst);
            if e.user_submission {
                user_submissions.push(inst);
            }
            if !e.is_inert() {
                v.push((inst, e));
            }
        }
        body.push(v);
    }

    let mut facts: Vec<CopyFacts> = copies.iter().map(|c| c.facts.clone()).collect();
    if callers {
        facts.push(CopyFacts::callers());
    }
    let n = facts.len();
    let callers_index = callers.then_some(n - 1);
    let mut an = Analysis {
        eb,
        fa,
        facts,
        full_memo: FastMap::default(),
        narrow_memo: FastMap::default(),
        max_queries,
        coarse,
    };
    let mut out: Vec<BitSet> = vec![BitSet::new(n); rpo.len()];
    // Block 0 of the reverse post-order is the entry: the callers' copies
    // are pending there.
    let input = |out: &Vec<BitSet>, b: usize| {
        let mut s = BitSet::new(n);
        for &p in &preds[b] {
            s.union_with(&out[p]);
        }
        if let (0, Some(c)) = (b, callers_index) {
            s.insert(c);
        }
        s
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..rpo.len() {
            let mut state = input(&out, b);
            for (inst, e) in &body[b] {
                an.transfer(*inst, e, &mut state)?;
            }
            if state != out[b] {
                out[b] = state;
                changed = true;
            }
        }
    }

    // Ready ranges (must-analysis) at block entries, then the final walk
    // that records the syncs; both use `walk_block`.
    let mut ready_out: Vec<Option<Ready>> = vec![None; rpo.len()];
    let ready_in = |ready_out: &Vec<Option<Ready>>, b: usize| -> Ready {
        let mut it = preds[b].iter().filter_map(|&p| ready_out[p].as_ref());
        match it.next() {
            None => Ready::default(),
            Some(first) => it.fold(first.clone(), |acc, r| acc.meet(r)),
        }
    };
    let mut walker = Walker { an: &mut an, cx: eb.cx };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..rpo.len() {
            let state = input(&out, b);
            let ready = ready_in(&ready_out, b);
            let r = walker.walk_block(rpo[b], &body[b], state, ready, None)?;
            if ready_out[b].as_ref() != Some(&r) {
                ready_out[b] = Some(r);
                changed = true;
            }
        }
    }
    // The callers' copies are synced whole with csync_all.
    let mut multi_instance = vec![false; n];
    if let Some(c) = callers_index {
        multi_instance[c] = true;
    }
    let mut points = Vec::new();
    for b in 0..rpo.len() {
        let state = input(&out, b);
        if state.is_empty() && body[b].iter().all(|(_, e)| e.submits.is_none()) {
            continue;
        }
        let in_loop = fa.loop_depth(rpo[b]) > 0;
        let ready = ready_in(&ready_out, b);
        let mut rec = Recording { points: &mut points, multi_instance: &mut multi_instance, in_loop };
        walker.walk_block(rpo[b], &body[b], state, ready, Some(&mut rec))?;
    }
    // Loops whose increasing-pointer guards an unguarded copy may drop: no
    // copy submitted inside (neither a rewritten one nor the program's own).
    let submissions: Vec<LLVMBasicBlockRef> = copies
        .iter()
        .zip(&reachable)
        .filter(|&(_, &r)| r)
        .map(|(c, _)| ir::parent_block(c.call.call))
        .chain(user_submissions.iter().map(|&i| ir::parent_block(i)))
        .collect();
    let mut versionable = Vec::new();
    for n in points.iter().flat_map(|p| &p.narrow) {
        let (Some(entry), SyncRange::Bytes { .. }) = (n.monotonic, n.range) else { continue };
        if !versionable.contains(&entry.header) && submissions.iter().all(|&b| !fa.loop_contains(entry.header, b)) {
            versionable.push(entry.header);
        }
    }
    // Innermost first: versioning an outer loop copies its inner loops.
    versionable.sort_by_key(|&h| std::cmp::Reverse(fa.loop_depth(h)));
    Ok(Plan { points, multi_instance, reachable, user_submissions, callers: callers_index, versionable })
}

/// Why a copy stays synchronous under the cost model (`-copiergen-min-overlap`):
/// its whole-copy sync follows it on every path with too little
/// independent work in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuickSync {
    /// Most instructions of work on any path from the copy to a whole-copy
    /// sync of it (the longest such path; fewer than the limit).
    pub work: u64,
    /// Index in [`Plan::points`] of the sync that path ends at.
    pub point: usize,
    /// How many distinct whole-copy sync points the paths reach.
    pub points: usize,
}

/// Work of one instruction for the cost model, in instructions; `None`:
/// unknown or unbounded work (a call that is not a cheap intrinsic,
/// inline asm, a memory intrinsic of variable length).
fn work_of(inst: LLVMValueRef) -> Option<u64> {
    match ir::opcode(inst) {
        LLVMOpcode::LLVMPHI => Some(0),
        LLVMOpcode::LLVMBr => Some(u64::from(ir::num_successors(inst) > 1)),
        LLVMOpcode::LLVMCall if ir::is_debug_or_marker(inst) => Some(0),
        LLVMOpcode::LLVMCall => {
            let callee = ir::called_function(inst)?;
            let name = ir::name(callee);
            if !name.starts_with("llvm.") {
                // A function call: its work is unknown (a library routine
                // may loop, a module function is not inspected).
                return None;
            }
            if name.starts_with("llvm.mem") {
                // llvm.memcpy/memmove/memset(.inline): (dst, src|val, len, ...);
                // about one instruction per 64 bytes (AVX2, two vectors).
                let len = ir::const_int(ir::arg(inst, 2))?;
                return Some(1 + len / 64);
            }
            Some(1)
        }
        LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => None,
        _ => Some(1),
    }
}

/// The cost model: whether copy `c` is waited for whole so soon after it
/// on every path that nothing meaningful would overlap it, so it should
/// stay a synchronous `memcpy` (the submission would only add its cost).
///
/// Walks every CFG path from the instruction after the copy to the first
/// whole-copy sync of `c` in `plan` (a `csync` of the copy or `csync_all`,
/// e.g. before `ret` when the destination escapes, before a call that may
/// read it, before `free`). A path counts its instructions (PHIs, debug
/// and lifetime markers and unconditional branches are free; a constant-
/// length memory intrinsic counts one per 64 bytes). Unknown work ends the
/// walk with "enough overlap": a call to a function (the callee's work is
/// not known), inline asm, a variable-length memory intrinsic, an `invoke`,
/// a CFG cycle without a sync of `c` (a loop; its trip count is unknown),
/// or more than 1024 blocks on one path. A narrow sync ends a path only
/// when it covers the whole destination or source ([`covers_whole`]: a
/// `write(fd, dst, n)` right after the copy); others wait for part of the
/// copy, and the rest still overlaps.
///
/// Returns `Some` when every path reaches such a sync after fewer than
/// `limit` instructions of work (paths that end without one, at
/// `unreachable`, do not count; at least one path must reach one). `None`:
/// enough overlap on some path, `limit` 0, or the copy is unreachable.
pub fn work_before_sync(copies: &[PendingCopy], plan: &Plan, c: usize, limit: u64) -> Option<QuickSync> {
    if limit == 0 || !plan.reachable[c] {
        return None;
    }
    let call = &copies[c].call;
    let syncs: HashMap<LLVMValueRef, usize> = plan
        .points
        .iter()
        .enumerate()
        .filter(|(_, p)| p.full.iter().any(|&(k, _)| k == c) || p.narrow.iter().any(|n| covers_whole(call, n.range)))
        .map(|(i, p)| (p.before, i))
        .collect();
    let mut walk = SyncWalk { syncs: &syncs, limit, memo: HashMap::new(), on_path: HashSet::new(), reached: HashSet::new() };
    let copy = copies[c].call.call;
    let start = ir::next_instruction(copy)?;
    // Coming back to the copy's block is going around a loop.
    walk.on_path.insert(ir::parent_block(copy));
    match walk.from(start, 0)? {
        PathWork::Sync(work, point) => Some(QuickSync { work, point, points: walk.reached.len() }),
        PathWork::NoSync => None,
    }
}

/// Whether a narrow sync waits for the whole destination or the whole
/// source of `call` (e.g. `write(fd, buf, n)` or `memcmp(buf, p, n)` right
/// after `memcpy(buf, src, n)`): the same base and length, or a constant
/// range from the base over at least the constant length. It then waits for
/// the whole copy, like a whole-copy sync.
fn covers_whole(call: &CopyCall, range: SyncRange) -> bool {
    match range {
        SyncRange::Dynamic { ptr, len } => (ptr == call.dst || ptr == call.src) && len == call.len,
        SyncRange::Bytes { base, offset, len } => {
            (base == call.dst || base == call.src) && offset == 0 && call.const_len.is_some_and(|n| len >= n)
        }
    }
}

/// Longest-path work from a program point to a whole-copy sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PathWork {
    /// Every path that reaches a sync does so within this many
    /// instructions; the longest ends at this point index.
    Sync(u64, usize),
    /// No path reaches a sync (all end at `unreachable`).
    NoSync,
}

/// The state of [`work_before_sync`]'s depth-first walk. `memo` holds, per
/// block, the longest work from its start (`None`: at least the limit, or
/// unknown); `on_path` the blocks of the current path (reaching one again
/// is a cycle).
struct SyncWalk<'a> {
    syncs: &'a HashMap<LLVMValueRef, usize>,
    limit: u64,
    memo: HashMap<LLVMBasicBlockRef, Option<PathWork>>,
    on_path: HashSet<LLVMBasicBlockRef>,
    reached: HashSet<usize>,
}

impl SyncWalk<'_> {
    /// Most blocks on one path before the walk gives up (enough work).
    const MAX_DEPTH: usize = 1024;

    /// Longest work from `start` (inclusive) to the end of its path,
    /// `None` when it reaches the limit or is unknown.
    fn from(&mut self, start: LLVMValueRef, depth: usize) -> Option<PathWork> {
        let mut work = 0u64;
        let mut inst = Some(start);
        while let Some(i) = inst {
            if let Some(&point) = self.syncs.get(&i) {
                self.reached.insert(point);
                return Some(PathWork::Sync(work, point));
            }
            work = work.saturating_add(work_of(i)?);
            if work >= self.limit {
                return None;
            }
            if ir::is_terminator(i) {
                break;
            }
            inst = ir::next_instruction(i);
        }
        let block = ir::parent_block(start);
        let mut longest = PathWork::NoSync;
        for succ in ir::successors(block) {
            let rest = self.block(succ, depth + 1)?;
            if let PathWork::Sync(w, point) = rest {
                let total = work.saturating_add(w);
                if total >= self.limit {
                    return None;
                }
                if !matches!(longest, PathWork::Sync(l, _) if l >= total) {
                    longest = PathWork::Sync(total, point);
                }
            }
        }
        Some(longest)
    }

    /// Longest work from the start of `block` (memoised per block: it does
    /// not depend on the path that led there).
    fn block(&mut self, block: LLVMBasicBlockRef, depth: usize) -> Option<PathWork> {
        if let Some(&known) = self.memo.get(&block) {
            return known;
        }
        if depth > Self::MAX_DEPTH || self.on_path.contains(&block) {
            // A cycle without a sync: a loop of unknown trip count. (Every
            // block that reaches it gets None too, which is right: from
            // each one, the cycle is a path of unbounded work.)
            return None;
        }
        let first = ir::instructions(block).next()?;
        self.on_path.insert(block);
        let result = self.from(first, depth);
        self.on_path.remove(&block);
        self.memo.insert(block, result);
        result
    }
}

struct Recording<'a> {
    points: &'a mut Vec<SyncPoint>,
    multi_instance: &'a mut [bool],
    in_loop: bool,
}

struct Walker<'w, 'a, 'b, 'm> {
    an: &'w mut Analysis<'a, 'b, 'm>,
    cx: &'a crate::context::ModuleContext<'m>,
}

impl Walker<'_, '_, '_, '_> {
    /// Walks one block from its entry state: applies every instruction to
    /// the pending set, skips narrow syncs of ready ranges, groups the rest
    /// by base pointer (one sync over the hull at the first access of a
    /// group), and records the sync points when `rec` is given. Returns the
    /// ready ranges at the block's end.
    fn walk_block(
        &mut self,
        block: LLVMBasicBlockRef,
        body: &[(LLVMValueRef, Effect)],
        mut state: BitSet,
        mut ready: Ready,
        mut rec: Option<&mut Recording<'_>>,
    ) -> Result<Ready, OverBudget> {
        // A ready range is keyed by an SSA base pointer, whose value changes
        // only when its definition runs again: entering the defining block
        // (around a cycle) makes the facts about it stale.
        ready.0.retain(|&(base, _, _)| !(ir::is_instruction(base) && ir::parent_block(base) == block));
        // Open groups of this segment: base -> (point index, narrow index).
        let mut groups: Vec<(LLVMValueRef, usize, usize)> = Vec::new();
        // Bases of this segment's accesses: a later pointer at a constant
        // distance from one of them (ScalarEvolution; e.g. the copies of an
        // unrolled loop body, which need not share an SSA base) is keyed by
        // it, so it joins its group and its ready ranges.
        let mut bases: Vec<LLVMValueRef> = Vec::new();
        let in_loop = rec.as_deref().is_some_and(|r| r.in_loop);
        for (inst, e) in body {
            if let Some(c) = e.submits {
                if let Some(r) = rec.as_deref_mut() {
                    if state.contains(c) {
                        r.multi_instance[c] = true;
                    }
                }
            }
            if e.submits.is_some() || e.user_submission {
                ready = Ready::default();
                groups.clear();
                bases.clear();
            }
            let (full, narrow_hits) = self.an.transfer(*inst, e, &mut state)?;
            let mut new_narrow: Vec<NarrowSync> = Vec::new();
            let mut seen: Vec<usize> = Vec::new();
            for (i, reason, copy) in narrow_hits {
                if seen.contains(&i) {
                    continue;
                }
                seen.push(i);
                let access = e.accesses[i];
                let object = crate::context::underlying_object(access.ptr);
                let AccessSize::Const(size) = access.size else {
                    let AccessSize::Value(len) = access.size else { unreachable!("narrow accesses are syncable") };
                    let monotonic = in_loop.then(|| self.an.fa.increasing_in_loop(access.ptr, block)).flatten();
                    new_narrow.push(NarrowSync {
                        range: SyncRange::Dynamic { ptr: access.ptr, len },
                        covers: 1,
                        object,
                        monotonic,
                        reason,
                        copy,
                    });
                    continue;
                };
                let (mut base, mut off) = match self.cx.base_offset(access.ptr) {
                    (b, o) if ir::is_ptr_as0(b) => (b, o),
                    _ => (access.ptr, 0),
                };
                if !bases.contains(&base) {
                    let near = bases.iter().rev().take(MAX_NEAR_BASES).find_map(|&b| {
                        let d = self.an.fa.constant_distance(base, b)?;
                        Some((b, off.checked_add(d)?))
                    });
                    match near {
                        Some((b, o)) => (base, off) = (b, o),
                        None => bases.push(base),
                    }
                }
                let (lo, hi) = (off, off.saturating_add(size as i64));
                if ready.covers(base, lo, hi) {
                    continue;
                }
                // Join an open group on the same base if the hull stays small.
                let mut joined = false;
                if let Some(r) = rec.as_deref_mut() {
                    if let Some(&(_, p, k)) = groups.iter().find(|&&(b, _, _)| b == base) {
                        if let SyncRange::Bytes { offset, len, .. } = r.points[p].narrow[k].range {
                            let (glo, ghi) = (offset.min(lo), (offset + len as i64).max(hi));
                            if (ghi - glo) as u64 <= MAX_HULL {
                                let n = &mut r.points[p].narrow[k];
                                n.range = SyncRange::Bytes { base, offset: glo, len: (ghi - glo) as u64 };
                                n.covers += 1;
                                joined = true;
                            }
                        }
                    }
                }
                if !joined {
                    let monotonic = in_loop.then(|| self.an.fa.increasing_in_loop(base, block)).flatten();
                    new_narrow.push(NarrowSync {
                        range: SyncRange::Bytes { base, offset: lo, len: size },
                        covers: 1,
                        object,
                        monotonic,
                        reason,
                        copy,
                    });
                }
                ready.add(base, lo, hi);
            }
            if let Some(r) = rec.as_deref_mut() {
                if !full.is_empty() || !new_narrow.is_empty() {
                    let p = r.points.len();
                    for (k, n) in new_narrow.iter().enumerate() {
                        if let SyncRange::Bytes { base, .. } = n.range {
                            groups.retain(|&(b, _, _)| b != base);
                            groups.push((base, p, k));
                        }
                    }
                    r.points.push(SyncPoint {
                        before: *inst,
                        narrow: new_narrow,
                        full,
                        in_loop: r.in_loop,
                        callee: e.callee.clone(),
                    });
                }
            }
        }
        Ok(ready)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitset_tracks_members_across_words() {
        let mut s = BitSet::new(130);
        assert!(s.is_empty());
        for i in [0, 63, 64, 129] {
            s.insert(i);
        }
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        s.remove(63);
        assert!(!s.contains(63) && s.contains(64));
        let mut t = BitSet::new(130);
        t.insert(5);
        t.union_with(&s);
        assert_eq!(t.iter().collect::<Vec<_>>(), vec![0, 5, 64, 129]);
    }

    #[test]
    fn ready_ranges_cover_contained_ranges_and_meet_by_intersection() {
        let (p, q) = (0x1000 as LLVMValueRef, 0x2000 as LLVMValueRef);
        let mut a = Ready::default();
        a.add(p, 0, 16);
        a.add(q, 8, 12);
        assert!(a.covers(p, 4, 8) && a.covers(p, 0, 16));
        assert!(!a.covers(p, 8, 24) && !a.covers(q, 0, 4));
        let mut b = Ready::default();
        b.add(p, 4, 8);
        b.add(q, 0, 32);
        let m = a.meet(&b);
        assert!(m.covers(p, 4, 8) && m.covers(q, 8, 12));
        assert!(!m.covers(p, 0, 16) && !m.covers(q, 0, 32));
    }
}
