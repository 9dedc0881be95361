//! Submit: a copy becomes a task in the caller's own ring (no lock, no
//! shared counter), or runs synchronously (below the threshold, service
//! unavailable, queue full, nested inside the runtime, fork being prepared).

use crate::clients::{local, local_client, release_own, ring_of, Busy, Client, LOCAL, nothing_pending};
use crate::ring::Ring;
use crate::task::{Entry, TaskRef, FLAG_LAZY, FLAG_MOVE, FLAG_OVERLAP};
use crate::tracker::HandlerTask;
use crate::gate;
use crate::{config, config::values as opt, engine, hooks, stats::COUNTERS};
use core::sync::atomic::{compiler_fence, Ordering};
use super::handlers::{call_handler, invoke_handler};
use super::exec::{settle_abandoned_replay, drive_pending_of};
use super::thread::{SLEEPING, wake_service, service_ok};
use super::csync::{own_clear, wait_ranges};
use crate::fork_guard::{self, FORKING};

// ------------------------------------------------------------------- submit

/// The submit hook, if any; returns its name for the copy (0: none).
#[inline]
pub(crate) fn call_submit_hook(dst: usize, src: usize, n: usize, flags: u32) -> u64 {
    match hooks::get().and_then(|h| h.on_submit) {
        Some(f) => f(dst, src, n, flags),
        None => 0,
    }
}

/// Submit a copy of `n` bytes from `src` to `dst` (`FLAG_LAZY`, `FLAG_MOVE`),
/// with an optional completion handler. Returns the descriptor handle, or 0
/// when the copy completed synchronously (its handler has then run).
///
/// # Safety
/// As `memcpy` (or `memmove` with `FLAG_MOVE`): both ranges valid for `n`
/// bytes until the copy completes; the caller follows the csync rules.
/// `handler`, if non-zero, is an `extern "C" fn(*mut c_void)`.
pub unsafe fn submit(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    settle_abandoned_replay();
    let copy = call_submit_hook(dst as usize, src as usize, n, flags);
    // SAFETY: caller contract.
    let h = unsafe { submit_hooked(dst, src, n, flags, handler, arg) };
    hooks::submitted(copy);
    h
}

/// As [`submit`], for a submit that hands the program its descriptor
/// (`copier_submit`): the checker also learns which handle names the copy
/// ([`hooks::bind_handle`]), so a `copier_wait` of it from any thread can
/// name that copy.
///
/// # Safety
/// As [`submit`].
pub unsafe fn submit_desc(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    settle_abandoned_replay();
    let copy = call_submit_hook(dst as usize, src as usize, n, flags);
    // SAFETY: caller contract.
    let h = unsafe { submit_hooked(dst, src, n, flags, handler, arg) };
    hooks::bind_handle(copy, h);
    hooks::submitted(copy);
    h
}

