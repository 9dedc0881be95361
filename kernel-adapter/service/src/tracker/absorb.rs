//! Copy absorption (article §"利用全局视图的拷贝吸收机制"; DESIGN.md "copy
//! absorption"): at ingest a task reads a pending writer's source instead
//! of waiting for it; at execution ([`exec_bytes`]) the redirects are
//! applied, and a fault of a redirected read is the other copy's.
//!
//! # Absorption (layered, per piece)
//! At ingest of `B`, for each piece of `B`'s source whose last writer `A` is
//! still pending, `B` reads `A`'s *effective* source for that piece instead
//! (`A`'s source, or what `A` itself absorbed from — the newest correct
//! source), provided that source has no pending writer and does not overlap
//! `B`'s destination. `B` then has no edge on `A` for the piece and is
//! registered as a reader of that source, so a later write to it waits for
//! `B`. It also stays a reader of the piece of its own source, exactly as
//! without absorption: in the program's view `B` reads `A`'s destination,
//! so a csync there waits for `B` — a program that csyncs `A`'s destination
//! may then write or free `A`'s source, which `B` really reads. Pieces whose
//! writer already completed are read normally.
//!
//! Absorption keeps a task's reads one-to-one: a piece is absorbed only if
//! its effective source overlaps neither the task's own source range nor a
//! source the task already absorbed from. Without that rule, a task reading
//! bytes that several pending copies wrote from the same (or overlapping)
//! source — fan-in, e.g. a buffer assembled from shifted copies of one
//! source — would read that source many times, and each layer of a copy
//! chain multiplies the repeats: reader lists grew to hundreds of entries of
//! the same few tasks and retire went quadratic (30-50 s stalls). Refused
//! pieces fall back to a dependency edge, which is always correct.
//! Adjacent redirects that continue each other are coalesced.
//!
//! # Absorption and faults
//! A redirect reads another copy's source, so a bad pointer there is that
//! copy's fault, not the absorbing copy's. `B` reading `A`'s destination
//! must behave like `memcpy(B.dst, A.dst, n)` run after `A`'s copy, faulted
//! or not (never fault a second time on `A`'s source). Each [`Redirect`]
//! names `A` (`from`) and the copy whose source it reads (`owner`: `A`, or
//! the copy `A` absorbed the piece from). At execution ([`exec_bytes`]):
//! * owner clean: read the redirected source with the recoverable copy;
//! * owner faulted, not finished: wait for `A`'s bytes (the waiter
//!   executing `A` delivers its fault once, as `memcpy` would), then as
//!   below;
//! * owner failed, or the redirected read faulted (the owner had not run
//!   yet, or faulted after `B`'s redirect was computed): read `B`'s own
//!   source, `A`'s destination as `A` left it, once `A` finished those bytes
//!   (`B` waits for `A`, so `A`'s own execution faults first).
//!
//! A failed copy ([`Tracker::note_failed`]) is remembered after its slot is
//! reused. The copies that absorbed from it are already readers of the
//! pieces of their own source they now read (see above), so a write there
//! ingested later waits for them. Limits: a piece `B` copied before `A`
//! faulted keeps the bytes of `A`'s source (as if that part of `A` had
//! completed first); a write into `A`'s destination ingested before `A`
//! failed is ordered after `A` only, not after `B`.
use super::edges::{bytes_done, overlaps, seg_range};
use super::Tracker;
use super::range_map::Acc;
use crate::clients::entry;
use crate::desc::FAULTED;
use crate::stats::COUNTERS;
use crate::sys::FutexMutex;
use crate::task::{Edge, Entry, Redirect, TaskExt, TaskRef, FLAG_OVERLAP};
use core::sync::atomic::{AtomicUsize, Ordering};
use std::collections::BTreeMap;

