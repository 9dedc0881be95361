//! Wait placement: for each copy, the first operation after it that may read
//! or write its destination, or write or free its source, gets a wait before
//! it; a counted loop (`scf.for`, `affine.for`) that touches the buffers
//! through a per-iteration view (a tile) gets a wait on that view inside its
//! body instead, and the full wait moves to the next conflict after the loop.
//!
//! Never missing on any path: the scan ends at the latest at the terminator
//! of the copy's block (a return, a yield, a branch), so every path out of
//! the block meets the full wait. The one exception continues it: the yield
//! of an `scf.if` branch, after which every path goes on after the `scf.if`;
//! the scan goes on there (waits on the range, without the token). Conflicts come from MLIR's memory
//! effect interfaces through alias analysis ([`Analysis`]); an operation
//! whose effects are unknown (a call, an unregistered op) or that takes a
//! buffer's address (`memref.extract_aligned_pointer_as_index`, casts out of
//! the memref type system, `llvm.*`) conflicts.

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, Value, ValueLike};

use crate::copies::CopyOp;
use crate::diag::line_col;
use crate::effects::{is_memory_effect_free, is_terminator, Analysis, Effects};
use crate::ir::{defined_outside, name, result_in_block, walk};
use crate::memref::MemrefInfo;
use crate::private::is_private;

/// One wait to insert.
#[derive(Clone, Copy, Debug)]
pub struct WaitAt<'c, 'a> {
    /// The wait goes right before this operation.
    pub before: OperationRef<'c, 'a>,
    /// The memref whose bytes must be complete (the copy's destination, or
    /// a view inside a loop body).
    pub view: Value<'c, 'a>,
    /// The wait is outside the region of the copy (after an `scf.if` it
    /// left), where its token does not reach: a wait on the range alone.
    pub range: bool,
}

/// What happens to one copy.
#[derive(Debug)]
pub enum Decision<'c, 'a> {
    /// The copy stays synchronous, for this reason.
    Sync(String),
    /// The copy becomes asynchronous with these waits (the last one is the
    /// full wait), explained by the message.
    Async {
        /// Waits in program order of their scan.
        waits: Vec<WaitAt<'c, 'a>>,
        /// Why they are where they are.
        why: String,
    },
}

/// Default of [`Placement::threshold`] (bytes): the cost model of the MLIR
/// pass. Its copies fill a buffer that the work after the wait reads; a copy
/// made on the service's core leaves that buffer in the other core's cache,
/// and below this size the overlap does not pay for that and the
/// submission. `bench/mlir/overlap.c` (copy, independent work of about four
/// times the copy, wait, read the destination; 2-core VM, 2026-12-01):
/// memcpy/amemcpy 0.87-0.89 at 32-128 KiB, 1.06-1.09 at 256 KiB-1 MiB.
/// Larger than libcopier's own threshold ([`copier_abi::DEFAULT_THRESHOLD`],
/// which has no consumer to account for).
pub const DEFAULT_THRESHOLD: u64 = 256 * 1024;

/// Options of the decision.
#[derive(Clone, Copy, Debug)]
pub struct Placement {
    /// Copies with a static size below this many bytes stay synchronous
    /// (and dense copies of a dynamic size below it run as `llvm.memcpy`,
    /// see [`crate::lower`]).
    pub threshold: u64,
}

/// Operations that turn a buffer into an address or leave the memref type
/// system: what they feed is not followed, so they conflict.
fn takes_address(op_name: &str) -> bool {
    op_name == "memref.extract_aligned_pointer_as_index"
        || op_name == "builtin.unrealized_conversion_cast"
        || op_name.starts_with("llvm.")
}

/// View operations whose result may reach outside the viewed memref.
fn reinterprets(op_name: &str) -> bool {
    op_name == "memref.reinterpret_cast" || op_name == "memref.view" || takes_address(op_name)
}

