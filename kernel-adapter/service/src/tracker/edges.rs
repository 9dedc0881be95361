//! Dependency edges (DESIGN.md "dependency"): merging a task's edges, and
//! finding the first segment of a range whose dependencies are pending.

use crate::clients::entry;
use crate::task::{Edge, TaskRef};

pub(crate) fn merge_edges(edges: &mut Vec<Edge>) {
    if edges.len() < 2 {
        return;
    }
    edges.sort_by_key(|e| (e.t.client, e.t.pos, e.t_off));
    let mut out: Vec<Edge> = Vec::with_capacity(edges.len());
    for e in edges.drain(..) {
        if let Some(l) = out.last_mut() {
            if l.t == e.t && l.t_off + l.len == e.t_off && l.e_off + l.len == e.e_off {
                l.len += e.len;
                continue;
            }
            if *l == e {
                continue;
            }
        }
        out.push(e);
    }
    *edges = out;
}

/// For segment range `[lo, hi)` (segment shift `shift`) of a task with
/// `edges`, the first segment that has an unfinished dependency, and those
/// dependencies as `(task, seg lo, seg hi)` of the older task.
pub fn first_blocked(edges: &[Edge], shift: u32, len: usize, lo: u32, hi: u32, deps: &mut Vec<(TaskRef, u32, u32)>) -> Option<u32> {
    let seg_bytes = |k: u32| -> (usize, usize) {
        if shift >= 63 {
            (0, len)
        } else {
            let a = (k as usize) << shift;
            (a, (a + (1usize << shift)).min(len))
        }
    };
    for k in lo..hi {
        let (a, b) = seg_bytes(k);
        let mut blocked = false;
        for ed in edges {
            let x = a.max(ed.t_off);
            let y = b.min(ed.t_off + ed.len);
            if x >= y {
                continue;
            }
            let eoff = ed.e_off + (x - ed.t_off);
            let ee = entry(ed.t);
            if ee.desc.pos() != ed.t.pos {
                continue;
            }
            let (elo, ehi) = seg_range(eoff, y - x, ee.desc.seg_shift());
            if !ee.desc.is_done(ed.t.pos, elo, ehi) {
                blocked = true;
                deps.push((ed.t, elo, ehi));
            }
        }
        if blocked {
            return Some(k);
        }
    }
    None
}

/// Segment range `[lo, hi)` covering task bytes `[off, off + len)`.
#[inline]
pub fn seg_range(off: usize, len: usize, shift: u32) -> (u32, u32) {
    debug_assert!(len > 0);
    let lo = if shift >= 63 { 0 } else { off >> shift };
    let hi = if shift >= 63 { 1 } else { ((off + len - 1) >> shift) + 1 };
    (lo as u32, hi as u32)
}

/// True when task `t` has completed its bytes `[off, off + len)`.
pub fn bytes_done(t: TaskRef, off: usize, len: usize) -> bool {
    let e = entry(t);
    let d = &e.desc;
    if d.pos() != t.pos {
        return true;
    }
    let (lo, hi) = seg_range(off, len, d.seg_shift());
    d.is_done(t.pos, lo, hi)
}

/// Does `[a, a+n)` intersect `[b, b+m)`?
#[inline]
pub(crate) fn overlaps(a: usize, n: usize, b: usize, m: usize) -> bool {
    a < b + m && b < a + n
}