impl Tracker {
    /// Source piece `[x, x + len)` (task offset `t_off`) of the task being
    /// ingested has the pending writer `w`: read `w`'s effective source
    /// instead where it is clean, else depend on `w`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn absorb_or_depend(
        &self,
        ext: &mut TaskExt,
        (d, s, n): (usize, usize, usize),
        flags: u32,
        absorb: bool,
        x: usize,
        len: usize,
        t_off: usize,
        w: Acc,
        reads: &mut Vec<(usize, usize, usize)>,
        absorbed: &mut BTreeMap<usize, usize>,
    ) {
        let we = entry(w.t);
        // Never from a copy with a completion handler: the handler runs as
        // soon as that copy completes and may free or reuse its source
        // ("e.g. to free the source", `amemcpy_handler`), while an
        // absorbing copy would still read it. (Absorbed pieces only ever
        // name handler-less owners, so a chain through redirects is safe.)
        let can_absorb = absorb
            && flags & FLAG_OVERLAP == 0
            && we.flags.load(Ordering::Relaxed) & FLAG_OVERLAP == 0
            && we.handler.load(Ordering::Relaxed) == 0
            && we.desc.flags() & FAULTED == 0;
        if !can_absorb {
            ext.edges.push(Edge { t: w.t, t_off, e_off: w.off, len });
            reads.push((x, len, t_off));
            return;
        }
        // SAFETY: w is ingested (it is in the map) and the caller holds the lock.
        let wext = unsafe { &*we.ext.get() };
        for (o, l, addr, via) in effective_sources(we.src(), &wext.redirects, w.off, len) {
            let owner = via.map_or(w.t, |r| r.owner);
            // one read per address (see the module docs): not our own
            // source, not a source already absorbed from
            let fresh = !overlaps(addr, l, s, n)
                && absorbed.range(..addr + l).next_back().is_none_or(|(_, &e)| e <= addr);
            let clean = fresh
                && !self.map.has_writer(addr, addr + l)
                && !overlaps(addr, l, d, n)
                && !owner_faulted(owner);
            if clean {
                absorbed.insert(addr, addr + l);
                ext.redirects.push(Redirect { off: t_off + o, len: l, src: addr, from: w.t, from_off: w.off + o, owner });
                COUNTERS.absorbed_bytes.fetch_add(l as u64, Ordering::Relaxed);
                reads.push((addr, l, t_off + o));
                // still a reader of its own source piece, as without
                // absorption (module docs)
                reads.push((x + o, l, t_off + o));
            } else {
                ext.edges.push(Edge { t: w.t, t_off: t_off + o, e_off: w.off + o, len: l });
                reads.push((x + o, l, t_off + o));
            }
        }
    }

    /// The copy `t` (ingested, not retired) finished with a fault
    /// ([`FAILED`](crate::desc::FAILED); called before its segments are
    /// completed): remember it for `exec_bytes` after its slot is reused
    /// (module docs, "Absorption and faults").
    pub fn note_failed(&mut self, t: TaskRef) {
        if entry(t).desc.pos() != t.pos {
            return;
        }
        // a copy that may hold a redirect owned by a failed one was ingested
        // before that failure: keep the entries newer than the oldest
        // pending copy
        let oldest = self.map.min_seq();
        let mut f = FAILED_TASKS.lock();
        f.retain(|&(_, seq)| oldest.is_some_and(|o| o < seq));
        f.push((t, self.seq));
        FAILED_ANY.store(f.len(), Ordering::Release);
    }
}

/// Split task bytes `[off, off + len)` of a task with source `src` and
/// absorption `redirects` into `(piece offset, piece len, source address,
/// redirect)`: `redirect` is the one the piece lies in, `None` for pieces
/// read from `src`.
pub fn effective_sources(src: usize, redirects: &[Redirect], off: usize, len: usize) -> Vec<(usize, usize, usize, Option<&Redirect>)> {
    let mut v = Vec::new();
    let end = off + len;
    let mut x = off;
    for r in redirects {
        if r.off + r.len <= x {
            continue;
        }
        if r.off >= end {
            break;
        }
        if r.off > x {
            v.push((x - off, r.off - x, src + x, None));
            x = r.off;
        }
        let e = (r.off + r.len).min(end);
        v.push((x - off, e - x, r.src + (x - r.off), Some(r)));
        x = e;
    }
    if x < end {
        v.push((x - off, end - x, src + x, None));
    }
    v
}

