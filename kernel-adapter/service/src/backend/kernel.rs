//! The kernel backend: copies submitted into `/dev/copier`'s copy ring and
//! executed by copier.ko's service threads; `csync` waits on the shared
//! descriptors (spin, then `COPIER_IOC_WAIT`) and re-executes on its own
//! thread what the module leaves (`COPIER_D_FAULTED`), so a bad pointer
//! raises memcpy's SIGSEGV there. Every wait then re-executes, in
//! submission order, the faulted tasks submitted before what it waited for
//! and the later tasks that depend on them ([`super::replay`]), before it
//! returns.
//!
//! One client per process: threads share it, and a lock makes them one
//! producer (the ring is single-producer). Copies the module cannot serve
//! run synchronously after the pending copies they conflict with: below
//! the threshold, a full ring, overlapping moves, copies with a completion
//! handler (the handler then runs at once, after every earlier copy),
//! nested calls (a signal handler or an interposed `memcpy` inside the
//! backend). Lazy copies run eagerly. The gate is held ([`HOLD`]) from the
//! first submit until a wait sees the ring drained, so the fast path and
//! the pending word compiled guards read see device tasks as pending.

use super::device::Device;
use super::proto::{self, Task};
use super::replay::Written;
use crate::desc::{FAILED, FAULTED};
use crate::gate::{self, Hold};
use crate::stats::COUNTERS;
use crate::sys::{now_ns, FutexMutex};
use crate::{config, config::values as opt, engine, hooks};
use core::cell::Cell;
use core::sync::atomic::{AtomicBool, Ordering};

/// Handle tag in the low byte: no in-process client has this index
/// (`clients::MAX_CLIENTS` is 255), so `copier_wait` tells them apart.
pub(crate) const HANDLE_TAG: u64 = 0xff;
/// Pause-loop iterations before a wait sleeps in `COPIER_IOC_WAIT`.
const SPIN: u32 = 2000;

/// The producer: next position to publish, under the lock.
static SUBMIT: FutexMutex<u64> = FutexMutex::new(0);
/// The gate hold of device tasks (see the module docs).
static HOLD: Hold = Hold::new();
/// A [`repair`] is in progress (its bytes are being rewritten: a wait on
/// another thread joins it rather than trusting what it sees done).
static REPAIRING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread is inside the backend (a nested call copies plainly).
    static INSIDE: Cell<bool> = const { Cell::new(false) };
    /// A re-execution in progress on this thread: `(pos, lo, hi)`. Still
    /// set at the next call when the program left the copy's fault by
    /// `siglongjmp`: the task then finishes with a fault (`FAILED`).
    static REPLAY: Cell<Option<(u64, u32, u32)>> = const { Cell::new(None) };
    /// This thread holds the producer lock for a [`repair`] (still true at
    /// the next call when a re-execution's fault was left by `siglongjmp`).
    static REPAIR_LOCK: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread inside the backend for its life.
struct Inside;

impl Inside {
    fn enter() -> Option<Inside> {
        INSIDE.try_with(|c| (!c.replace(true)).then_some(Inside)).ok().flatten()
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        let _ = INSIDE.try_with(|c| c.set(false));
    }
}

fn handle(pos: u64) -> u64 {
    ((pos + 1) << 8) | HANDLE_TAG
}

/// Segments of a task with `shift` that bytes `[off, off + len)` touch.
fn segs(off: u64, len: u64, shift: u32) -> (u32, u32) {
    ((off >> shift) as u32, (((off + len - 1) >> shift) + 1) as u32)
}

/// Segment shift for a copy of `n` bytes: the configured segment size,
/// within the module's 6..=24, grown until the task has at most
/// `MAX_SEGS` segments; `None` when even 16 MiB segments are too few.
fn shift_for(n: usize) -> Option<u32> {
    let mut s = config::get(&opt::segment_size).trailing_zeros().clamp(6, 24);
    while n.div_ceil(1 << s) > crate::desc::MAX_SEGS {
        s += 1;
    }
    (s <= 24).then_some(s)
}

