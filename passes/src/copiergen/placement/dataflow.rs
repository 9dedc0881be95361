//! The forward dataflow of pending copies: which instructions need a narrow
//! or whole-copy sync, and the ready ranges that let later accesses skip
//! theirs.

use super::bitset::BitSet;
use super::fast_map::FastMap;
use super::plan::{NarrowSync, PendingCopy, Plan, SyncPoint, SyncRange};
use super::ready::Ready;
use crate::context::FunctionAnalyses;
use crate::copiergen::effects::{AccessSize, CopyFacts, Effect, EffectBuilder, FullReason, NarrowReason};
use crate::ir;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMValueRef};
use std::collections::{HashMap, HashSet};

/// Largest hull (bytes) one grouped narrow sync may cover.
const MAX_HULL: u64 = 4096;

/// Most earlier bases of a block a pointer is compared with (constant
/// distance) before it becomes a base itself.
const MAX_NEAR_BASES: usize = 8;

/// The analysis ran out of its alias-query budget.
#[derive(Debug, Clone, Copy)]
pub struct OverBudget {
    /// Queries made.
    pub queries: u64,
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

/// What one instruction needs: whole-copy syncs (copy, reason), narrow
/// syncs (access index, reason, copy), and the copies a call of the
/// write/send family absorbs instead of syncing (they stay pending).
type Syncs = (Vec<(usize, FullReason)>, Vec<(usize, NarrowReason, usize)>, Vec<usize>);

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
            return Ok((full, narrow, Vec::new()));
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
        let absorbed = if e.absorb.is_some() { absorb(&mut full, &mut narrow, state) } else { Vec::new() };
        Ok((full, narrow, absorbed))
    }
}

/// A call of the write/send family (`Effect::absorb`): the syncs it needs
/// because it reads a buffer (or because alias analysis cannot tell what
/// the libc function touches) are left to its runtime entry point, which
/// reads pending bytes from the copies' sources; those copies stay pending
/// (`state`). Returns them; syncs for other reasons (a call that may not
/// return, ...) stay.
fn absorb(full: &mut Vec<(usize, FullReason)>, narrow: &mut Vec<(usize, NarrowReason, usize)>, state: &mut BitSet) -> Vec<usize> {
    let mut absorbed: Vec<usize> = narrow.drain(..).map(|(_, _, c)| c).collect();
    full.retain(|&(c, r)| {
        let by_entry = matches!(
            r,
            FullReason::CallReadsDst | FullReason::CallWritesDst | FullReason::CallWritesSrc | FullReason::CoarseAccess(_)
        );
        if by_entry {
            state.insert(c);
            absorbed.push(c);
        }
        !by_entry
    });
    absorbed.sort_unstable();
    absorbed.dedup();
    absorbed
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
            let (full, narrow_hits, absorbed) = self.an.transfer(*inst, e, &mut state)?;
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
                if !full.is_empty() || !new_narrow.is_empty() || !absorbed.is_empty() {
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
                        absorb: e.absorb.filter(|_| !absorbed.is_empty()).map(|f| (f, absorbed)),
                    });
                }
            }
        }
        Ok(ready)
    }
}