/// Merge redirects (sorted by offset) that continue each other in the task,
/// the source and the copy they come from.
pub(crate) fn coalesce_redirects(v: &mut Vec<Redirect>) {
    v.dedup_by(|next, prev| {
        if prev.off + prev.len == next.off
            && prev.src + prev.len == next.src
            && prev.from == next.from
            && prev.from_off + prev.len == next.from_off
            && prev.owner == next.owner
        {
            prev.len += next.len;
            true
        } else {
            false
        }
    });
}

/// Why [`exec_bytes`] stopped before copying every byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecStop {
    /// The recoverable copy faulted on the task's own source or destination
    /// (with `recoverable == false` the signal is delivered instead).
    Fault,
    /// A redirected piece must first wait for the copy it was absorbed from
    /// (see the module docs, "Absorption and faults"); its segments were
    /// pushed to `deps`. Bytes before the piece may have been written.
    Absorbed,
}

/// What became of a copy whose source a redirect reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnerState {
    /// Not faulted (pending or complete).
    Clean,
    /// Its copy faulted on an executor; a waiter has not finished it yet
    /// (it may still fail, or succeed after the program's handler fixed
    /// the fault).
    Faulted,
    /// Finished with a fault ([`FAILED`](crate::desc::FAILED)), also after
    /// its slot was reused.
    Failed,
}

fn owner_state(t: TaskRef) -> OwnerState {
    let d = &entry(t).desc;
    // flags before pos: a reset stores pos first, so flags of a newer task
    // come with a pos that no longer matches
    let f = d.flags();
    if d.pos() == t.pos {
        return if f & crate::desc::FAILED != 0 {
            OwnerState::Failed
        } else if f & FAULTED != 0 {
            OwnerState::Faulted
        } else {
            OwnerState::Clean
        };
    }
    if FAILED_ANY.load(Ordering::Acquire) != 0 && FAILED_TASKS.lock().iter().any(|&(x, _)| x == t) {
        OwnerState::Failed
    } else {
        OwnerState::Clean
    }
}

/// True when the copy `t` faulted (see [`OwnerState`]).
fn owner_faulted(t: TaskRef) -> bool {
    owner_state(t) != OwnerState::Clean
}

/// Copies that failed ([`FAILED`](crate::desc::FAILED)) with the tracker's ingest sequence number
/// at the failure: a copy ingested before it may hold redirects owned by
/// it. Pruned in [`Tracker::note_failed`] once every such copy retired.
static FAILED_TASKS: FutexMutex<Vec<(TaskRef, u64)>> = FutexMutex::new(Vec::new());

/// `FAILED_TASKS.len()`, read without the lock.
static FAILED_ANY: AtomicUsize = AtomicUsize::new(0);

