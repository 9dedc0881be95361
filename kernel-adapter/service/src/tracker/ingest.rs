//! Ingest: move a published task into the tracker: its edges (RAW, WAR,
//! WAW), absorption (see [`absorb`](super::absorb)), lazy drop, and its
//! accesses in the index.
//!
//! # Lazy drop
//! When `C` writes over the whole destination of a pending lazy task `W`,
//! and `W`'s destination has no reader since `W` and no later writer, the
//! unclaimed segments of `W` are dropped (claimed and marked done unexecuted).
//! `C` inherits `W`'s edges so whatever `W` waited for still orders `C`.

use super::absorb::coalesce_redirects;
use super::edges::{bytes_done, merge_edges};
use super::Tracker;
use super::range_map::Acc;
use crate::clients::{client_at, entry, ring_of, NCLIENTS};
use crate::config::{self, values as opt};
use crate::desc::{DEPS_CLEAR, INGESTED};
use crate::task::{Edge, TaskRef, FLAG_ABSORBS, FLAG_LAZY, FLAG_OVERLAP};
use core::sync::atomic::Ordering;
use std::collections::BTreeMap;

impl Tracker {
    /// Ingest every published task of every client, ring by ring in order.
    pub(crate) fn ingest_all(&mut self) {
        let absorb = config::get(&opt::absorb) != 0;
        let n = NCLIENTS.load(Ordering::Acquire);
        let mut checked = false;
        for i in 0..n {
            let Some(r) = client_at(i).and_then(ring_of) else { continue };
            let head = r.head();
            let mut p = r.ingested();
            if p < head && !checked {
                // our fault handler in front before these copies can run
                // (the program may have replaced it before submitting them)
                crate::fault::ensure_first();
                checked = true;
            }
            while p < head {
                // SAFETY: lock held (we are a Tracker method called on the
                // guard); p is published and not ingested.
                unsafe { self.ingest(TaskRef { client: i as u16, pos: p }, absorb) };
                p += 1;
                r.set_ingested(p);
            }
        }
    }

