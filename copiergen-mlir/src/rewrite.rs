//! The rewrite: every copy [`Placement`] makes asynchronous becomes
//! `%t = "copier.copy_async"(%src, %dst)` and its waits
//! `"copier.wait"(%t, %view)`; a remark at each copy names the decision.
//!
//! The `copier` dialect is not registered (MLIR's C API cannot define one):
//! its two operations and `!copier.token` are printed in MLIR's generic form
//! and parse under `--allow-unregistered-dialect`. Operations of unregistered
//! dialects have unknown memory effects, so every other MLIR pass stays
//! conservative around them. [`crate::lower`] turns them into calls.

use std::collections::HashMap;

use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Module, OperationRef, Type, Value, ValueLike};
use melior::Context;

use crate::copies::{as_copy, CopyOp};
use crate::effects::{remark, Analysis};
use crate::ir::{erase, walk};
use crate::memref::MemrefInfo;
use crate::placement::{Decision, Placement};

/// Name of the asynchronous copy operation: `(src, dst) -> !copier.token`.
pub const COPY_ASYNC: &str = "copier.copy_async";
/// Name of the wait operation: `(token, view) -> ()`; returns when every
/// byte of `view` that the token's copy reads or writes is done (and, as a
/// `csync`, when no earlier copy touches `view` any more). The range form
/// `(view) -> ()`, placed where no token reaches (after an `scf.if` whose
/// branches copied), waits for every earlier copy touching `view`.
pub const WAIT: &str = "copier.wait";
/// The token type.
pub const TOKEN: &str = "!copier.token";

/// Counts of one run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Copies made asynchronous.
    pub asynchronous: usize,
    /// Copies left synchronous.
    pub synchronous: usize,
    /// Waits inserted.
    pub waits: usize,
}

/// Rewrites the copies of `module` (whose context must allow unregistered
/// dialects); emits one remark per copy.
pub fn run(ctx: &Context, module: &Module, placement: Placement) -> Counts {
    let root = module.as_operation();
    let mut copies: Vec<CopyOp> = Vec::new();
    walk(root, &mut |op| {
        if let Some(c) = as_copy(op) {
            copies.push(c);
        }
        true
    });
    let aa = Analysis::new(root);
    let decisions: Vec<Decision> = copies.iter().map(|c| placement.decide(&aa, c)).collect();
    drop(aa);

    let mut counts = Counts::default();
    let token_ty = Type::parse(ctx, TOKEN).expect("the context allows unregistered dialects");
    // Copies are replaced after every decision is made, so each decision
    // saw the original IR; a wait placed before another copy goes before
    // that copy's replacement.
    let mut replacement: HashMap<usize, (OperationRef, Value)> = HashMap::new();
    for (c, d) in copies.iter().zip(&decisions) {
        let what = describe(c);
        match d {
            Decision::Sync(reason) => {
                counts.synchronous += 1;
                remark(c.op.location(), &format!("copiergen: {what} stays synchronous: {reason}"));
            }
            Decision::Async { why, .. } => {
                counts.asynchronous += 1;
                remark(c.op.location(), &format!("copiergen: {what} is asynchronous: {why}"));
                let op = OperationBuilder::new(COPY_ASYNC, c.op.location())
                    .add_operands(&[c.src, c.dst])
                    .add_results(&[token_ty])
                    .build()
                    .expect("copier.copy_async builds");
                let block = c.op.block().expect("a copy is in a block");
                let new = block.insert_operation_before(c.op, op);
                let token: Value = new.result(0).expect("one result").into();
                replacement.insert(c.op.to_raw().ptr as usize, (new, token));
            }
        }
    }
    // Range waits of copies in different branches meet after the scf.if: one each.
    let mut range_waits: Vec<(usize, usize)> = Vec::new();
    for (c, d) in copies.iter().zip(&decisions) {
        let Decision::Async { waits, .. } = d else { continue };
        let (_, token) = replacement[&(c.op.to_raw().ptr as usize)];
        for w in waits {
            let before = replacement.get(&(w.before.to_raw().ptr as usize)).map(|r| r.0).unwrap_or(w.before);
            if w.range {
                let key = (before.to_raw().ptr as usize, w.view.to_raw().ptr as usize);
                if range_waits.contains(&key) {
                    continue;
                }
                range_waits.push(key);
            }
            let operands: Vec<Value> = if w.range { vec![w.view] } else { vec![token, w.view] };
            let op = OperationBuilder::new(WAIT, before.location())
                .add_operands(&operands)
                .build()
                .expect("copier.wait builds");
            before.block().expect("in a block").insert_operation_before(before, op);
            counts.waits += 1;
        }
    }
    for c in copies.iter() {
        if replacement.contains_key(&(c.op.to_raw().ptr as usize)) {
            // SAFETY: the copy has no results; nothing refers to it any more
            // (waits were redirected to its replacement above).
            unsafe { erase(c.op) };
        }
    }
    counts
}

fn describe(c: &CopyOp) -> String {
    let bytes = MemrefInfo::of(c.src.r#type()).and_then(|m| m.static_bytes());
    match bytes {
        Some(n) => format!("{} of {n} bytes", c.form),
        None => format!("{} of a dynamic size", c.form),
    }
}