/// [`submit`] after its hook.
///
/// # Safety
/// As [`submit`].
#[inline(always)]
unsafe fn submit_hooked(dst: *mut u8, src: *const u8, n: usize, flags: u32, handler: usize, arg: usize) -> u64 {
    // SAFETY: caller contract.
    if handler == 0 && unsafe { copy_inline(dst, src, n) } {
        return 0;
    }
    if n == 0 || core::ptr::eq(dst.cast_const(), src) {
        if handler != 0 {
            call_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
        }
        return 0;
    }
    let Some((cptr, busy)) = local() else {
        // thread teardown: copy synchronously
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, None) };
        return 0;
    };
    if busy {
        // nested inside the runtime (interposed memcpy, signal handler):
        // plain copy
        // SAFETY: caller contract.
        unsafe { nested_copy(dst, src, n, handler, arg) };
        return 0;
    }
    let client = if cptr.is_null() {
        local_client()
    } else {
        // SAFETY: leaked client.
        Some(unsafe { &*cptr })
    };
    if n < config::get(&opt::threshold) || !service_ok() {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, client) };
        return 0;
    }
    let Some(client) = client else {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, None) };
        return 0;
    };
    let ring = match ring_of(client) {
        Some(r) => r,
        None => {
            // building the ring moves entries with memcpy: an interposed
            // memcpy must not come back here
            let Some(_busy) = Busy::enter() else {
                // SAFETY: caller contract.
                unsafe { engine::move_bytes(dst, src, n) };
                return 0;
            };
            let r: &'static Ring<Entry> = Box::leak(Box::new(Ring::new(config::get(&opt::queue_depth), Entry::new)));
            client.ring.store(r as *const _ as *mut _, Ordering::Release);
            r
        }
    };
    // `submitting` is 1 from here to the publish: a signal handler that
    // interrupted this thread's submit in between sees it and copies
    // synchronously instead of reserving the slot the interrupted submit is
    // filling (only this thread sets it; one load of a line the submit
    // writes anyway, where a `busy` guard cost ~3.5 ns per submit).
    if client.submitting.load(Ordering::Relaxed) != 0 {
        // SAFETY: caller contract.
        unsafe { nested_copy(dst, src, n, handler, arg) };
        return 0;
    }
    // a fork being prepared waits for this submit to publish, or this
    // submit sees the fork and copies synchronously (`fork_prepare`)
    let Some(submitting) = Submitting::enter(client) else {
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, Some(client)) };
        return 0;
    };
    let Some(pos) = ring.reserve().or_else(|| retire_left_and_reserve(ring)) else {
        drop(submitting);
        // full queue: synchronous copy after pending conflicts
        // SAFETY: caller contract.
        unsafe { sync_copy(dst, src, n, handler, arg, Some(client)) };
        return 0;
    };
    let (d, s) = (dst as usize, src as usize);
    let mut f = flags & (FLAG_LAZY | FLAG_MOVE);
    let (nsegs, shift) = if d.abs_diff(s) < n {
        f |= FLAG_OVERLAP;
        (1, 63)
    } else {
        let mut shift = config::get(&opt::segment_size).trailing_zeros();
        while n.div_ceil(1 << shift) > crate::desc::MAX_SEGS {
            shift += 1;
        }
        (n.div_ceil(1 << shift) as u32, shift)
    };
    // hold the fast path's gate closed before the task becomes visible ...
    client.hold.ensure(gate::add_hold, gate::sub_hold);
    let e = ring.slot(pos);
    e.desc.reset(pos, nsegs, shift, 0);
    e.dst.store(d, Ordering::Relaxed);
    e.src.store(s, Ordering::Relaxed);
    e.len.store(n, Ordering::Relaxed);
    e.flags.store(f, Ordering::Relaxed);
    e.handler.store(handler, Ordering::Relaxed);
    e.arg.store(arg, Ordering::Relaxed);
    if handler != 0 {
        client.last_handler.store(pos + 1, Ordering::Relaxed);
    }
    ring.publish(pos);
    if let Some(ahead) = ring.free_ahead(pos, PREFETCH_SLOTS) {
        prefetch_for_write(ring.slot(ahead));
    }
    // ... and after: a remote release may have raced with the publish (see
    // `gate`: this compiler barrier plus the releaser's membarrier order the
    // publish before this load, or the releaser sees the publish)
    compiler_fence(Ordering::SeqCst);
    client.hold.ensure(gate::add_hold, gate::sub_hold);
    drop(submitting);
    // io_uring's need_wakeup pattern, without the store-load fence: see the
    // park in `service_main` for why a rare missed wake-up is harmless.
    if SLEEPING.load(Ordering::Relaxed) != 0 {
        wake_service();
    }
    TaskRef { client: client.idx, pos }.handle()
}

/// A submit made while this thread is inside the runtime (an interposed
/// `memcpy` the runtime calls, or a signal handler that interrupted a
/// runtime call on this thread): copy here with no lock and no queue, then
/// run the completion handler, still marked inside the runtime so that its
/// own submits are plain copies too (the interrupted frame may be halfway
/// through a submit into this thread's queue). Such a copy is not ordered
/// after copies the interrupted code has pending (it cannot wait for them:
/// the interrupted frame may hold the locks a wait takes).
///
/// # Safety
/// As [`submit`].
#[cold]
pub(crate) unsafe fn nested_copy(dst: *mut u8, src: *const u8, n: usize, handler: usize, arg: usize) {
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    if handler != 0 {
        invoke_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
    }
}

/// How many slots ahead a submit prefetches the slot a later submit fills.
pub(crate) const PREFETCH_SLOTS: u64 = 16;