impl Placement {
    /// Decides `copy`.
    pub fn decide<'c, 'a>(&self, aa: &Analysis, copy: &CopyOp<'c, 'a>) -> Decision<'c, 'a> {
        if let Some(reason) = self.static_reason(copy) {
            return Decision::Sync(reason);
        }
        let mut waits = Vec::new();
        let mut work = false;
        let mut notes = Vec::new();
        let mut next = copy.op.next_in_block();
        let mut range = false;
        while let Some(op) = next {
            if is_terminator(op) {
                // Leaving an scf.if branch: the scan goes on after the scf.if
                // (every path out of it passes there), when the destination
                // is visible there.
                if let Some(parent) = op.parent_operation() {
                    if name(op) == "scf.yield" && name(parent) == "scf.if" && defined_outside(copy.dst, parent) {
                        notes.push(format!("leaves 'scf.if' at {}", line_col(parent.location())));
                        range = true;
                        next = parent.next_in_block();
                        continue;
                    }
                }
                waits.push(WaitAt { before: op, view: copy.dst, range });
                notes.push(format!("wait before '{}' at {} (end of the block)", name(op), line_col(op.location())));
                break;
            }
            if let Some(why) = conflict(aa, op, copy) {
                if let Some((tile_waits, per_tile)) = loop_plan(aa, op, copy, range) {
                    notes.push(format!(
                        "wait per iteration on {per_tile} inside '{}' at {}",
                        name(op),
                        line_col(op.location())
                    ));
                    waits.extend(tile_waits);
                    work = true;
                    next = op.next_in_block();
                    continue;
                }
                if !work {
                    return Decision::Sync(format!(
                        "nothing to overlap: the next operation, '{}' at {}, {why}",
                        name(op),
                        line_col(op.location())
                    ));
                }
                waits.push(WaitAt { before: op, view: copy.dst, range });
                notes.push(format!("wait before '{}' at {} ({why})", name(op), line_col(op.location())));
                break;
            }
            if op.region_count() > 0 || !is_memory_effect_free(op) {
                work = true;
            }
            next = op.next_in_block();
        }
        if next.is_none() {
            return Decision::Sync("its block has no terminator to wait before".into());
        }
        if !work {
            return Decision::Sync(format!(
                "nothing to overlap before the end of the block ('{}')",
                name(next.unwrap())
            ));
        }
        Decision::Async { waits, why: notes.join("; ") }
    }

