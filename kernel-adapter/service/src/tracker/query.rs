//! Read-only query for absorption across the syscall boundary (issue 10,
//! DESIGN.md "copy absorption"): where the bytes a program would see in a
//! range after `csync` can be read *now*, without waiting for the copies
//! that still write it.
//!
//! # Rule (layered absorption, applied to the kernel's read)
//! A byte whose last writer `W` has finished its segment is read in place.
//! A byte of a pending segment of `W` is read from `W`'s *effective*
//! source (its own source, or the source it absorbed from at ingest,
//! [`effective_sources`]), resolved again as of `W`'s ingest: a writer of
//! that source ingested before `W` and still pending is followed the same
//! way (a chain `A -> B`, `B -> C`, read of `C`, ends at `A`'s source); a
//! writer ingested after `W` means the source will change under the read,
//! so the byte must be waited for ([`ReadFrom::Wait`]). So must bytes of a
//! copy with a completion handler (the handler may free its source as soon
//! as the copy completes), of an overlapping move, of a copy that faulted,
//! and chains deeper than [`MAX_DEPTH`]. Legal because the copy contract
//! forbids writing or freeing a source until a `csync` covers it.

use super::absorb::effective_sources;
use super::edges::bytes_done;
use super::range_map::Acc;
use super::Tracker;
use crate::clients::entry;
use crate::desc::FAULTED;
use crate::task::FLAG_OVERLAP;
use core::sync::atomic::Ordering;

/// Most copies a chain is followed through before its bytes are waited for.
pub const MAX_DEPTH: u32 = 8;

/// Where a piece of the queried range can be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadFrom {
    /// In place: no pending copy writes it.
    Here,
    /// From this address (a pending copy's effective source), same length.
    Source(usize),
    /// Only after waiting for the copies that write it.
    Wait,
}

/// A piece of a queried range: its address, length (bytes) and where it
/// can be read.
pub type ReadPiece = (usize, usize, ReadFrom);

/// Append `p` to `out`, merging it into the last piece when it continues it.
fn push(out: &mut Vec<ReadPiece>, p: ReadPiece) {
    if p.1 == 0 {
        return;
    }
    if let Some(last) = out.last_mut() {
        let continues = last.0 + last.1 == p.0
            && match (last.2, p.2) {
                (ReadFrom::Here, ReadFrom::Here) | (ReadFrom::Wait, ReadFrom::Wait) => true,
                (ReadFrom::Source(a), ReadFrom::Source(b)) => a + last.1 == b,
                _ => false,
            };
        if continues {
            last.1 += p.1;
            return;
        }
    }
    out.push(p);
}

impl Tracker {
    /// Split `[lo, hi)` into pieces, in address order, each with where its
    /// current bytes (as a `csync` would leave them) can be read now (see
    /// the module docs). Appends to `out`. Call with every published task
    /// ingested (`ingest_all`), under the tracker lock.
    pub fn read_sources(&self, lo: usize, hi: usize, out: &mut Vec<ReadPiece>) {
        if lo < hi {
            self.resolve(lo, hi, lo, None, 0, out);
        }
    }

    /// Bytes `[lo, hi)`, standing for the queried bytes from `top`; read
    /// as a copy ingested with sequence number `as_of` reads them (`None`:
    /// as they are now), through `depth` copies so far.
    fn resolve(&self, lo: usize, hi: usize, top: usize, as_of: Option<u64>, depth: u32, out: &mut Vec<ReadPiece>) {
        let here = |a: usize| if depth == 0 { ReadFrom::Here } else { ReadFrom::Source(a) };
        let mut cur = lo;
        self.map.visit(lo, hi, |a, b, w, _| {
            push(out, (top + (cur - lo), a - cur, here(cur)));
            match w {
                None => push(out, (top + (a - lo), b - a, here(a))),
                Some(w) => self.resolve_written(a, b, top + (a - lo), w, as_of, depth, out),
            }
            cur = b;
        });
        push(out, (top + (cur - lo), hi - cur, here(cur)));
    }

    /// Bytes `[a, b)` (the queried bytes from `top`) whose last writer is
    /// `w` (accesses shifted to `a`).
    #[allow(clippy::too_many_arguments)]
    fn resolve_written(&self, a: usize, b: usize, top: usize, w: Acc, as_of: Option<u64>, depth: u32, out: &mut Vec<ReadPiece>) {
        let here = |x: usize| if depth == 0 { ReadFrom::Here } else { ReadFrom::Source(x) };
        if as_of.is_some_and(|s| w.seq > s) {
            // written after the reader was ingested: the bytes it reads
            // are not the ones there now, nor stable
            push(out, (top, b - a, ReadFrom::Wait));
            return;
        }
        let e = entry(w.t);
        if e.desc.pos() != w.t.pos {
            push(out, (top, b - a, here(a)));
            return;
        }
        let refuse = depth >= MAX_DEPTH
            || e.flags.load(Ordering::Relaxed) & FLAG_OVERLAP != 0
            || e.handler.load(Ordering::Relaxed) != 0
            || e.desc.flags() & FAULTED != 0;
        let shift = e.desc.seg_shift();
        let mut x = a;
        while x < b {
            // one segment of the writer at a time
            let off = w.off + (x - a);
            let y = if shift >= 63 { b } else { b.min(x + (((off >> shift) + 1) << shift) - off) };
            let t = top + (x - a);
            if bytes_done(w.t, off, y - x) {
                push(out, (t, y - x, here(x)));
            } else if refuse {
                push(out, (t, y - x, ReadFrom::Wait));
            } else {
                // SAFETY: `w` is in the index, so ingested and not retired:
                // its ext was written at ingest under the tracker lock,
                // which the caller holds, and stays until the slot is
                // reused after retirement.
                let ext = unsafe { &*e.ext.get() };
                for (o, l, src, _) in effective_sources(e.src(), &ext.redirects, off, y - x) {
                    self.resolve(src, src + l, t + o, Some(w.seq), depth + 1, out);
                }
            }
            x = y;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_merge_only_when_they_continue() {
        let mut v = Vec::new();
        push(&mut v, (100, 10, ReadFrom::Here));
        push(&mut v, (110, 5, ReadFrom::Here));
        push(&mut v, (115, 5, ReadFrom::Source(900)));
        push(&mut v, (120, 5, ReadFrom::Source(905)));
        push(&mut v, (125, 5, ReadFrom::Source(800)));
        push(&mut v, (130, 0, ReadFrom::Wait));
        push(&mut v, (130, 2, ReadFrom::Wait));
        assert_eq!(v, vec![(100, 15, ReadFrom::Here), (115, 10, ReadFrom::Source(900)), (125, 5, ReadFrom::Source(800)), (130, 2, ReadFrom::Wait)]);
    }
}
