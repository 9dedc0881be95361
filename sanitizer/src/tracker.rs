//! The tracker: the set of pending copies and the shadow state machine.
//!
//! # Semantics (DESIGN.md "Semantics the whole system keeps")
//! The shadow is driven only by program events, never by whether the service
//! happened to finish a copy, so a report does not depend on timing:
//!
//! - **submit** `(dst, src, len)` (amemcpy, amemmove, lazy, handler and
//!   low-level submits, including copies the runtime runs inline): every byte
//!   of `[dst, dst+len)` becomes a *pending destination* (no read, no write)
//!   and every byte of `[src, src+len)` a *pending source* (no write, no
//!   free). A submit itself is never an error: a copy may read a pending
//!   destination or write a pending source or destination of an earlier copy,
//!   because the runtime orders dependent copies (RAW/WAR/WAW).
//! - **sync** `[a, a+n)` (`csync`, `csync_ready_end`; a thread's csync
//!   only for its own copies, [`Tracker::sync_thread`]): the runtime's contract is that csync returns when no
//!   earlier copy still writes or reads any byte of the range. So afterwards
//!   no byte of the range is pending, in either role, for any copy. In
//!   addition, a destination byte `dst+i` that is synced means that byte of
//!   the copy is complete, so the copy has read `src+i`: the source byte
//!   `src+i` of that copy stops being pending too (a copy's byte i is only
//!   ever produced from its source byte i). Hence `csync(dst, n); free(src)`
//!   is correct, while `csync(src, n)` releases only the source.
//! - **wait** (`copier_wait(d, offset, len)`, any thread): bytes
//!   `[offset, offset + len)` of the destination of `d`'s copy are
//!   complete, and the source bytes they were copied from; no other copy's
//!   bytes are released. A descriptor names its copy through the handle
//!   the runtime bound to it at submit ([`Tracker::bind_handle`]), which
//!   still names it after the runtime reused the descriptor's slot.
//! - **sync all** (`csync_all`): nothing is pending any more.
//! - A copy leaves the tracker when none of its destination bytes is pending
//!   (its pending source bytes are always a subset of its pending destination
//!   bytes, by the rule above).
//!
//! A byte's shadow bits are the union over pending copies: it is a pending
//! destination if some copy still has it as a pending destination byte, and a
//! pending source likewise; one byte can be both (a copy reading what an
//! earlier copy writes). Every change recomputes the affected bytes from the
//! copies, so two copies reading one source keep it pending until both are
//! released.
//!
//! # Cost
//! Besides each copy's own pending bytes ([`RangeSet`]), the tracker keeps
//! one [`Cover`] per role: which copies hold each pending byte. Syncs,
//! shadow refreshes and ready windows look only at the pieces of the
//! covers inside their range, so copies whose ranges span it with nothing
//! pending there (a buffer copied into many times, each copy left with a
//! few bytes the program never synced) cost them nothing. A csync of a
//! thread that submitted every pending copy (one thread copying) is a plain
//! sync: a count of pending copies per thread spares it the walk that sorts
//! the holders by thread.

use std::collections::BTreeMap;

use crate::cover::Cover;
use crate::mapping::{DST_BITS, SRC_BITS};
use crate::ranges::RangeSet;
use crate::shadow::{self, ShadowMem, ALL_BITS};

/// One pending copy.
#[derive(Debug)]
pub struct PendingCopy {
    /// Sequence number (1, 2, …) in submit order, printed as `copy #id`.
    pub id: u64,
    /// Destination start address.
    pub dst: usize,
    /// Source start address.
    pub src: usize,
    /// Length in bytes.
    pub len: usize,
    /// Submit flags (`COPIER_LAZY`, `COPIER_MOVE`, …) as the runtime passed them.
    pub flags: u32,
    /// Sanitizer thread id (`T<n>`) of the submitting thread.
    pub thread: u32,
    /// Raw return addresses at submit, innermost first; symbolized only when
    /// a report prints them.
    pub stack: Box<[usize]>,
    /// Offsets `[i, j)` of the destination still pending.
    pub pend_dst: RangeSet,
    /// Offsets of the source still pending (a subset of `pend_dst`).
    pub pend_src: RangeSet,
    /// Who submitted the copy.
    pub origin: Origin,
    /// The descriptor handle `copier_submit` returned for it (0: none).
    pub handle: u64,
    /// Where libcopier's submit of it returned, in the order of
    /// [`Tracker::mark_published`] (0: not yet): a `csync_all` waits for the
    /// copies published before it began ([`Tracker::sync_all_upto`]).
    pub published: u64,
}

/// Who submitted a copy: the program itself (its `amemcpy`, `amemmove`,
/// `amemcpy_lazy`, `amemcpy_handler`, `copier_submit` calls), or CopierGen
/// (a copy the pass made of the program's `memcpy`/`memmove`). CopierGen's
/// copies may read and write bytes pending from its own copies (it chains
/// them, the runtime orders them), but a copy it made of the program's
/// `memcpy` is still that `memcpy`: it must not meet the bytes of a copy
/// the program submitted and has not synced ([`Tracker::program_len`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Submitted by the program's own call.
    Program,
    /// Submitted by code CopierGen generated.
    CopierGen,
}

/// Which role of a copy a byte has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The byte is in the copy's destination.
    Destination,
    /// The byte is in the copy's source.
    Source,
}

/// Pending copies indexed by start address, and the shadow they imply.
pub struct Tracker<S: ShadowMem> {
    /// The shadow this tracker keeps in step.
    pub shadow: S,
    copies: BTreeMap<u64, PendingCopy>,
    /// Copies by whole destination and source range (reports and
    /// [`Tracker::is_execution`], which ask about ranges, not pending bytes).
    by_dst: BTreeMap<(usize, u64), usize>,
    by_src: BTreeMap<(usize, u64), usize>,
    /// Longest `len` of any copy inserted since the tracker was last empty:
    /// bounds the backward scan of a range query on `by_dst`/`by_src`.
    max_len: usize,
    /// Pending destination bytes and the copies holding them.
    cover_dst: Cover,
    /// Pending source bytes and the copies holding them.
    cover_src: Cover,
    next_id: u64,
    /// Pending copies of [`Origin::Program`].
    program: usize,
    /// Pending copies by the descriptor handle bound to them.
    by_handle: BTreeMap<u64, u64>,
    /// Pending copies per submitting thread (threads with none have no
    /// entry): a csync of a thread that holds every pending copy is a
    /// plain [`Tracker::sync`] ([`Tracker::sync_thread`]).
    per_thread: BTreeMap<u32, usize>,
    /// Scratch buffers reused by `sync`, so a sync (called once per window
    /// by CopierGen's loops, often per access under the sanitizer)
    /// allocates nothing once they have grown.
    scratch_ids: Vec<u64>,
    scratch_via: Vec<(u64, usize, usize)>,
    scratch_direct: Vec<(Role, usize, usize)>,
    scratch_held: Vec<(usize, usize)>,
}