    fn static_reason(&self, copy: &CopyOp) -> Option<String> {
        let (Some(s), Some(d)) = (MemrefInfo::of(copy.src.r#type()), MemrefInfo::of(copy.dst.r#type())) else {
            return Some("not a copy of ranked memrefs".into());
        };
        if s.element != d.element || s.rank != d.rank {
            return Some("source and destination differ in element type or rank".into());
        }
        let Some(_) = s.element_bytes else {
            return Some(format!("element type {} has no byte layout the lowering knows", s.element));
        };
        if s.memory_space || d.memory_space {
            return Some("a buffer is in a non-default memory space".into());
        }
        if s.statically_empty() || d.statically_empty() {
            return Some("zero bytes".into());
        }
        let known = match (s.static_bytes(), d.static_bytes()) {
            (Some(n), _) | (None, Some(n)) => Some(n),
            _ => None,
        };
        if let Some(n) = known {
            if n < self.threshold {
                return Some(format!("{n} bytes, below the threshold of {} bytes", self.threshold));
            }
        }
        None
    }
}

/// Why `op` must not run before the copy is complete, if it must not.
fn conflict(aa: &Analysis, op: OperationRef, copy: &CopyOp) -> Option<String> {
    let d = aa.effects_on(op, copy.dst);
    let s = aa.effects_on(op, copy.src);
    if d.any(Effects::UNKNOWN) || s.any(Effects::UNKNOWN) {
        if !(is_private(copy.dst) && is_private(copy.src)) {
            return Some("has unknown memory effects".into());
        }
        // Private buffers: only what the operations inside are handed counts.
        let mut why = None;
        walk(op, &mut |o| {
            // An op with regions is judged as a whole when its effects are
            // known, else by what it is handed, then by the ops inside.
            let d = aa.effects_on(o, copy.dst);
            let s = aa.effects_on(o, copy.src);
            if d.any(Effects::UNKNOWN) || s.any(Effects::UNKNOWN) {
                if o.operands().any(|v| is_memref(v) && aliases_copy(aa, v, copy)) {
                    why = Some(format!("'{}' with unknown memory effects is handed a buffer", name(o)));
                }
            } else {
                why = leaf_conflict(d, s);
            }
            why.is_none()
        });
        return why.or_else(|| takes_address_of(aa, op, copy));
    }
    leaf_conflict(d, s).or_else(|| takes_address_of(aa, op, copy))
}

/// The conflict named by known effects on the destination (`d`) and source (`s`).
fn leaf_conflict(d: Effects, s: Effects) -> Option<String> {
    if d.any(Effects::READ) {
        return Some("it reads the destination".into());
    }
    if d.any(Effects::WRITE) {
        return Some("it writes the destination".into());
    }
    if d.any(Effects::FREE) {
        return Some("it frees the destination".into());
    }
    if s.any(Effects::WRITE) {
        return Some("it writes the source".into());
    }
    if s.any(Effects::FREE) {
        return Some("it frees the source".into());
    }
    None
}

/// Whether `op` or an op inside it takes the address of a copy buffer.
fn takes_address_of(aa: &Analysis, op: OperationRef, copy: &CopyOp) -> Option<String> {
    let mut escape = None;
    walk(op, &mut |o| {
        let n = name(o);
        if takes_address(&n) && o.operands().any(|v| is_memref(v) && aliases_copy(aa, v, copy)) {
            escape = Some(format!("'{n}' takes the address of a buffer"));
            return false;
        }
        true
    });
    escape
}

fn is_memref(v: Value) -> bool {
    MemrefInfo::of(v.r#type()).is_some() || v.r#type().to_string().starts_with("memref<*")
}

fn aliases_copy(aa: &Analysis, v: Value, copy: &CopyOp) -> bool {
    aa.may_alias(v, copy.dst) || aa.may_alias(v, copy.src)
}

/// Per-iteration waits for a counted loop that conflicts with the copy:
/// before each conflicting operation of its body, a wait on every buffer
/// view it uses from outside itself that may alias a copy buffer. `None`
/// (one wait before the loop) unless some such view is computed in the body
/// (a tile), or when a conflicting operation has unknown effects or
/// reinterprets a buffer.
fn loop_plan<'c, 'a>(
    aa: &Analysis,
    loop_op: OperationRef<'c, 'a>,
    copy: &CopyOp<'c, 'a>,
    range: bool,
) -> Option<(Vec<WaitAt<'c, 'a>>, String)> {
    let n = name(loop_op);
    if n != "scf.for" && n != "affine.for" {
        return None;
    }
    let body = loop_op.region(0).ok()?.first_block()?;
    let mut waits = Vec::new();
    let mut per_tile = None;
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let Some(why) = conflict(aa, op, copy) else { continue };
        if why.contains("unknown") || why.contains("address") {
            return None;
        }
        let mut views: Vec<Value<'c, 'a>> = Vec::new();
        let mut bad = false;
        walk(op, &mut |o| {
            if reinterprets(&name(o)) {
                bad = true;
                return false;
            }
            for v in o.operands() {
                if is_memref(v)
                    && defined_outside(v, op)
                    && aliases_copy(aa, v, copy)
                    && !views.iter().any(|w| w.to_raw().ptr == v.to_raw().ptr)
                {
                    views.push(v);
                }
            }
            true
        });
        if bad || views.is_empty() {
            return None;
        }
        for v in views {
            MemrefInfo::of(v.r#type())?;
            if result_in_block(v, body) {
                per_tile.get_or_insert_with(|| {
                    let def = v.to_string();
                    let first = def.split(" = ").next().unwrap_or("").trim().to_owned();
                    format!("the view {first}")
                });
            }
            waits.push(WaitAt { before: op, view: v, range });
        }
    }
    Some((waits, per_tile?))
}