/// Submit a copy (`flags`: `COPIER_LAZY`, `COPIER_MOVE`) with an optional
/// completion handler; returns a handle, or 0 when it ran synchronously
/// (its handler has then run).
///
/// # Safety
/// As `service::submit`.
pub(crate) unsafe fn submit(dev: &Device, dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    let copy = hooks::get().and_then(|h| h.on_submit).map_or(0, |f| f(dst as usize, src as usize, n, flags));
    // SAFETY: caller contract.
    let h = unsafe { submit_hooked(dev, dst, src, n, handler, arg) };
    hooks::submitted(copy);
    h
}

/// As [`submit`], for `copier_submit`: the checker also learns which
/// handle names the copy (`hooks::bind_handle`).
///
/// # Safety
/// As `service::submit`.
pub(crate) unsafe fn submit_desc(dev: &Device, dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    let copy = hooks::get().and_then(|h| h.on_submit).map_or(0, |f| f(dst as usize, src as usize, n, flags));
    // SAFETY: caller contract.
    let h = unsafe { submit_hooked(dev, dst, src, n, handler, arg) };
    hooks::bind_handle(copy, h);
    hooks::submitted(copy);
    h
}

/// [`submit`] after its hook.
///
/// # Safety
/// As `service::submit`.
#[inline(always)]
unsafe fn submit_hooked(dev: &Device, dst: *mut u8, src: *const u8, n: usize, handler: usize, arg: usize) -> u64 {
    settle_replay(dev);
    let Some(inside) = Inside::enter() else {
        // nested (signal handler, interposed memcpy): plain copy, as the
        // in-process service's nested_copy
        // SAFETY: caller contract; overlap-safe.
        unsafe { engine::move_bytes(dst, src, n) };
        call_handler(handler, arg);
        return 0;
    };
    let (d, s) = (dst as usize as u64, src as usize as u64);
    let shift = shift_for(n);
    let asynchronous = handler == 0 && n >= config::get(&opt::threshold) && n != 0 && d.abs_diff(s) >= n as u64 && shift.is_some();
    if asynchronous {
        let shift = shift.unwrap_or(24);
        let t = Task { dst: d, src: s, len: n as u64, flags: 0, nsegs: n.div_ceil(1 << shift) as u32, shift };
        let mut g = SUBMIT.lock();
        let pos = *g;
        let ring = dev.ring();
        if proto::has_room(&ring, pos, dev.nentries) {
            HOLD.ensure(gate::add_hold, gate::sub_hold);
            let wake = proto::publish(&ring, &dev.slot(pos), pos, &t);
            *g = pos + 1;
            drop(g);
            if wake {
                dev.wake();
            }
            COUNTERS.device_tasks.fetch_add(1, Ordering::Relaxed);
            COUNTERS.tasks.fetch_add(1, Ordering::Relaxed);
            COUNTERS.bytes.fetch_add(n as u64, Ordering::Relaxed);
            return handle(pos);
        }
        // full ring: synchronous copy below
    }
    wait_ranges(dev, &[(d, n as u64, false), (s, n as u64, true)], false);
    if handler != 0 {
        // the handler may free the source: every earlier copy completes first
        wait_all(dev);
    }
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    COUNTERS.inline.fetch_add(1, Ordering::Relaxed);
    drop(inside);
    call_handler(handler, arg);
    0
}

fn call_handler(handler: usize, arg: usize) {
    if handler != 0 {
        // SAFETY: the submit contract: a non-zero handler is an
        // `extern "C" fn(*mut c_void)` safe to call with `arg`.
        let f = unsafe { core::mem::transmute::<usize, extern "C" fn(*mut core::ffi::c_void)>(handler) };
        f(arg as *mut core::ffi::c_void);
    }
}

