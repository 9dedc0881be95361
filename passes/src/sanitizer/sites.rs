//! Where a check's report points: the source location each check call
//! carries (ASan's reports name the access's line the same way).

use crate::ir;
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMMetadataRef, LLVMValueRef};
use std::collections::HashMap;

/// The source location a check call carries: the report's frame #0 and
/// SUMMARY line come from it.
#[derive(Clone)]
pub(super) enum Site {
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

/// Resolves the debug location of each check call of one function (see
/// [`Site`]): the access's own location if it has a line; else the nearest
/// located instruction before it (in its block, then back through unique
/// predecessors); else, for a block entered from predecessors that end at
/// different lines, the line of the predecessor actually taken; else a
/// location on the function's own line (its `DISubprogram`), so a report
/// never lacks a line of the user's program.
pub(super) struct Sites {
    /// Predecessors of each block, one entry per CFG edge.
    preds: HashMap<LLVMBasicBlockRef, Vec<LLVMBasicBlockRef>>,
    /// The site of an access with no located instruction before it in its block.
    entry: HashMap<LLVMBasicBlockRef, Site>,
    /// Location on the function's line, or null without debug info.
    pub(super) fallback: LLVMMetadataRef,
}

impl Sites {
    /// The sites of `f`, as its CFG is now (before any check splits it).
    pub(super) fn new(f: LLVMValueRef) -> Sites {
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

    /// The site of a check before `inst` (may add a phi at the top of
    /// `inst`'s block, see [`Site::ByPredecessor`]).
    pub(super) fn site(&mut self, b: &ir::Builder, inst: LLVMValueRef) -> Site {
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

    fn entry_site(&self, b: &ir::Builder, bb: LLVMBasicBlockRef) -> Site {
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
                // bb is a live block with a terminator, entered from exactly
                // the edges in self.preds[bb]; the phi goes before its first
                // instruction and gets one incoming value per edge.
                let Some(first) = ir::instructions(bb).next() else { return Site::Fixed(self.fallback) };
                b.position_for_phi(first, std::ptr::null_mut());
                let i32 = b.int_type(32);
                let phi = b.phi(i32, c"copier_san.site");
                for &p in self.preds.get(&bb).map_or(&[][..], |v| &v[..]) {
                    let k = preds.iter().position(|&q| q == p).map_or(0, |j| index[j]);
                    ir::add_incoming(phi, &[(b.const_int(i32, k), p)]);
                }
                Site::ByPredecessor { phi, locs: distinct }
            }
        }
    }
}

impl Site {
    /// One location for a check that cannot branch on the predecessor.
    pub(super) fn first(&self) -> LLVMMetadataRef {
        match self {
            Site::Fixed(l) => *l,
            Site::ByPredecessor { locs, .. } => locs.first().copied().unwrap_or(std::ptr::null_mut()),
        }
    }
}

/// A debug location with a line (not null, not line 0).
pub(super) fn located(inst: LLVMValueRef) -> Option<LLVMMetadataRef> {
    // SAFETY: inst is a live instruction; a non-null debug location is a
    // DILocation.
    unsafe {
        let loc = di::LLVMInstructionGetDebugLoc(inst);
        (!loc.is_null() && di::LLVMDILocationGetLine(loc) != 0).then_some(loc)
    }
}

/// The located instruction nearest before `inst` in its block.
pub(super) fn located_before(inst: LLVMValueRef) -> Option<LLVMMetadataRef> {
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