impl<S: ShadowMem> Tracker<S> {
    /// An empty tracker over `shadow` (which must be all clear).
    pub const fn new(shadow: S) -> Self {
        Self {
            shadow,
            copies: BTreeMap::new(),
            by_dst: BTreeMap::new(),
            by_src: BTreeMap::new(),
            max_len: 0,
            cover_dst: Cover::new(),
            cover_src: Cover::new(),
            next_id: 1,
            program: 0,
            by_handle: BTreeMap::new(),
            per_thread: BTreeMap::new(),
            scratch_ids: Vec::new(),
            scratch_via: Vec::new(),
            scratch_direct: Vec::new(),
            scratch_held: Vec::new(),
        }
    }

    /// Number of pending copies.
    pub fn len(&self) -> usize {
        self.copies.len()
    }

    /// Number of pending copies the program submitted itself
    /// ([`Origin::Program`]): while it is 0, no byte can be the program's
    /// bug for a copy CopierGen made.
    pub fn program_len(&self) -> usize {
        self.program
    }

    /// True if no copy is pending (then the shadow is all clear).
    pub fn is_empty(&self) -> bool {
        self.copies.is_empty()
    }

    /// The id the next submitted copy gets.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// A pending copy by id.
    pub fn get(&self, id: u64) -> Option<&PendingCopy> {
        self.copies.get(&id)
    }

    /// Record a copy the program submitted and mark its bytes. Returns its
    /// id, or `None` for `len == 0` or ranges without shadow (not
    /// application memory).
    pub fn submit(&mut self, dst: usize, src: usize, len: usize, flags: u32, thread: u32, stack: Box<[usize]>) -> Option<u64> {
        self.submit_from(dst, src, len, flags, thread, stack, Origin::Program)
    }

    /// As [`Tracker::submit`], for a copy of `origin`.
    #[allow(clippy::too_many_arguments)]
    pub fn submit_from(&mut self, dst: usize, src: usize, len: usize, flags: u32, thread: u32, stack: Box<[usize]>, origin: Origin) -> Option<u64> {
        let id = self.next_id;
        self.submit_as(id, dst, src, len, flags, thread, stack, origin)
    }

    /// As [`Tracker::submit_from`], naming the copy `id`, which the caller
    /// numbered in submit order and never gave another copy (the hooks
    /// number copies before they reach the tracker, so a copy recorded
    /// late, [`crate::deferred`], keeps its place). Later
    /// [`Tracker::submit`]s are numbered after it.
    #[allow(clippy::too_many_arguments)]
    pub fn submit_as(&mut self, id: u64, dst: usize, src: usize, len: usize, flags: u32, thread: u32, stack: Box<[usize]>, origin: Origin) -> Option<u64> {
        if len == 0 || !self.shadow.covers(dst, len) || !self.shadow.covers(src, len) {
            return None;
        }
        self.next_id = self.next_id.max(id + 1);
        self.max_len = self.max_len.max(len);
        self.by_dst.insert((dst, id), dst + len);
        self.by_src.insert((src, id), src + len);
        self.cover_dst.add(dst, dst + len, id);
        self.cover_src.add(src, src + len, id);
        self.copies.insert(
            id,
            PendingCopy { id, dst, src, len, flags, thread, stack, pend_dst: RangeSet::new(0, len), pend_src: RangeSet::new(0, len), origin, handle: 0, published: 0 },
        );
        *self.per_thread.entry(thread).or_insert(0) += 1;
        if origin == Origin::Program {
            self.program += 1;
        }
        shadow::set(&self.shadow, dst, len, DST_BITS);
        shadow::set(&self.shadow, src, len, SRC_BITS);
        Some(id)
    }

    /// libcopier's submit of pending copy `id` returned; `seq` is its place
    /// in the order of such returns (increasing). Nothing if `id` is not
    /// pending or already marked.
    pub fn mark_published(&mut self, id: u64, seq: u64) {
        if let Some(c) = self.copies.get_mut(&id) {
            if c.published == 0 {
                c.published = seq;
            }
        }
    }

    /// A `csync_all` that began when the last published copy had place
    /// `token` returned: release the copies published up to then. A copy
    /// whose submit had not returned when it began may not have reached
    /// libcopier's queue before the wait looked, so it stays pending (were
    /// it released, the sanitizer's count could fall to 0 while libcopier
    /// still copies, and instrumented code skips its waits at 0).
    pub fn sync_all_upto(&mut self, token: u64) {
        let done: Vec<(u64, usize, usize)> = self.copies.values().filter(|c| c.published != 0 && c.published <= token).map(|c| (c.id, c.dst, c.len)).collect();
        if done.len() == self.copies.len() {
            self.sync_all();
            return;
        }
        for (id, dst, len) in done {
            self.release_copy(id, dst, len);
        }
    }

    /// The runtime's descriptor `handle` names pending copy `id` (a
    /// `copier_submit`); nothing if `id` is no longer pending. A handle is
    /// bound once: the runtime never issues one twice.
    pub fn bind_handle(&mut self, id: u64, handle: u64) {
        if let Some(c) = self.copies.get_mut(&id) {
            if c.handle != 0 {
                self.by_handle.remove(&c.handle);
            }
            c.handle = handle;
            self.by_handle.insert(handle, id);
        }
    }

    /// The pending copy bound to descriptor `handle`, if any.
    pub fn by_handle(&self, handle: u64) -> Option<&PendingCopy> {
        self.by_handle.get(&handle).map(|id| &self.copies[id])
    }

    /// Pending copies sanitizer thread `thread` submitted.
    pub fn thread_len(&self, thread: u32) -> usize {
        self.per_thread.get(&thread).copied().unwrap_or(0)
    }