/// Wait until no pending device task touches the ranges `(addr, len,
/// writers_only)`. Returns true when it had to wait.
fn wait_ranges(dev: &Device, ranges: &[(u64, u64, bool)], count: bool) -> bool {
    let ring = dev.ring();
    let (tail, head) = (ring.tail.load(Ordering::Acquire), ring.head.load(Ordering::Acquire));
    let t0 = if count { now_ns() } else { 0 };
    let mut waited = false;
    let mut last = None;
    for p in tail..head {
        let Some(t) = proto::read(&dev.slot(p), p) else { continue };
        for &(a, n, writers_only) in ranges {
            for (base, is_write) in [(t.dst, true), (t.src, false)] {
                if n == 0 || (writers_only && !is_write) {
                    continue;
                }
                let x = a.max(base);
                let y = a.saturating_add(n).min(base + t.len);
                if x < y {
                    let (lo, hi) = segs(x - base, y - x, t.shift);
                    waited |= wait_segs(dev, p, lo, hi.min(t.nsegs), false);
                    last = Some(p);
                }
            }
        }
    }
    if let Some(p) = last {
        waited |= repair_before(dev, p);
    }
    if waited && count {
        COUNTERS.csync.add(t0);
    }
    release_if_drained(dev);
    waited
}

/// Run [`repair`] when a task before position `upto` is faulted and not
/// finished, or a repair is in progress. True when it ran.
///
/// A task the module faults is marked before any later task of the ring
/// runs (round.c faults at validation and pinning; its engines report no
/// errors), so a later task seen done (`Acquire`) shows the mark.
fn repair_before(dev: &Device, upto: u64) -> bool {
    let mut found = REPAIRING.load(Ordering::Acquire);
    let tail = dev.ring().tail.load(Ordering::Acquire);
    let mut p = tail;
    while !found && p < upto {
        let d = dev.slot(p).desc;
        found = d.flags() & FAULTED != 0 && !d.is_done(p, 0, d.nsegs());
        p += 1;
    }
    if found {
        repair(dev, false);
    }
    found
}

/// Re-execute, in submission order, the faulted tasks and what depends on
/// them ([`super::replay`]), under the producer lock (`locked`: the caller
/// holds it), so no slot is reused meanwhile. The first re-execution that
/// really faults raises memcpy's SIGSEGV here.
fn repair(dev: &Device, locked: bool) {
    if !locked {
        SUBMIT.raw_lock();
        let _ = REPAIR_LOCK.try_with(|c| c.set(true));
    }
    REPAIRING.store(true, Ordering::Release);
    // SAFETY: the lock is held (taken above or by the caller).
    let head = unsafe { *SUBMIT.get_unchecked() };
    let mut written = Written::new();
    for p in dev.ring().tail.load(Ordering::Acquire)..head {
        let slot = dev.slot(p);
        let Some(t) = proto::read(&slot, p) else { continue };
        let faulted = settle(dev, p, t.nsegs);
        let (redo, stale) = written.admit(&t, faulted);
        if !redo {
            continue;
        }
        if faulted {
            finish(dev, p, slot.desc.flags() & FAILED == 0);
        }
        if stale {
            // SAFETY: as in `finish`: an unsynced copy of the program.
            unsafe { engine::move_bytes(t.dst as usize as *mut u8, t.src as usize as *const u8, t.len as usize) };
        }
    }
    REPAIRING.store(false, Ordering::Release);
    if !locked {
        let _ = REPAIR_LOCK.try_with(|c| c.set(false));
        SUBMIT.raw_unlock();
    }
}

/// Wait until the task at `pos` is done or faulted; true when it is
/// faulted and not done.
fn settle(dev: &Device, pos: u64, nsegs: u32) -> bool {
    let d = dev.slot(pos).desc;
    let mut spins = 0;
    loop {
        if d.is_done(pos, 0, nsegs) {
            return false;
        }
        if d.flags() & FAULTED != 0 {
            return true;
        }
        if spins < SPIN {
            spins += 1;
            core::hint::spin_loop();
            continue;
        }
        match dev.wait(pos) {
            0 | libc::EINTR | libc::EINVAL => {}
            _ => std::thread::yield_now(),
        }
    }
}

/// Wait until segments `[lo, hi)` of the task at `pos` are done,
/// re-executing the task here ([`repair`]; `locked`: the caller holds the
/// producer lock) if the module left it faulted. True when it had to wait.
fn wait_segs(dev: &Device, pos: u64, lo: u32, hi: u32, locked: bool) -> bool {
    let d = dev.slot(pos).desc;
    let mut spins = 0;
    let mut waited = false;
    loop {
        if d.is_done(pos, lo, hi) {
            return waited;
        }
        waited = true;
        if d.flags() & FAULTED != 0 {
            repair(dev, locked);
            continue;
        }
        if spins < SPIN {
            spins += 1;
            core::hint::spin_loop();
            continue;
        }
        match dev.wait(pos) {
            0 | libc::EINTR | libc::EINVAL => {}
            _ => std::thread::yield_now(),
        }
    }
}

