//! Telling apart the instances of one call in remarks.
//!
//! The optimizer duplicates calls (loop unswitching and peeling, jump
//! threading, inlining one callee twice into a function): one `memcpy` of
//! the source becomes several calls with the same debug location, each
//! with its own remark. When they all get the same remarks, one line says
//! it (identical remarks at one location are dropped). When they differ (one
//! instance stays `memcpy`, "at most 0 bytes", another is rewritten), each
//! remark names its instance: `llvm.memcpy of variable length (instance 2
//! of 2 at this location) rewritten to amemcpy`, numbered in the order of
//! the function's code. The copy remarks of a function are therefore
//! collected here and emitted together ([`CopyRemarks::flush`], before the
//! pass changes the IR, or when dropped).

use crate::context::{FunctionAnalyses, RemarkKind};
use crate::ir;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

/// One remark about a copy call, held until [`CopyRemarks::flush`].
struct Staged {
    kind: RemarkKind,
    name: &'static str,
    call: LLVMValueRef,
    loc: String,
    args: Vec<(&'static str, String)>,
    /// Where the instance label goes among `args`.
    label_at: usize,
}

/// A remark's kind, name and text: what makes two remarks the same.
type RemarkText = (u8, &'static str, String);

impl Staged {
    fn text(&self) -> RemarkText {
        (self.kind as u8, self.name, self.args.iter().map(|(_, v)| v.as_str()).collect())
    }
}

/// The copy remarks (`AsyncCopy`, the missed reasons, `ProfiledLong`) of
/// one function, emitted together so that differing remarks of one source
/// location name their instance (module docs). Flushes when dropped: drop
/// it before the copy calls it names are erased.
pub struct CopyRemarks<'a, 'm> {
    fa: &'a FunctionAnalyses<'m>,
    staged: RefCell<Vec<Staged>>,
}

impl<'a, 'm> CopyRemarks<'a, 'm> {
    /// Collects the copy remarks of `fa`'s function.
    pub fn new(fa: &'a FunctionAnalyses<'m>) -> Self {
        CopyRemarks { fa, staged: RefCell::new(Vec::new()) }
    }

    /// A remark named `name` at copy call `call`; the instance label, if
    /// one is needed, goes before `args[label_at]`. A call without a debug
    /// location is remarked at once (nothing to tell apart).
    pub fn add(&self, kind: RemarkKind, name: &'static str, call: LLVMValueRef, args: Vec<(&'static str, String)>, label_at: usize) {
        match ir::debug_loc(call) {
            Some(loc) => self.staged.borrow_mut().push(Staged { kind, name, call, loc, args, label_at }),
            None => self.fa.remark(kind, name, Some(call), &args),
        }
    }

    /// Emits the collected remarks, in the order they were added. Returns
    /// the instance numbers the remarks named: `(i, n)`, instance `i` of
    /// `n` of its location, for each call at a location whose instances
    /// got different remarks (so later remarks that name the copy can say
    /// which one).
    pub fn flush(&self) -> HashMap<LLVMValueRef, (usize, usize)> {
        let staged = std::mem::take(&mut *self.staged.borrow_mut());
        if staged.is_empty() {
            return HashMap::new();
        }
        let (labels, numbers) = instance_labels(self.fa.function(), &staged);
        for (i, mut s) in staged.into_iter().enumerate() {
            if let Some(label) = labels.get(&i) {
                let at = s.label_at.min(s.args.len());
                s.args.splice(at..at, [("String", " (".to_owned()), ("Instance", label.clone()), ("String", " at this location)".to_owned())]);
            }
            self.fa.remark(s.kind, s.name, Some(s.call), &s.args);
        }
        numbers
    }
}

impl Drop for CopyRemarks<'_, '_> {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// Labels and numbers ([`instance_labels`]).
type Instances = (HashMap<usize, String>, HashMap<LLVMValueRef, (usize, usize)>);

/// The label of each staged remark (by index) whose location holds
/// several calls that got different remarks (`instance 2 of 2`,
/// `instances 1 and 3 of 4`, numbered in code order), and the number of
/// each of those calls.
fn instance_labels(function: LLVMValueRef, staged: &[Staged]) -> Instances {
    // Per location, per call: the set of its remarks.
    let mut by_loc: HashMap<&str, HashMap<LLVMValueRef, BTreeSet<RemarkText>>> = HashMap::new();
    for s in staged {
        by_loc.entry(s.loc.as_str()).or_default().entry(s.call).or_default().insert(s.text());
    }
    by_loc.retain(|_, calls| {
        let mut sets = calls.values();
        let first = sets.next();
        calls.len() > 1 && sets.any(|set| Some(set) != first)
    });
    let (mut labels, mut numbers) = (HashMap::new(), HashMap::new());
    if by_loc.is_empty() {
        return (labels, numbers);
    }
    let position: HashMap<LLVMValueRef, usize> =
        ir::blocks(function).flat_map(ir::instructions).enumerate().map(|(i, inst)| (inst, i)).collect();
    for (loc, calls) in &by_loc {
        let mut order: Vec<LLVMValueRef> = calls.keys().copied().collect();
        order.sort_by_key(|c| position.get(c).copied().unwrap_or(usize::MAX));
        let number: HashMap<LLVMValueRef, usize> = order.iter().enumerate().map(|(i, &c)| (c, i + 1)).collect();
        numbers.extend(number.iter().map(|(&c, &i)| (c, (i, order.len()))));
        for (i, s) in staged.iter().enumerate().filter(|(_, s)| s.loc == *loc) {
            let text = s.text();
            let mut same: Vec<usize> = calls.iter().filter(|(_, set)| set.contains(&text)).map(|(c, _)| number[c]).collect();
            same.sort_unstable();
            labels.insert(i, label(&same, order.len()));
        }
    }
    (labels, numbers)
}

/// `instance 2 of 3`, `instances 1 and 3 of 3`, `instances 1, 2 and 4 of 5`.
fn label(instances: &[usize], of: usize) -> String {
    match instances {
        [one] => format!("instance {one} of {of}"),
        [rest @ .., last] => {
            let rest: Vec<String> = rest.iter().map(usize::to_string).collect();
            format!("instances {} and {last} of {of}", rest.join(", "))
        }
        [] => format!("one of {of} instances"),
    }
}

#[cfg(test)]
mod tests {
    use super::label;

    #[test]
    fn labels_name_instances_in_order() {
        assert_eq!(label(&[2], 2), "instance 2 of 2");
        assert_eq!(label(&[1, 3], 4), "instances 1 and 3 of 4");
        assert_eq!(label(&[1, 2, 4], 5), "instances 1, 2 and 4 of 5");
    }
}