    /// `copier_wait(handle, offset, len)` returned 0, on any thread: bytes
    /// `[offset, offset + len)` (clipped to the copy: after the runtime
    /// reused the slot it no longer checks the range) of the destination of
    /// the copy bound to `handle` are complete, and so are the source bytes
    /// they were copied from. Other copies' bytes stay pending. Returns
    /// false when no pending copy is bound to `handle` (never bound, or
    /// released already).
    pub fn wait(&mut self, handle: u64, offset: usize, len: usize) -> bool {
        let Some(&id) = self.by_handle.get(&handle) else { return false };
        let c = &self.copies[&id];
        let (i, j) = (offset.min(c.len), offset.saturating_add(len).min(c.len));
        if i < j {
            let dst = c.dst;
            self.release_one(id, dst + i, dst + j, true);
        }
        true
    }

    /// Ids of copies whose destination (`Role::Destination`) or source
    /// overlaps `[a, b)`, ascending.
    fn overlapping(&self, role: Role, a: usize, b: usize) -> Vec<u64> {
        let mut ids = Vec::new();
        self.overlapping_into(role, a, b, &mut ids);
        ids.sort_unstable();
        ids
    }

    /// Append the ids of copies overlapping `[a, b)` in `role` to `out`
    /// (unsorted).
    fn overlapping_into(&self, role: Role, a: usize, b: usize, out: &mut Vec<u64>) {
        let index = match role {
            Role::Destination => &self.by_dst,
            Role::Source => &self.by_src,
        };
        let lo = a.saturating_sub(self.max_len);
        out.extend(index.range((lo, 0)..(b, 0)).inspect(|_| crate::ranges::visit()).filter(|(_, &end)| end > a).map(|(&(_, id), _)| id));
    }