/// Finish what the module left of the task at `pos` (claim every
/// unclaimed segment, copy it here, or only complete it when `copy` is
/// false: a fault already delivered), then wake the module to retire it.
fn finish(dev: &Device, pos: u64, copy: bool) {
    let slot = dev.slot(pos);
    let Some(t) = proto::read(&slot, pos) else { return };
    let d = slot.desc;
    loop {
        while let Some((lo, hi)) = d.claim_run(pos, 0, t.nsegs, 64) {
            if copy {
                let off = (lo as u64) << t.shift;
                let end = ((hi as u64) << t.shift).min(t.len);
                let _ = REPLAY.try_with(|r| r.set(Some((pos, lo, hi))));
                // SAFETY: the program submitted this copy and has not
                // synced it: its ranges are valid as for memcpy, or this
                // copy faults here as memcpy would (the runtime's fault
                // handler chains every fault outside its recoverable
                // routines to the program's action).
                unsafe { engine::move_bytes((t.dst + off) as usize as *mut u8, (t.src + off) as usize as *const u8, (end - off) as usize) };
                let _ = REPLAY.try_with(|r| r.set(None));
            }
            d.complete(lo, hi);
        }
        if d.is_done(pos, 0, t.nsegs) {
            break;
        }
        // a module piece of this task is still in flight
        std::thread::yield_now();
    }
    dev.wake();
}

/// A re-execution this thread left by `siglongjmp`: finish its task with
/// a fault (never re-executed or re-raised), as the in-process service.
fn settle_replay(dev: &Device) {
    if REPAIR_LOCK.try_with(|c| c.replace(false)).unwrap_or(false) {
        // the jump left a repair: the rest of it is not re-executed
        REPAIRING.store(false, Ordering::Release);
        SUBMIT.raw_unlock();
    }
    let Some((pos, lo, hi)) = REPLAY.try_with(|r| r.take()).ok().flatten() else { return };
    // the jump also skipped the guard of a submit that was waiting
    let _ = INSIDE.try_with(|c| c.set(false));
    let d = dev.slot(pos).desc;
    d.set_flags(FAILED);
    let mut s = lo;
    while s < hi {
        let e = hi.min((s / 64 + 1) * 64);
        d.complete(s, e);
        s = e;
    }
    finish(dev, pos, false);
}

/// Wait until every task published before the call is done and retired.
fn wait_all(dev: &Device) {
    drain_to(dev, dev.ring().head.load(Ordering::Acquire), false);
    release_if_drained(dev);
}