/// Copy task bytes `[a, b)` of entry `e` (applying absorption redirects).
///
/// A redirected piece is read with the recoverable copy from the redirect's
/// source while its owner is clean (or faulted but then finished without
/// failing); if the owner failed or that read faults, it is read from the
/// task's own source instead once the copy it was absorbed from finished
/// it. Until then (and while a faulted owner is unfinished) it returns
/// `Err(ExecStop::Absorbed)` with that copy's segments pushed to `deps`.
///
/// # Safety
/// The caller owns the claim on the segments covering `[a, b)` and the task's
/// dependencies for them are done.
pub unsafe fn exec_bytes(
    e: &Entry,
    redirects: &[Redirect],
    a: usize,
    b: usize,
    recoverable: bool,
    deps: &mut Vec<(TaskRef, u32, u32)>,
) -> Result<(), ExecStop> {
    let (d, s) = (e.dst(), e.src());
    let overlap = e.flags.load(Ordering::Relaxed) & FLAG_OVERLAP != 0;
    if overlap {
        // single-segment memmove with overlapping ranges: a plain move
        // SAFETY: the task's ranges are valid per the submit contract.
        unsafe { crate::engine::move_bytes(d as *mut u8, s as *const u8, e.len()) };
        return Ok(());
    }
    let copy = |dst: usize, src: usize, l: usize| -> Result<(), ExecStop> {
        if l == 0 {
            return Ok(());
        }
        // SAFETY: inside the task's ranges (or an absorbed source of the same
        // length); ranges do not overlap (checked at submit and at absorption).
        unsafe {
            if recoverable {
                crate::engine::copy_recoverable_in(dst as *mut u8, src as *const u8, l, e.len()).map_err(|_| ExecStop::Fault)
            } else {
                crate::engine::copy(dst as *mut u8, src as *const u8, l);
                Ok(())
            }
        }
    };
    if redirects.is_empty() {
        return copy(d + a, s + a, b - a);
    }
    // a fault reading another copy's source is that copy's to deliver
    crate::fault::install();
    let guarded = crate::fault::installed();
    for (o, l, src, via) in effective_sources(s, redirects, a, b - a) {
        let (to, own) = (d + a + o, s + a + o);
        let Some(r) = via else {
            copy(to, own, l)?;
            continue;
        };
        if !guarded {
            copy(to, src, l)?;
            continue;
        }
        let from_off = r.from_off + (a + o - r.off);
        // A faulted owner may still fail: wait for `from` before reading
        // its source again. A failed one left its destination as it was
        // (uncopied segments included): read that.
        let state = owner_state(r.owner);
        if state == OwnerState::Clean || (state == OwnerState::Faulted && bytes_done(r.from, from_off, l)) {
            // SAFETY: as `copy` above; a fault is recovered.
            if unsafe { crate::engine::copy_recoverable(to as *mut u8, src as *const u8, l) }.is_ok() {
                continue;
            }
        }
        // the redirected source is bad: read our own source (the bytes the
        // copy we absorbed from left there) once that copy finished them
        if !bytes_done(r.from, from_off, l) {
            let (lo, hi) = seg_range(from_off, l, entry(r.from).desc.seg_shift());
            deps.push((r.from, lo, hi));
            return Err(ExecStop::Absorbed);
        }
        copy(to, own, l)?;
    }
    Ok(())
}


#[cfg(test)]
mod tests {
    use super::*;

    fn tr(p: u64) -> TaskRef {
        TaskRef { client: 0, pos: p }
    }

    /// A redirect from copy `from` (offset `from_off`), source owned by `owner`.
    fn red(off: usize, len: usize, src: usize, from: u64, from_off: usize, owner: u64) -> Redirect {
        Redirect { off, len, src, from: tr(from), from_off, owner: tr(owner) }
    }

    #[test]
    fn redirects_coalesce() {
        let mut v = vec![
            red(0, 10, 100, 1, 0, 1),
            red(10, 5, 110, 1, 10, 1),
            red(15, 5, 500, 1, 15, 1),
            red(20, 5, 505, 2, 0, 2), // continues in the source, not in the copy
            red(25, 5, 510, 3, 0, 3),
            red(30, 5, 515, 3, 5, 4), // another owner
        ];
        coalesce_redirects(&mut v);
        assert_eq!(
            v,
            vec![red(0, 15, 100, 1, 0, 1), red(15, 5, 500, 1, 15, 1), red(20, 5, 505, 2, 0, 2), red(25, 5, 510, 3, 0, 3), red(30, 5, 515, 3, 5, 4)]
        );
    }

    #[test]
    fn effective_sources_layers() {
        let r = [red(10, 10, 5000, 1, 0, 1), red(30, 5, 7000, 2, 0, 3)];
        let got: Vec<_> = effective_sources(1000, &r, 5, 30).into_iter().map(|(o, l, a, v)| (o, l, a, v.map(|x| x.owner.pos))).collect();
        assert_eq!(got, vec![(0, 5, 1005, None), (5, 10, 5000, Some(1)), (15, 10, 1020, None), (25, 5, 7000, Some(3))]);
    }
}