    /// The program synced `[addr, addr + len)`.
    pub fn sync(&mut self, addr: usize, len: usize) {
        if len == 0 || self.copies.is_empty() {
            return;
        }
        let end = addr.saturating_add(len);
        let mut ids = std::mem::take(&mut self.scratch_ids);
        let mut via = std::mem::take(&mut self.scratch_via);
        let mut direct = std::mem::take(&mut self.scratch_direct);
        let mut held = std::mem::take(&mut self.scratch_held);
        ids.clear();
        via.clear();
        held.clear();
        let mut found = [false; 2];
        for (k, cover) in [&self.cover_dst, &self.cover_src].into_iter().enumerate() {
            for (a, b, holders) in cover.within(addr, end) {
                ids.extend_from_slice(holders);
                held.push((a, b));
                found[k] = true;
            }
        }
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            direct.clear();
            self.release_in(id, addr, end, false, &mut via, &mut direct);
        }
        // No copy has a pending byte in [addr, end) any more; bytes no
        // copy held there were clear already.
        if found[0] {
            self.cover_dst.clear_range(addr, end);
        }
        if found[1] {
            self.cover_src.clear_range(addr, end);
        }
        for &(id, a, b) in &via {
            self.cover_src.remove(a, b, id);
        }
        for &(a, b) in &held {
            shadow::clear(&self.shadow, a, b - a, ALL_BITS);
        }
        for &(_, a, b) in &via {
            self.refresh(a, b, SRC_BITS);
        }
        self.scratch_ids = ids;
        self.scratch_via = via;
        self.scratch_direct = direct;
        self.scratch_held = held;
    }

    /// A `csync(addr, len)` by sanitizer thread `thread`: as [`Tracker::sync`],
    /// but only for the copies `thread` submitted. libcopier's `csync`
    /// waits for the calling thread's own copies only (docs/api.md: another
    /// thread's copy is that thread's to csync before it hands the buffer
    /// over), so another thread's copy stays pending and an access to its
    /// bytes is still reported.
    pub fn sync_thread(&mut self, addr: usize, len: usize, thread: u32) {
        if len == 0 || self.copies.is_empty() {
            return;
        }
        if self.thread_len(thread) == self.copies.len() {
            // every pending copy is the caller's (one thread copying):
            // no walk to sort the holders by thread
            return self.sync(addr, len);
        }
        let end = addr.saturating_add(len);
        let mut mine = Vec::new();
        let mut others = false;
        for cover in [&self.cover_dst, &self.cover_src] {
            for (_, _, holders) in cover.within(addr, end) {
                for &id in holders {
                    if self.copies.get(&id).is_some_and(|c| c.thread == thread) {
                        mine.push(id);
                    } else {
                        others = true;
                    }
                }
            }
        }
        if !others {
            return self.sync(addr, len);
        }
        mine.sort_unstable();
        mine.dedup();
        for id in mine {
            self.release_copy(id, addr, len);
        }
    }

    /// Release copy `id`'s pending bytes in `[addr, addr + len)` only (a
    /// completion handler freeing its own copy's buffer).
    pub fn release_copy(&mut self, id: u64, addr: usize, len: usize) {
        self.release_one(id, addr, addr.saturating_add(len), false);
    }

    /// Release copy `id`'s pending bytes in `[addr, end)`, in both roles or
    /// (`dst_only`) as a destination only, and keep covers and shadow in
    /// step.
    fn release_one(&mut self, id: u64, addr: usize, end: usize, dst_only: bool) {
        let (mut via, mut direct) = (Vec::new(), Vec::new());
        self.release_in(id, addr, end, dst_only, &mut via, &mut direct);
        for &(role, a, b) in &direct {
            self.cover_mut(role).remove(a, b, id);
        }
        for &(id, a, b) in &via {
            self.cover_src.remove(a, b, id);
        }
        for &(role, a, b) in &direct {
            self.refresh(a, b, role_bits(role));
        }
        for &(_, a, b) in &via {
            self.refresh(a, b, SRC_BITS);
        }
    }

    fn cover_mut(&mut self, role: Role) -> &mut Cover {
        match role {
            Role::Destination => &mut self.cover_dst,
            Role::Source => &mut self.cover_src,
        }
    }

    /// Remove `[addr, end)` from copy `id`'s pending bytes (its own sets
    /// only, not the covers; `dst_only`: from its destination only): push
    /// the pieces removed from its destination and source onto `direct`,
    /// and the source pieces released through synced destination bytes
    /// onto `via` (with `id`).
    fn release_in(&mut self, id: u64, addr: usize, end: usize, dst_only: bool, via: &mut Vec<(u64, usize, usize)>, direct: &mut Vec<(Role, usize, usize)>) {
        let Some(c) = self.copies.get_mut(&id) else { return };
        crate::ranges::visit();
        if let Some((a, b)) = intersect(addr, end, c.dst, c.dst + c.len) {
            let (dst, src, pend_src) = (c.dst, c.src, &mut c.pend_src);
            c.pend_dst.remove_each(a - dst, b - dst, |i, j| {
                direct.push((Role::Destination, dst + i, dst + j));
                pend_src.remove_each(i, j, |k, l| via.push((id, src + k, src + l)));
            });
        }
        if let Some((a, b)) = intersect(addr, end, c.src, c.src + c.len).filter(|_| !dst_only) {
            let src = c.src;
            c.pend_src.remove_each(a - src, b - src, |i, j| direct.push((Role::Source, src + i, src + j)));
        }
        if c.pend_dst.is_empty() {
            debug_assert!(c.pend_src.is_empty());
            let (d, s, handle, thread) = (c.dst, c.src, c.handle, c.thread);
            if c.origin == Origin::Program {
                self.program -= 1;
            }
            if handle != 0 {
                self.by_handle.remove(&handle);
            }
            if let Some(k) = self.per_thread.get_mut(&thread) {
                *k -= 1;
                if *k == 0 {
                    self.per_thread.remove(&thread);
                }
            }
            self.copies.remove(&id);
            self.by_dst.remove(&(d, id));
            self.by_src.remove(&(s, id));
            if self.copies.is_empty() {
                self.max_len = 0;
            }
        }
    }

    /// Recompute the `mask` bits of `[a, b)` from the covers: clear the bits
    /// of bytes no pending copy still holds in that role. Bits are only
    /// ever cleared here, never set, so a lock-free reader never sees a
    /// pending byte flicker to clear and back.
    fn refresh(&self, a: usize, b: usize, mask: u8) {
        for (cover, bits) in [(&self.cover_dst, DST_BITS), (&self.cover_src, SRC_BITS)] {
            if mask & bits == 0 {
                continue;
            }
            let mut at = a;
            for (s, e, _) in cover.within(a, b) {
                if s > at {
                    shadow::clear(&self.shadow, at, s - at, bits);
                }
                at = at.max(e);
            }
            if at < b {
                shadow::clear(&self.shadow, at, b - at, bits);
            }
        }
    }

    /// The ready window an instrumented `csync_ready_end(addr, n)` returns
    /// (`want` is `addr + n`), as `(end, sync_end)`: the caller syncs
    /// `[addr, sync_end)` and may then use `[addr, end)`; both are at least
    /// `want`. A function of the submits and syncs the program made (never
    /// of whether a copy finished), so reports stay deterministic:
    /// - no copy has a pending byte in `[addr, want)`: the window runs to
    ///   the next pending byte at or after `want`, in either role
    ///   (unbounded if there is none: libcopier's own answer when nothing is
    ///   pending); only `[addr, want)` is synced;
    /// - otherwise the window and the sync run to `addr + max`, the first
    ///   end of the destinations and sources of the copies pending in the
    ///   window whose destination (or source) starts at or before `addr`
    ///   (one buffer, copied into or out of once or several times), or the
    ///   first pending byte of a copy whose destination (or source) starts
    ///   after `addr`, whichever is first, so syncing releases nothing of
    ///   another buffer; if that is before `want`, exactly `[addr, want)`.
    ///
    /// Visits only the covers' pieces in `[addr, addr + max)`.
    pub fn ready_window(&self, addr: usize, want: usize, max: usize) -> (usize, usize) {
        if self.cover_dst.within(addr, want).next().is_none() && self.cover_src.within(addr, want).next().is_none() {
            let next = self.cover_dst.next_start(want).min(self.cover_src.next_start(want));
            return (next.max(want), want);
        }
        let limit = addr.saturating_add(max).max(want);
        let mut end = limit;
        for (cover, role) in [(&self.cover_dst, Role::Destination), (&self.cover_src, Role::Source)] {
            for (s, _, holders) in cover.within(addr, limit) {
                if s >= end {
                    break;
                }
                for id in holders {
                    let c = &self.copies[id];
                    let start = if role == Role::Destination { c.dst } else { c.src };
                    end = end.min(if start > addr { s } else { start + c.len });
                }
            }
        }
        if end < want {
            return (want, want);
        }
        (end, end)
    }

    /// The program synced everything.
    pub fn sync_all(&mut self) {
        for c in self.copies.values() {
            shadow::clear(&self.shadow, c.dst, c.len, ALL_BITS);
            shadow::clear(&self.shadow, c.src, c.len, ALL_BITS);
        }
        self.copies.clear();
        self.program = 0;
        self.by_handle.clear();
        self.per_thread.clear();
        self.by_dst.clear();
        self.by_src.clear();
        self.cover_dst.clear();
        self.cover_src.clear();
        self.max_len = 0;
    }

    /// The newest copy accepted by `keep` that holds a byte of
    /// `[addr, addr + len)` pending in `role`, with the first such byte.
    pub fn culprit(&self, role: Role, addr: usize, len: usize, keep: impl Fn(&PendingCopy) -> bool) -> Option<(&PendingCopy, usize)> {
        let end = addr.saturating_add(len);
        let mut best: Option<(&PendingCopy, usize)> = None;
        for id in self.overlapping(role, addr, end) {
            let c = &self.copies[&id];
            if !keep(c) {
                continue;
            }
            let (base, set) = match role {
                Role::Destination => (c.dst, &c.pend_dst),
                Role::Source => (c.src, &c.pend_src),
            };
            let hit = set.within(addr.saturating_sub(base), end - base).next().map(|(i, _)| base + i);
            if let Some(h) = hit {
                if best.is_none_or(|(b, _)| c.id > b.id) {
                    best = Some((c, h));
                }
            }
        }
        best
    }

    /// True if copying `n` bytes from `src` to `dst` is (part of) the
    /// execution of a pending copy: `[dst, dst+n)` lies in the destination
    /// of a pending copy `c` at offset `k`, and `src` is `c`'s source at the
    /// same offset, or, through copy absorption, the source of an earlier
    /// pending copy whose destination holds `c`'s source bytes (followed up
    /// to 8 links). The runtime's engines execute copies with memcpy, so the
    /// interceptors must not report these writes.
    pub fn is_execution(&self, dst: usize, src: usize, n: usize) -> bool {
        let Some(end) = dst.checked_add(n) else { return false };
        for id in self.overlapping(Role::Destination, dst, end) {
            let c = &self.copies[&id];
            if dst < c.dst || end > c.dst + c.len {
                continue;
            }
            let mut cur = c.src + (dst - c.dst);
            let mut newer = c.id;
            for _ in 0..8 {
                if cur == src {
                    return true;
                }
                let prev = self
                    .overlapping(Role::Destination, cur, cur + n)
                    .into_iter()
                    .rev()
                    .map(|i| &self.copies[&i])
                    .find(|a| a.id < newer && cur >= a.dst && cur + n <= a.dst + a.len);
                match prev {
                    Some(a) => {
                        cur = a.src + (cur - a.dst);
                        newer = a.id;
                    }
                    None => break,
                }
            }
        }
        false
    }

    /// The newest pending copy with exactly these parameters (a completion
    /// handler's copy).
    pub fn find_exact(&self, dst: usize, src: usize, len: usize) -> Option<u64> {
        self.copies.values().rev().find(|c| c.dst == dst && c.src == src && c.len == len).map(|c| c.id)
    }
}