/// Ask for the two cache lines a submit writes in `e` (see [`Entry`]) in
/// exclusive state, ahead of the submit that fills it: the executors wrote
/// them last (completion, retirement), so that submit would otherwise wait
/// for them to cross cores (~55 ns here between the two cores of one L3,
/// more across L3 domains). Only free slots are prefetched
/// ([`Ring::free_ahead`]), so no executor still works on the lines.
#[inline(always)]
pub(crate) fn prefetch_for_write(e: &Entry) {
    #[cfg(target_arch = "x86_64")]
    {
        let p = (e as *const Entry).cast::<u8>();
        // SAFETY: a prefetch is a hint that never faults and changes no
        // state the program sees; `prefetchw` is a NOP on x86-64 CPUs
        // without it (Intel SDM, "PREFETCHW"); both addresses lie in `e`.
        unsafe {
            core::arch::asm!("prefetchw [{0}]", "prefetchw [{0} + 64]", in(reg) p, options(nostack, preserves_flags, readonly));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = e;
}

/// A submit between its fork check and its publish: `client.submitting` is
/// 1 for the guard's life (see [`fork_prepare`]).
pub(crate) struct Submitting<'a>(&'a Client);

impl<'a> Submitting<'a> {
    /// Announce the submit, then look for a fork being prepared: `None`
    /// while one is (the copy must then be synchronous). The handshake
    /// with `fork_prepare` is [`fork_guard`](crate::fork_guard).
    #[inline]
    fn enter(c: &'a Client) -> Option<Self> {
        if fork_guard::enter_submit(&c.submitting, &FORKING, gate::barrier::registered()) {
            Some(Submitting(c))
        } else {
            None
        }
    }
}

impl Drop for Submitting<'_> {
    fn drop(&mut self) {
        fork_guard::leave_submit(&self.0.submitting);
    }
}

/// Inline copy of a submit without handler, off the entry points' fast
/// path (which `gate` closes while statistics are on, hooks are registered,
/// or some copy may be pending): below the threshold and with nothing
/// pending that it could conflict with (nothing pending at all, or no task
/// of the caller's own queue touching either range: `own_clear`), copy
/// here — no blocking lock, no allocation, so no re-entrancy concern
/// either — and count it. Returns false when the full submit path must
/// run. The caller has called the submit hook.
///
/// # Safety
/// As [`submit`].
#[inline(always)]
pub unsafe fn copy_inline(dst: *mut u8, src: *const u8, n: usize) -> bool {
    if n >= config::get(&opt::threshold)
        || !(gate::no_holds() || inline_slow_check() || own_clear(dst as usize, src as usize, n))
    {
        return false;
    }
    #[cfg(target_arch = "x86_64")]
    if n <= 32 {
        // SAFETY: at most 32 bytes, overlap-safe (caller contract).
        unsafe { engine::arch::x86_64::copy_le32(dst, src, n) };
        count_inline();
        return true;
    }
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    count_inline();
    true
}

/// The gate is held: release the caller's own hold if its queue drained,
/// then look at every queue.
#[cold]
pub(crate) fn inline_slow_check() -> bool {
    release_own();
    gate::no_holds() || nothing_pending()
}

#[inline(always)]
pub(crate) fn count_inline() {
    let c = LOCAL.try_with(|l| l.client.get()).unwrap_or(core::ptr::null());
    if c.is_null() {
        count_inline_slow();
    } else {
        // SAFETY: leaked client; only its own thread writes `inline`.
        let c = unsafe { &*c };
        c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }
}

#[cold]
pub(crate) fn count_inline_slow() {
    match local_client() {
        Some(c) => c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed),
        None => {
            COUNTERS.inline.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A full queue whose complete tasks wait for the service to retire them
/// (`retire`): retire them here and reserve again, rather than copy
/// synchronously. Inside `Busy`: a signal handler's copy meanwhile must
/// not wait for the lock this thread holds.
#[cold]
fn retire_left_and_reserve(ring: &Ring<Entry>) -> Option<u64> {
    if !super::retire::requested() {
        return None;
    }
    let _busy = Busy::enter()?;
    super::retire::sweep_now();
    ring.reserve()
}

/// Synchronous copy (inline, full queue, service unavailable): wait for
/// pending copies that write or read `dst` or write `src`, then copy here.
///
/// # Safety
/// As [`submit`].
pub(crate) unsafe fn sync_copy(dst: *mut u8, src: *const u8, n: usize, handler: usize, arg: usize, client: Option<&Client>) {
    if !nothing_pending() {
        wait_ranges(&[(dst as usize, n, false), (src as usize, n, true)], false);
        if handler != 0 {
            // the handler may free the source: as for a queued copy
            // (`advance_tail`), every earlier copy of this thread completes
            // first
            if let Some(c) = client {
                if let Some(_busy) = Busy::enter() {
                    drive_pending_of(Some(c.idx as usize));
                }
            }
        }
    }
    // SAFETY: caller contract; overlap-safe.
    unsafe { engine::move_bytes(dst, src, n) };
    match client {
        Some(c) => c.inline.store(c.inline.load(Ordering::Relaxed) + 1, Ordering::Relaxed),
        None => {
            COUNTERS.inline.fetch_add(1, Ordering::Relaxed);
        }
    }
    if handler != 0 {
        call_handler(HandlerTask { f: handler, arg, dst: dst as usize, src: src as usize, len: n });
    }
}