/// Wait until every task below position `head` is done and retired
/// (`locked`: the caller holds the producer lock; see [`wait_segs`]).
fn drain_to(dev: &Device, head: u64, locked: bool) {
    let ring = dev.ring();
    for p in ring.tail.load(Ordering::Acquire)..head {
        if let Some(t) = proto::read(&dev.slot(p), p) {
            wait_segs(dev, p, 0, t.nsegs, locked);
        }
    }
    // retirement follows completion at once on the service thread
    let mut spins = 0u32;
    while ring.tail.load(Ordering::Acquire) < head {
        if spins < SPIN {
            spins += 1;
            core::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Release the gate hold when the ring is drained (under the producer lock,
/// so no submit publishes meanwhile; skipped when the lock is busy: the
/// next wait releases it).
fn release_if_drained(dev: &Device) {
    if !HOLD.held() {
        return;
    }
    let Some(g) = SUBMIT.try_lock() else { return };
    if dev.ring().tail.load(Ordering::Acquire) == *g && HOLD.begin_release() {
        gate::sub_hold();
    }
    drop(g);
}

/// `csync(addr, n)` on the device's tasks.
pub(crate) fn csync(dev: &Device, addr: usize, n: usize) {
    if n == 0 || gate::no_holds() {
        return;
    }
    settle_replay(dev);
    wait_ranges(dev, &[(addr as u64, n as u64, false)], true);
}

/// `csync_all` on the device's tasks.
pub(crate) fn csync_all(dev: &Device) {
    settle_replay(dev);
    if HOLD.held() {
        let t0 = now_ns();
        wait_all(dev);
        COUNTERS.csync.add(t0);
    }
}

/// `csync_ready_end(addr, n)`: `addr + n` once synced, `usize::MAX` when
/// no device task is pending at all.
pub(crate) fn csync_ready_end(dev: &Device, addr: usize, n: usize) -> usize {
    csync(dev, addr, n);
    let ring = dev.ring();
    if ring.tail.load(Ordering::Acquire) == ring.head.load(Ordering::Acquire) {
        usize::MAX
    } else {
        addr.saturating_add(n)
    }
}

/// `copier_wait` (`block`) / `copier_query` of a device handle: 0 or 1
/// (query: done), -1 for a handle never issued or a range outside the copy.
pub(crate) fn wait_handle(dev: &Device, h: u64, off: usize, len: usize, block: bool) -> i32 {
    let pos = (h >> 8).wrapping_sub(1);
    if pos >= dev.ring().head.load(Ordering::Acquire) {
        return -1;
    }
    let Some(t) = proto::read(&dev.slot(pos), pos) else {
        if !block {
            return 1;
        }
        // (a reused slot: the copy is complete)
        hooks::waited(h, off, len);
        return 0;
    };
    let (off64, len64) = (off as u64, len as u64);
    if off64 > t.len || len64 > t.len - off64 {
        return -1;
    }
    if len == 0 {
        if block {
            hooks::waited(h, off, len);
        }
        return if block { 0 } else { 1 };
    }
    let (lo, hi) = segs(off64, len64, t.shift);
    if block {
        settle_replay(dev);
        wait_segs(dev, pos, lo, hi.min(t.nsegs), false);
        repair_before(dev, pos);
        release_if_drained(dev);
        hooks::waited(h, off, len);
        0
    } else {
        i32::from(dev.slot(pos).desc.is_done(pos, lo, hi.min(t.nsegs)))
    }
}

/// `pthread_atfork` prepare: hold the producer lock across the fork and
/// wait for every device task, so the child inherits none (its memory is
/// the parent's with every copy applied) and the parent resumes as before.
pub(crate) fn fork_prepare(dev: &Device) {
    SUBMIT.raw_lock();
    // SAFETY: the lock is ours (raw_lock above).
    let head = unsafe { *SUBMIT.get_unchecked() };
    drain_to(dev, head, true);
    if HOLD.begin_release() {
        gate::sub_hold();
    }
}

/// `pthread_atfork` parent: submits resume.
pub(crate) fn fork_parent() {
    SUBMIT.raw_unlock();
}

/// `pthread_atfork` child: the module refuses this process the parent's
/// client (`EPERM`), and nothing is pending (see [`fork_prepare`]): close
/// the file; the caller switches the child to the in-process service.
pub(crate) fn fork_child(dev: &Device) {
    SUBMIT.reset_in_child();
    dev.close_in_child();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_shifts_and_handles() {
        assert_eq!(segs(0, 1, 12), (0, 1));
        assert_eq!(segs(4095, 2, 12), (0, 2));
        assert_eq!(segs(8192, 4096, 12), (2, 3));
        // the default 4 KiB segments while they number at most MAX_SEGS,
        // then larger ones, never beyond the module's 16 MiB
        assert_eq!(shift_for(4 << 20), Some(12));
        assert_eq!(shift_for((4 << 20) + 1), Some(13));
        assert_eq!(shift_for(16 << 30), Some(24));
        assert_eq!(shift_for((16 << 30) + 1), None);
        // device handles never decode as an in-process client's
        assert_eq!(handle(0) & 0xff, HANDLE_TAG);
        assert!(HANDLE_TAG as usize >= crate::clients::MAX_CLIENTS);
        assert_eq!((handle(41) >> 8) - 1, 41);
    }
}