/// The shadow bits of `role`.
fn role_bits(role: Role) -> u8 {
    match role {
        Role::Destination => DST_BITS,
        Role::Source => SRC_BITS,
    }
}

/// `[a, b) ∩ [c, d)` if not empty.
pub fn intersect(a: usize, b: usize, c: usize, d: usize) -> Option<(usize, usize)> {
    let (s, e) = (a.max(c), b.min(d));
    (s < e).then_some((s, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shadow::{state, TestShadow};
    use proptest::prelude::*;

    const BASE: usize = 0x10_000;
    const ARENA: usize = 256;

    /// The model: every copy as byte arrays of pending flags.
    #[derive(Clone)]
    struct ModelCopy {
        dst: usize,
        src: usize,
        pd: Vec<bool>,
        ps: Vec<bool>,
    }

    fn model_state(copies: &[ModelCopy], x: usize) -> u8 {
        let mut s = 0;
        for c in copies {
            if x >= c.dst && x < c.dst + c.pd.len() && c.pd[x - c.dst] {
                s |= DST_BITS;
            }
            if x >= c.src && x < c.src + c.ps.len() && c.ps[x - c.src] {
                s |= SRC_BITS;
            }
        }
        s
    }

    /// Apply a sync of `[a, a+n)` to one model copy.
    fn model_sync(c: &mut ModelCopy, a: usize, n: usize) {
        for i in 0..c.pd.len() {
            if (a..a + n).contains(&(c.dst + i)) && c.pd[i] {
                c.pd[i] = false;
                c.ps[i] = false; // synced destination byte i: source byte i was read
            }
            if (a..a + n).contains(&(c.src + i)) {
                c.ps[i] = false;
            }
        }
    }

    #[test]
    fn ready_window_stays_inside_one_copy() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        // No copy: unbounded, nothing beyond the request synced.
        assert_eq!(t.ready_window(BASE, BASE + 1, 256), (usize::MAX, BASE + 1));
        // Two adjacent destinations: the window stops at the first one's end.
        t.submit(BASE, BASE + 2048, 100, 0, 0, Box::new([])).unwrap();
        t.submit(BASE + 100, BASE + 3000, 100, 0, 0, Box::new([])).unwrap();
        assert_eq!(t.ready_window(BASE + 10, BASE + 11, 256), (BASE + 100, BASE + 100), "a second copy starts in the window");
        assert_eq!(t.ready_window(BASE + 99, BASE + 101, 256), (BASE + 101, BASE + 101), "the request reaches the second copy");
        assert_eq!(t.ready_window(BASE + 150, BASE + 151, 256), (BASE + 200, BASE + 200));
        // A request larger than the window is kept.
        assert_eq!(t.ready_window(BASE + 100, BASE + 190, 50), (BASE + 190, BASE + 190));
        // Clear bytes before a pending source: the window stops at it.
        assert_eq!(t.ready_window(BASE + 2000, BASE + 2001, 256), (BASE + 2048, BASE + 2001));
        // Inside a pending source: to the source's end.
        assert_eq!(t.ready_window(BASE + 2050, BASE + 2051, 256), (BASE + 2148, BASE + 2148));
        // Past every copy: unbounded.
        assert_eq!(t.ready_window(BASE + 3500, BASE + 3501, 256), (usize::MAX, BASE + 3501));
        // Two copies into one buffer: the window runs to the first end.
        t.submit(BASE + 1000, BASE + 2048, 100, 0, 0, Box::new([])).unwrap();
        t.submit(BASE + 1000, BASE + 3000, 60, 0, 0, Box::new([])).unwrap();
        assert_eq!(t.ready_window(BASE + 1010, BASE + 1011, 256), (BASE + 1060, BASE + 1060));
        assert_eq!(t.ready_window(BASE + 1070, BASE + 1071, 256), (BASE + 1100, BASE + 1100), "only the longer copy holds it");
    }

    /// Apply `copier_wait` of destination offsets `[off, off + n)` to one
    /// model copy: those destination bytes and their source bytes.
    fn model_wait(c: &mut ModelCopy, off: usize, n: usize) {
        for i in off..(off + n).min(c.pd.len()) {
            c.pd[i] = false;
            c.ps[i] = false;
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Submit { dst: usize, src: usize, len: usize, thread: u32 },
        Sync { at: usize, len: usize },
        SyncThread { at: usize, len: usize, thread: u32 },
        SyncAll,
        Release { which: usize, at: usize, len: usize },
        Wait { which: usize, off: usize, len: usize },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..ARENA, 0..ARENA, 0usize..64, 0u32..2).prop_map(|(d, s, l, t)| Op::Submit { dst: d, src: s, len: l, thread: t }),
            3 => (0..ARENA, 0usize..80).prop_map(|(a, l)| Op::Sync { at: a, len: l }),
            2 => (0..ARENA, 0usize..80, 0u32..2).prop_map(|(a, l, t)| Op::SyncThread { at: a, len: l, thread: t }),
            1 => Just(Op::SyncAll),
            1 => (0usize..8, 0..ARENA, 0usize..64).prop_map(|(w, a, l)| Op::Release { which: w, at: a, len: l }),
            2 => (0usize..8, 0usize..70, 0usize..70).prop_map(|(w, o, l)| Op::Wait { which: w, off: o, len: l }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]
        /// After every event, each byte's shadow bits equal the model's
        /// (byte-level map of pending destination/source states), and the
        /// tracker holds exactly the copies the model still has pending,
        /// each still found by its descriptor handle and counted for its
        /// thread.
        #[test]
        fn shadow_matches_model(ops in prop::collection::vec(op(), 1..40)) {
            let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
            // (id, thread, copy); copy id k has handle 1000 + k
            let mut model: Vec<(u64, u32, ModelCopy)> = Vec::new();
            for op in ops {
                match op {
                    Op::Submit { dst, src, len, thread } => {
                        let (dst, src) = (BASE + dst, BASE + src);
                        if let Some(id) = t.submit(dst, src, len, 0, thread, Box::new([])) {
                            t.bind_handle(id, 1000 + id);
                            model.push((id, thread, ModelCopy { dst, src, pd: vec![true; len], ps: vec![true; len] }));
                        } else {
                            prop_assert_eq!(len, 0);
                        }
                    }
                    Op::Sync { at, len } => {
                        t.sync(BASE + at, len);
                        for (_, _, c) in model.iter_mut() { model_sync(c, BASE + at, len); }
                    }
                    Op::SyncThread { at, len, thread } => {
                        t.sync_thread(BASE + at, len, thread);
                        for (_, _, c) in model.iter_mut().filter(|(_, th, _)| *th == thread) { model_sync(c, BASE + at, len); }
                    }
                    Op::Wait { which, off, len } => {
                        if !model.is_empty() {
                            let k = which % model.len();
                            prop_assert!(t.wait(1000 + model[k].0, off, len));
                            model_wait(&mut model[k].2, off, len);
                        }
                    }
                    Op::SyncAll => { t.sync_all(); model.clear(); }
                    Op::Release { which, at, len } => {
                        if !model.is_empty() {
                            let k = which % model.len();
                            t.release_copy(model[k].0, BASE + at, len);
                            model_sync(&mut model[k].2, BASE + at, len);
                        }
                    }
                }
                let gone: Vec<u64> = model.iter().filter(|(_, _, c)| !c.pd.iter().any(|&b| b)).map(|(id, _, _)| *id).collect();
                model.retain(|(_, _, c)| c.pd.iter().any(|&b| b));
                for id in gone {
                    prop_assert!(t.by_handle(1000 + id).is_none(), "released copy {} still found by its handle", id);
                    prop_assert!(!t.wait(1000 + id, 0, 64));
                }
                for th in 0..2 {
                    prop_assert_eq!(t.thread_len(th), model.iter().filter(|(_, m, _)| *m == th).count());
                }
                let cs: Vec<ModelCopy> = model.iter().map(|(_, _, c)| c.clone()).collect();
                for x in BASE..BASE + 2 * ARENA {
                    prop_assert_eq!(state(&t.shadow, x), model_state(&cs, x), "byte {:#x}", x);
                }
                for x in BASE..BASE + 2 * ARENA {
                    let holds = |f: &dyn Fn(&ModelCopy) -> bool| model.iter().filter(|(_, _, c)| f(c)).map(|(id, _, _)| *id).collect::<Vec<_>>();
                    let d = holds(&|c| x >= c.dst && x < c.dst + c.pd.len() && c.pd[x - c.dst]);
                    let s = holds(&|c| x >= c.src && x < c.src + c.ps.len() && c.ps[x - c.src]);
                    prop_assert_eq!(t.cover_dst.holders(x), &d[..], "destination holders of {:#x}", x);
                    prop_assert_eq!(t.cover_src.holders(x), &s[..], "source holders of {:#x}", x);
                }
                prop_assert_eq!(t.len(), model.len());
                for (id, _, c) in &model {
                    let tc = t.get(*id).expect("copy pending in the model is in the tracker");
                    prop_assert_eq!(t.by_handle(1000 + id).map(|c| c.id), Some(*id));
                    for i in 0..c.pd.len() {
                        prop_assert_eq!(tc.pend_dst.contains(i), c.pd[i]);
                        prop_assert_eq!(tc.pend_src.contains(i), c.ps[i]);
                    }
                }
            }
        }
    }

    /// The events of a strided walk (`i += 3`, one instrumented
    /// `csync_ready_end(p + i, 1)` whenever `i` passes the window) over a
    /// copy of `n` bytes, copied again into the same destination and walked
    /// again, with windows of at most `max` bytes; returns the ranges the
    /// tracker visited.
    fn copy_walk_copy_walk(n: usize, max: usize) -> u64 {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * n + 64));
        let (dst, src) = (BASE, BASE + n + 32);
        crate::ranges::VISITED.with(|v| v.set(0));
        for _ in 0..2 {
            t.submit(dst, src, n, 0, 0, Box::new([])).unwrap();
            let mut end = dst;
            for i in (0..n).step_by(3) {
                let a = dst + i;
                if a >= end {
                    let (e, sync_end) = t.ready_window(a, a + 1, max);
                    t.sync(a, sync_end - a);
                    end = e;
                }
                assert_eq!(state(&t.shadow, a), 0, "byte {i} read while pending");
            }
        }
        crate::ranges::VISITED.with(std::cell::Cell::get)
    }

    /// Regression: the walk leaves copy 1 pending in 2-byte pieces between
    /// windows; 1-byte windows (what the second walk got while windows
    /// stopped at a second copy) fragment copy 2 at every third byte, and a
    /// sync that visited every fragment of a copy made this quadratic
    /// (seconds at 256 KiB). The work must grow linearly with n.
    #[test]
    fn scattered_syncs_cost_linear_work() {
        for max in [1, crate::hooks::READY_WINDOW] {
            let small = copy_walk_copy_walk(3 << 12, max);
            let large = copy_walk_copy_walk(3 << 14, max);
            assert!(large <= 5 * small, "window {max}: 4x the bytes visited {large} ranges against {small}: not linear");
            assert!(large <= 16 * (3 << 14) as u64, "window {max}: {large} ranges visited for {} bytes", 3 << 14);
        }
    }

    /// The events of trial finding F2's loop over one buffer of `n` bytes:
    /// `rounds` times, copy its upper half from its lower half
    /// (`memcpy(b + n/2, b + (w & 7), n/2 - 8)`, a CopierGen amemcpy) and
    /// walk the whole buffer with `i += 7`, one `csync_ready_end(p + i, 1)`
    /// whenever `i` passes the window; returns the copies, ranges and
    /// pieces the tracker visited.
    fn same_buffer_rounds(n: usize, rounds: usize) -> u64 {
        let mut t = Tracker::new(TestShadow::new(BASE, n));
        crate::ranges::VISITED.with(|v| v.set(0));
        for w in 0..rounds {
            t.submit(BASE + n / 2, BASE + (w & 7), n / 2 - 8, 0, 0, Box::new([])).unwrap();
            let mut end = BASE;
            for i in (0..n).step_by(7) {
                let a = BASE + i;
                if a >= end {
                    let (e, sync_end) = t.ready_window(a, a + 1, crate::hooks::READY_WINDOW);
                    t.sync(a, sync_end - a);
                    end = e;
                }
                assert_eq!(state(&t.shadow, a) & DST_BITS, 0, "round {w}: byte {i} read while pending");
            }
        }
        // The walk never reaches the first bytes of the upper half: every
        // copy stays pending there.
        assert_eq!(t.len(), rounds);
        crate::ranges::VISITED.with(std::cell::Cell::get)
    }

    /// Regression (trial finding F2): each round leaves its copy pending
    /// in the few bytes the walk skips, so round w met w earlier copies
    /// whose ranges span the whole walk, and every sync visited each of
    /// them (15 s for 40 rounds of 1 MiB). The work must grow linearly with
    /// the rounds.
    #[test]
    fn same_buffer_copies_cost_linear_work() {
        let n = 1 << 14;
        let small = same_buffer_rounds(n, 8);
        let large = same_buffer_rounds(n, 32);
        assert!(large <= 5 * small, "4x the rounds visited {large} against {small}: not linear");
        let accesses = 32 * (n / 7) as u64;
        assert!(large <= 16 * accesses, "{large} visited for {accesses} accesses");
    }

    /// A walk over a buffer copied into twice gets full windows: both
    /// copies' destinations hold it.
    #[test]
    fn second_copy_into_one_buffer_keeps_windows() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        t.submit(BASE, BASE + 2048, 1024, 0, 0, Box::new([])).unwrap();
        t.sync(BASE, 10);
        t.submit(BASE, BASE + 2048, 1024, 0, 0, Box::new([])).unwrap();
        assert_eq!(t.ready_window(BASE + 3, BASE + 4, 256), (BASE + 259, BASE + 259));
    }

    #[test]
    fn execution_of_pending_copy() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        t.submit(BASE + 100, BASE, 50, 0, 0, Box::new([])).unwrap(); // A: [100,150) <- [0,50)
        t.submit(BASE + 200, BASE + 110, 30, 0, 0, Box::new([])).unwrap(); // B: [200,230) <- [110,140)
        assert!(t.is_execution(BASE + 100, BASE, 50));
        assert!(t.is_execution(BASE + 120, BASE + 20, 10), "a segment of A");
        assert!(t.is_execution(BASE + 205, BASE + 115, 8), "a segment of B");
        assert!(t.is_execution(BASE + 205, BASE + 15, 8), "B absorbed from A's source");
        assert!(!t.is_execution(BASE + 120, BASE + 21, 10), "offset mismatch");
        assert!(!t.is_execution(BASE + 140, BASE + 40, 20), "runs past A's destination");
    }

    /// A csync releases the calling thread's copies only: thread 1's sync
    /// of bytes that both its copy and thread 0's hold leaves thread 0's
    /// copy pending there (libcopier's csync waits for own copies).
    #[test]
    fn sync_of_one_thread_keeps_other_threads_copies() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        let (s, d) = (BASE, BASE + 256);
        t.submit(d, s, 64, 0, 0, Box::new([])).unwrap(); // thread 0: [256, 320)
        t.submit(d + 32, s + 128, 64, 0, 1, Box::new([])).unwrap(); // thread 1: [288, 352)
        t.sync_thread(d, 96, 1);
        assert_eq!(state(&t.shadow, d + 40) & DST_BITS, DST_BITS, "thread 0's byte released by thread 1's sync");
        assert_eq!(state(&t.shadow, d + 80) & DST_BITS, 0, "thread 1's own byte stays pending");
        assert_eq!(state(&t.shadow, s + 130) & SRC_BITS, 0, "thread 1's source stays pending");
        assert_eq!(t.len(), 1);
        t.sync_thread(d, 96, 0);
        assert!(t.is_empty());
        assert_eq!(state(&t.shadow, d + 40), 0);
    }

    /// Trial finding (a wrong result in a `--sanitize` build): a
    /// `csync_all` on one thread released a copy whose submit had reached
    /// the checker but not yet libcopier's queue on another thread; the
    /// count fell to 0 and that thread's instrumented reads skipped their
    /// waits. Only copies published before the `csync_all` began leave.
    #[test]
    fn sync_all_releases_only_copies_published_before_it_began() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        let a = t.submit(BASE + 256, BASE, 64, 0, 0, Box::new([])).unwrap();
        let b = t.submit(BASE + 384, BASE + 128, 64, 0, 1, Box::new([])).unwrap();
        t.mark_published(a, 1);
        // the csync_all began at place 1: b's submit had not returned
        t.sync_all_upto(1);
        assert!(t.get(a).is_none(), "a was published before the csync_all: complete");
        assert!(t.get(b).is_some() && t.len() == 1, "b stays pending");
        assert_eq!(state(&t.shadow, BASE + 384 + 10) & DST_BITS, DST_BITS, "b's destination is still pending");
        assert_eq!(state(&t.shadow, BASE + 256 + 10), 0);
        // published later than the csync_all began: still not released by it
        t.mark_published(b, 2);
        t.sync_all_upto(1);
        assert!(t.get(b).is_some());
        // a later csync_all releases it, and the tracker is empty again
        t.sync_all_upto(2);
        assert!(t.is_empty());
        // a token of 0 (the begin was not seen) releases nothing
        let c = t.submit(BASE + 448, BASE, 32, 0, 0, Box::new([])).unwrap();
        t.mark_published(c, 3);
        t.sync_all_upto(0);
        assert!(t.get(c).is_some());
    }

    /// `copier_wait` of one copy releases that copy's bytes only (defect:
    /// it released every copy's bytes in its destination), also when its
    /// range reaches past the copy (a reused slot no longer checks it).
    #[test]
    fn wait_releases_the_named_copy_only() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        let (s1, s2, d) = (BASE, BASE + 64, BASE + 256);
        let a = t.submit(d, s1, 64, 0, 0, Box::new([])).unwrap(); // [256, 320)
        let b = t.submit(d + 32, s2, 64, 0, 1, Box::new([])).unwrap(); // [288, 352)
        t.bind_handle(a, 0x100);
        t.bind_handle(b, 0x200);
        assert!(!t.wait(0x300, 0, 64), "a handle never bound names no copy");
        assert!(t.wait(0x100, 0, 64));
        assert_eq!(state(&t.shadow, d + 10), 0, "the waited copy's own byte");
        assert_eq!(state(&t.shadow, s1 + 10), 0, "and the source byte it was copied from");
        assert_eq!(state(&t.shadow, d + 40) & DST_BITS, DST_BITS, "copy b still writes its bytes there");
        assert_eq!(t.culprit(Role::Destination, d + 40, 1, |_| true).map(|(c, _)| c.id), Some(b));
        assert!(t.by_handle(0x100).is_none() && t.len() == 1, "a complete copy leaves, with its handle");
        assert!(t.wait(0x200, 60, 1000), "past the copy's end: clipped");
        assert_eq!(state(&t.shadow, d + 40) & DST_BITS, DST_BITS, "offsets before 60 stay pending");
        assert_eq!(state(&t.shadow, d + 95), 0);
        assert_eq!(state(&t.shadow, s2 + 61), 0);
        assert!(t.wait(0x200, 0, 60));
        assert!(t.is_empty());
        assert!(!t.wait(0x200, 0, 60), "released: the handle names nothing");
    }

    /// A wait releases the copy's destination bytes, not source bytes of
    /// the same copy that its range happens to cover (a move inside one
    /// buffer: destination offsets 0..10 do not complete source offsets
    /// 10..20).
    #[test]
    fn wait_of_a_move_keeps_its_later_source_bytes() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        let a = t.submit(BASE + 10, BASE, 100, 0, 0, Box::new([])).unwrap();
        t.bind_handle(a, 7);
        assert!(t.wait(7, 0, 10));
        assert_eq!(state(&t.shadow, BASE + 5), 0, "source offsets 0..10 were read");
        assert_eq!(state(&t.shadow, BASE + 15) & SRC_BITS, SRC_BITS, "source offset 15 is not read yet");
    }

    /// A csync of the thread that holds every pending copy is a plain sync,
    /// without the walk that sorts holders by thread (which visited the
    /// covers' pieces once more); with another thread's copy pending, the
    /// other copy is kept.
    #[test]
    fn one_thread_sync_is_plain_sync() {
        let visits = |threads: [u32; 2], sync_as: Option<u32>| {
            let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
            t.submit(BASE + 256, BASE, 64, 0, threads[0], Box::new([])).unwrap();
            t.submit(BASE + 288, BASE + 128, 64, 0, threads[1], Box::new([])).unwrap();
            assert_eq!(t.thread_len(threads[0]) + t.thread_len(threads[1]), if threads[0] == threads[1] { 4 } else { 2 });
            crate::ranges::VISITED.with(|v| v.set(0));
            match sync_as {
                Some(th) => t.sync_thread(BASE + 256, 96, th),
                None => t.sync(BASE + 256, 96),
            }
            (crate::ranges::VISITED.with(std::cell::Cell::get), t.len())
        };
        let (plain, left) = visits([3, 3], None);
        assert_eq!(left, 0);
        assert_eq!(visits([3, 3], Some(3)), (plain, 0), "one thread's csync visits what a sync does");
        assert_eq!(visits([3, 4], Some(3)).1, 1, "thread 4's copy stays pending");
    }

    #[test]
    fn two_readers_keep_source_pending() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        let (s, d1, d2) = (BASE, BASE + 64, BASE + 128);
        t.submit(d1, s, 32, 0, 0, Box::new([])).unwrap();
        t.submit(d2, s, 32, 0, 0, Box::new([])).unwrap();
        t.sync(d1, 32);
        assert_eq!(state(&t.shadow, s), SRC_BITS, "second copy still reads the source");
        t.sync(d2, 32);
        assert_eq!(state(&t.shadow, s), 0);
        assert!(t.is_empty());
    }

    #[test]
    fn source_sync_keeps_destination() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        t.submit(BASE + 100, BASE, 10, 0, 0, Box::new([])).unwrap();
        t.sync(BASE, 10);
        assert_eq!(state(&t.shadow, BASE), 0);
        assert_eq!(state(&t.shadow, BASE + 100), DST_BITS);
        assert_eq!(t.culprit(Role::Destination, BASE + 105, 1, |_| true).map(|(c, a)| (c.id, a)), Some((1, BASE + 105)));
    }

    #[test]
    fn chained_copy_byte_is_both() {
        let mut t = Tracker::new(TestShadow::new(BASE, 2 * ARENA));
        t.submit(BASE + 50, BASE, 20, 0, 0, Box::new([])).unwrap(); // A: [50,70) <- [0,20)
        t.submit(BASE + 100, BASE + 60, 20, 0, 0, Box::new([])).unwrap(); // B reads A's pending dst
        assert_eq!(state(&t.shadow, BASE + 65), DST_BITS | SRC_BITS);
        t.sync(BASE + 100, 20); // B complete: [60,80) no longer B's source
        assert_eq!(state(&t.shadow, BASE + 65), DST_BITS);
        assert_eq!(state(&t.shadow, BASE + 75), 0);
    }

    /// The program's copies are counted apart from CopierGen's, and
    /// `culprit` can be asked about the program's alone (the check of a
    /// CopierGen copy, `report::check_program`).
    #[test]
    fn program_copies_counted_apart() {
        let mut t = Tracker::new(TestShadow::new(BASE, 4096));
        let a = t.submit(BASE, BASE + 1000, 100, 0, 0, Box::new([])).unwrap();
        let b = t.submit_from(BASE + 2000, BASE, 100, 0, 0, Box::new([]), Origin::CopierGen).unwrap();
        assert_eq!((t.len(), t.program_len()), (2, 1));
        let program = |c: &PendingCopy| c.origin == Origin::Program;
        assert_eq!(t.culprit(Role::Destination, BASE + 10, 4, program).map(|(c, _)| c.id), Some(a), "B reads A's pending destination");
        assert_eq!(t.culprit(Role::Destination, BASE + 2010, 4, program).map(|(c, _)| c.id), None, "B's destination is CopierGen's");
        assert_eq!(t.culprit(Role::Destination, BASE + 2010, 4, |_| true).map(|(c, _)| c.id), Some(b));
        t.sync(BASE, 100);
        assert_eq!((t.len(), t.program_len()), (1, 0));
        t.submit(BASE + 3000, BASE + 1000, 10, 0, 0, Box::new([]));
        assert_eq!(t.program_len(), 1);
        t.sync_all();
        assert_eq!((t.len(), t.program_len()), (0, 0));
    }
}