    /// Ingest the published task at `t`: compute its edges, absorb, drop
    /// overwritten lazy copies, and register its accesses.
    ///
    /// # Safety
    /// The caller holds the tracker lock and `t` is published and not yet
    /// ingested (so its `ext` is ours to write).
    pub unsafe fn ingest(&mut self, t: TaskRef, absorb: bool) {
        let e = entry(t);
        let (d, s, n) = (e.dst(), e.src(), e.len());
        let flags = e.flags.load(Ordering::Relaxed);
        // SAFETY: under the tracker lock; not visible to executors before
        // INGESTED is set below.
        let ext = unsafe { &mut *e.ext.get() };
        ext.edges.clear();
        ext.redirects.clear();
        ext.seq = self.seq;
        self.seq += 1;
        ext.ingest_ns = if flags & FLAG_LAZY != 0 { crate::sys::now_ns() } else { 0 };

        // 0. no pending access touches either range (a stream of copies
        // into fresh buffers): no edge, nothing to absorb or drop; record
        // the read and the write, two searches and two inserts. (What the
        // steps below compute for such a task, without their allocations.)
        if flags & FLAG_OVERLAP == 0 && !self.map.overlaps(s, s + n) && !self.map.overlaps(d, d + n) {
            self.map.insert_task(s, d, n, Acc { t, seq: ext.seq, off: 0 });
            e.desc.set_flags(INGESTED | DEPS_CLEAR);
            return;
        }
        // the visits below walk runs in address order
        self.map.spill(s, s + n);
        self.map.spill(d, d + n);

        // 1. source side: RAW on last writers, or absorb.
        let mut reads: Vec<(usize, usize, usize)> = Vec::new(); // (addr, len, task off)
        let mut pieces: Vec<(usize, usize, Acc)> = Vec::new();
        let mut plain: Vec<(usize, usize)> = Vec::new(); // source pieces read in place
        {
            let mut covered = s;
            self.map.visit(s, s + n, |a, b, w, _| {
                if let Some(w) = w {
                    if a > covered {
                        plain.push((covered, a));
                    }
                    pieces.push((a, b, w));
                    covered = b;
                }
            });
            if covered < s + n {
                plain.push((covered, s + n));
            }
        }
        for (a, b) in plain {
            reads.push((a, b - a, a - s));
        }
        // source addresses absorbed from so far (start -> end), disjoint
        let mut absorbed: BTreeMap<usize, usize> = BTreeMap::new();
        for (a, b, w) in pieces {
            // Per segment of the writer: a done segment may have been synced
            // and its source rewritten since, so it is read in place (layered
            // absorption); a pending one still guarantees its source holds
            // the bytes it will copy.
            let we = entry(w.t);
            let wshift = we.desc.seg_shift();
            let mut x = a;
            while x < b {
                let woff = w.off + (x - a);
                let y = if wshift >= 63 { b } else { b.min(x + (((woff >> wshift) + 1) << wshift) - woff) };
                let (len, t_off) = (y - x, x - s);
                let wacc = Acc { off: woff, ..w };
                if bytes_done(w.t, woff, len) {
                    reads.push((x, len, t_off));
                } else {
                    self.absorb_or_depend(ext, (d, s, n), flags, absorb, x, len, t_off, wacc, &mut reads, &mut absorbed);
                }
                x = y;
            }
        }
        ext.redirects.sort_by_key(|r| r.off);
        coalesce_redirects(&mut ext.redirects);
        if !ext.redirects.is_empty() {
            // Release: `own_fast_wait` reads the redirects after this bit
            e.flags.fetch_or(FLAG_ABSORBS, Ordering::Release);
        }

        // tasks whose output this task reads (never dropped below)
        let raw_on: Vec<TaskRef> = ext.edges.iter().map(|e| e.t).collect();

        // 1b. a copy with a completion handler also waits for the earlier
        // copies that read its source: the handler may free or reuse the
        // source as soon as this copy completes ("e.g. to free the source",
        // `amemcpy_handler`), which the program may do because with memcpy
        // every earlier copy had long read it (amemcpy(d1, msg);
        // amemcpy_handler(d2, msg, n, free, msg)). Earlier readers include
        // copies that absorbed from this source. (Edges point to earlier
        // tasks only, so no cycle.)
        if e.handler.load(Ordering::Relaxed) != 0 {
            self.map.visit(s, s + n, |a, b, _, readers| {
                for r in readers {
                    if r.t != t && !bytes_done(r.t, r.off, b - a) {
                        ext.edges.push(Edge { t: r.t, t_off: a - s, e_off: r.off, len: b - a });
                    }
                }
            });
        }

        // 2. destination side: WAW on the last writer, WAR on readers.
        let mut lazy_cands: Vec<TaskRef> = Vec::new();
        self.map.visit(d, d + n, |a, b, w, readers| {
            let len = b - a;
            let t_off = a - d;
            if let Some(w) = w {
                if !bytes_done(w.t, w.off, len) {
                    ext.edges.push(Edge { t: w.t, t_off, e_off: w.off, len });
                    if entry(w.t).flags.load(Ordering::Relaxed) & FLAG_LAZY != 0 && !lazy_cands.contains(&w.t) {
                        lazy_cands.push(w.t);
                    }
                }
            }
            for r in readers {
                if r.t != t && !bytes_done(r.t, r.off, len) {
                    ext.edges.push(Edge { t: r.t, t_off, e_off: r.off, len });
                }
            }
        });

        // 3. lazy drop
        for w in lazy_cands {
            let we = entry(w);
            let (wd, wn) = (we.dst(), we.len());
            if wd < d || wd + wn > d + n || we.desc.pos() != w.pos || raw_on.contains(&w) {
                continue;
            }
            if !self.sole_writer(w, wd, wn) {
                continue;
            }
            // inherit w's edges, then drop its unclaimed segments
            // SAFETY: w is ingested and we hold the lock.
            let wext = unsafe { &*we.ext.get() };
            // (edge offsets move from w's offset space to ours: w's byte o is
            // our byte wd - d + o)
            ext.edges.extend(wext.edges.iter().map(|e| Edge { t_off: e.t_off + (wd - d), ..*e }));
            self.drop_unclaimed(w);
        }

        // 4. merge edges
        merge_edges(&mut ext.edges);
        let mut f = INGESTED;
        if ext.edges.is_empty() {
            f |= DEPS_CLEAR;
        }

        // 5. register accesses: reads first, then the write (a self-overlapping
        // move is then recorded as the writer of the overlap).
        reads.sort_unstable_by_key(|r| r.0);
        let me = Acc { t, seq: ext.seq, off: 0 };
        let mut i = 0;
        while i < reads.len() {
            // coalesce reads that continue each other (fewer run splits)
            let (addr, mut l, off) = reads[i];
            i += 1;
            while i < reads.len() && reads[i].0 == addr + l && reads[i].2 == off + l {
                l += reads[i].1;
                i += 1;
            }
            self.map.add_reader(addr, addr + l, Acc { off, ..me });
        }
        self.map.add_writer(d, d + n, me);
        e.desc.set_flags(f);
    }
}
