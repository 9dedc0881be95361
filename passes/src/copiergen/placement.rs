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
use super::effects::{Access, AccessSize, CopyFacts, Effect, EffectBuilder, FullReason, NarrowReason};
use crate::context::FunctionAnalyses;
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
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

/// One narrow sync.
#[derive(Debug, Clone)]
pub struct NarrowSync {
    /// The access it covers.
    pub access: Access,
    /// Underlying object of the access pointer (key of its ready window).
    pub object: LLVMValueRef,
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
    /// Number of narrow syncs per underlying object.
    pub narrow_per_object: HashMap<LLVMValueRef, usize>,
}

impl Plan {
    /// Whether the narrow sync `n` at `point` uses a windowed guard (an
    /// inline check of a cached ready window, `csync_ready_end` on a miss)
    /// rather than a `csync` call: in loops, and where one object gets
    /// several narrow syncs (later ones then usually hit the window).
    pub fn windowed(&self, point: &SyncPoint, n: &NarrowSync, window_enabled: bool) -> bool {
        window_enabled && (point.in_loop || self.narrow_per_object.get(&n.object).copied().unwrap_or(0) > 1)
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
    copies: &'a [PendingCopy],
    full_memo: FastMap<(LLVMValueRef, usize), Option<FullReason>>,
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
        let r = self.eb.full_conflict(inst, e, &self.copies[c].facts);
        self.budget()?;
        self.full_memo.insert((inst, c), r);
        Ok(r)
    }

    fn narrow(&mut self, inst: LLVMValueRef, e: &Effect, i: usize, c: usize) -> Result<Option<NarrowReason>, OverBudget> {
        if let Some(&r) = self.narrow_memo.get(&(inst, i, c)) {
            return Ok(r);
        }
        let r = self.eb.narrow_conflict(e, i, &self.copies[c].facts);
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
                    narrow.push((i, why, c));
                    break;
                }
            }
        }
        Ok((full, narrow))
    }
}

/// Computes where the copies of `function` need syncs.
///
/// # Errors
/// [`OverBudget`] when the function needs more than `max_queries` alias
/// queries; nothing may then be rewritten.
pub fn plan(
    function: LLVMValueRef,
    fa: &FunctionAnalyses<'_>,
    eb: &EffectBuilder<'_, '_>,
    copies: &[PendingCopy],
    max_queries: u64,
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

    let mut an = Analysis { eb, fa, copies, full_memo: FastMap::default(), narrow_memo: FastMap::default(), max_queries };
    let n = copies.len();
    let mut out: Vec<BitSet> = vec![BitSet::new(n); rpo.len()];
    let input = |out: &Vec<BitSet>, preds: &Vec<usize>| {
        let mut s = BitSet::new(n);
        for &p in preds {
            s.union_with(&out[p]);
        }
        s
    };
    let mut changed = true;
    while changed {
        changed = false;
        for b in 0..rpo.len() {
            let mut state = input(&out, &preds[b]);
            for (inst, e) in &body[b] {
                an.transfer(*inst, e, &mut state)?;
            }
            if state != out[b] {
                out[b] = state;
                changed = true;
            }
        }
    }

    // Final walk at the fixed point: record the syncs.
    let mut multi_instance = vec![false; n];
    let mut points = Vec::new();
    for b in 0..rpo.len() {
        let mut state = input(&out, &preds[b]);
        if state.is_empty() && body[b].iter().all(|(_, e)| e.submits.is_none()) {
            continue;
        }
        let in_loop = fa.loop_depth(rpo[b]) > 0;
        // Narrow syncs already done in this block since the last submission.
        let mut synced: Vec<(LLVMValueRef, AccessSize)> = Vec::new();
        for (inst, e) in &body[b] {
            if let Some(c) = e.submits {
                if state.contains(c) {
                    multi_instance[c] = true;
                }
                synced.clear();
            }
            if e.user_submission {
                synced.clear();
            }
            let (full, narrow_hits) = an.transfer(*inst, e, &mut state)?;
            let mut narrow: Vec<NarrowSync> = Vec::new();
            for (i, reason, copy) in narrow_hits {
                let access = e.accesses[i];
                if narrow.iter().any(|n| n.access == access) || covered(&synced, &access) {
                    continue;
                }
                let object = crate::context::underlying_object(access.ptr);
                narrow.push(NarrowSync { access, object, reason, copy });
            }
            for n in &narrow {
                synced.push((n.access.ptr, n.access.size));
            }
            if !full.is_empty() || !narrow.is_empty() {
                points.push(SyncPoint { before: *inst, narrow, full, in_loop, callee: e.callee.clone() });
            }
        }
    }
    let mut narrow_per_object = HashMap::new();
    for n in points.iter().flat_map(|p| &p.narrow) {
        *narrow_per_object.entry(n.object).or_insert(0) += 1;
    }
    Ok(Plan { points, multi_instance, reachable, user_submissions, narrow_per_object })
}

/// Whether an earlier narrow sync in the block already covers `a`.
fn covered(synced: &[(LLVMValueRef, AccessSize)], a: &Access) -> bool {
    synced.iter().any(|&(p, s)| {
        p == a.ptr
            && match (s, a.size) {
                (AccessSize::Const(x), AccessSize::Const(y)) => y <= x,
                (AccessSize::Value(x), AccessSize::Value(y)) => x == y,
                _ => false,
            }
    })
}
