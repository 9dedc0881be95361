//! The glue to libcopier: the sanitizer registers a `copier::hooks::Hooks`
//! table, so every submit, sync and completion handler of the runtime drives
//! the tracker (shadow state is driven by these program events only, never
//! by when the service completes a copy).
//!
//! Async-signal safety: a hook called while its thread is inside the
//! sanitizer or the program's allocator ([`thread::in_runtime`]: a signal
//! handler interrupted it) takes no lock and allocates nothing; it queues
//! its event for the tracker ([`crate::deferred`]).

use std::cell::Cell;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};

use copier::hooks::{set_hooks, Hooks};

use crate::shadow::{self, RealShadow, ShadowMem, ALL_BITS};
use crate::thread::{self, RuntimeGuard};
use crate::tracker::Origin;
use crate::deferred::{self, Event, LOG};
use crate::{flags, lock_tracker, stack, LIVE};

static HOOKS: Hooks = Hooks {
    on_submit: Some(on_submit),
    on_handle: Some(on_handle),
    on_sync: Some(on_sync),
    on_wait: Some(on_wait),
    on_submitted: Some(on_submitted),
    on_sync_all_begin: Some(on_sync_all_begin),
    on_sync_all: Some(on_sync_all),
    on_handler_enter: Some(on_handler_enter),
    on_handler_exit: Some(on_handler_exit),
};

/// Register the hooks with the runtime.
pub fn register() {
    set_hooks(&HOOKS);
}

thread_local! {
    /// `(dst, src, len)` of the copy CopierGen's code is about to submit on
    /// this thread ([`expect_copiergen_submit`]).
    static COPIERGEN_NEXT: Cell<(usize, usize, usize)> = const { Cell::new((0, 0, 0)) };
}

/// The next submit of this thread, if it is `(dst, src, len)`, is a copy
/// CopierGen made ([`crate::tracker::Origin::CopierGen`]); called by the
/// check instrumented code runs right before the pass's submit call. The
/// submit consumes it; any other submit on the thread clears it, so one
/// that did not reach the runtime (a site running its copies inline)
/// cannot mislabel a later one.
pub fn expect_copiergen_submit(dst: usize, src: usize, len: usize) {
    let _ = COPIERGEN_NEXT.try_with(|c| c.set((dst, src, len)));
}

fn origin_of(dst: usize, src: usize, len: usize) -> Origin {
    match COPIERGEN_NEXT.try_with(|c| c.replace((0, 0, 0))) {
        Ok(next) if next == (dst, src, len) && len != 0 => Origin::CopierGen,
        _ => Origin::Program,
    }
}

/// The number the next tracked copy gets (`copy #1`, `#2`, … in submit
/// order): numbered at the submit, so a copy whose submit is queued
/// ([`crate::deferred`]) keeps its place.
static NEXT_COPY: AtomicU64 = AtomicU64::new(1);

/// True if a copy of `len` bytes from `src` to `dst` with `flags` is a
/// `memcpy-param-overlap`. `dst == src` is exempt, as ASan exempts
/// `memcpy(p, p, n)`: compilers emit it for a struct assigned to itself,
/// and CopierGen may rewrite that.
pub(crate) fn overlaps(dst: usize, src: usize, len: usize, flags: u32) -> bool {
    flags & copier_abi::COPIER_MOVE == 0 && dst != src && dst < src.wrapping_add(len) && src < dst.wrapping_add(len)
}

/// Returns the copy's id (0 when it is not tracked), which `on_handle`
/// binds to its descriptor.
fn on_submit(dst: usize, src: usize, len: usize, flags: u32) -> u64 {
    let origin = origin_of(dst, src, len);
    if len == 0 {
        return 0;
    }
    SUBMITS.fetch_add(1, Relaxed);
    // (the tracker takes only copies whose ranges have shadow)
    let tracked = RealShadow.covers(dst, len) && RealShadow.covers(src, len);
    let id = if tracked { NEXT_COPY.fetch_add(1, Relaxed) } else { NEXT_COPY.load(Relaxed) };
    if thread::in_runtime() {
        // a signal handler interrupted the sanitizer or malloc
        return if tracked { deferred::submit(id, dst, src, len, flags, origin) } else { 0 };
    }
    let _g = RuntimeGuard::enter();
    let stack = stack::capture(flags::get().copy_stack_depth);
    let tid = thread::current();
    if overlaps(dst, src, len, flags) {
        // CopierGen's copy stands for the program's memcpy: named so
        let call = (origin == Origin::CopierGen).then_some("memcpy");
        crate::report::overlap(dst, src, len, flags, id, tid, stack.clone(), call);
    }
    if !tracked {
        return 0;
    }
    let mut t = lock_tracker();
    let id = t.submit_as(id, dst, src, len, flags, tid, stack, origin);
    crate::publish(&t);
    id.unwrap_or(0)
}

/// `copier_submit` returned descriptor `handle` for copy `copy`: a
/// `copier_wait` of it, from any thread, names that copy ([`on_wait`]).
fn on_handle(copy: u64, handle: u64) {
    if LIVE.load(Relaxed) == 0 {
        return;
    }
    if thread::in_runtime() {
        LOG.record(Event::Handle { copy, handle });
        return;
    }
    let _g = RuntimeGuard::enter();
    lock_tracker().bind_handle(copy, handle);
}

/// Submits seen so far (incremented before the tracker or its queue takes
/// the copy): a range that libcopier found complete stays complete while
/// this is unchanged.
static SUBMITS: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// `(addr, len)` of the `csync` that [`wait_unsynced`] is making on this
    /// thread: its sync event does not drive the tracker.
    static UNSYNCED_WAIT: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
}

extern "C" {
    /// libcopier's `csync` (runtime/include/copier.h), by its reserved
    /// symbol: a program's own `csync` must not take the call.
    #[link_name = "__copier_csync"]
    fn csync(addr: *const core::ffi::c_void, n: usize);
    /// libcopier's `csync_ready_end`, by its reserved symbol.
    #[link_name = "__copier_csync_ready_end"]
    fn csync_ready_end(addr: *const core::ffi::c_void, n: usize) -> *const core::ffi::c_void;
}

/// Wait until no copy writes or reads `[addr, addr + len)` any more,
/// without telling the tracker: the copies stay pending for the program
/// (reports still follow program events only), but can no longer change
/// those bytes. Used where the sanitizer must keep a copy from landing in
/// stack memory that dies before the check that reports it can run (a
/// C++ exception unwinding to its handler).
pub fn wait_unsynced(addr: usize, len: usize) {
    let outer = UNSYNCED_WAIT.try_with(|w| w.replace(Some((addr, len)))).unwrap_or(None);
    // SAFETY: csync only waits; any range is valid.
    unsafe { csync(addr as *const core::ffi::c_void, len) };
    let _ = UNSYNCED_WAIT.try_with(|w| w.set(outer));
}

/// True (once) for the sync event of [`wait_unsynced`]'s own `csync`:
/// libcopier's `csync(addr, len)` reports exactly `(addr, len)` once. Any
/// other event meanwhile (a completion handler's or a signal handler's
/// csync, wait or csync_all) drives the tracker; were a handler's csync of
/// the very same range taken for the wait's, the wait's own event is
/// applied in its place, to the same effect.
fn unsynced_wait(addr: usize, len: usize) -> bool {
    UNSYNCED_WAIT
        .try_with(|w| {
            let own = w.get() == Some((addr, len));
            if own {
                w.set(None);
            }
            own
        })
        .unwrap_or(false)
}

fn on_sync(addr: usize, len: usize) {
    // A range with no pending bit holds no pending byte of any copy (the
    // shadow is the union of the copies' pending bytes): nothing to release,
    // no lock taken. (A range reaching outside the shadow, e.g. a csync of
    // everything, takes the tracker's path.)
    if unsynced_wait(addr, len) || LIVE.load(Relaxed) == 0 || (RealShadow.covers(addr, len) && !shadow::any(&RealShadow, addr, len, ALL_BITS)) {
        return;
    }
    if thread::in_runtime() {
        LOG.record(Event::Sync { addr, len, thread: thread::current(), every: thread::in_handler() });
        return;
    }
    let _g = RuntimeGuard::enter();
    let mut t = lock_tracker();
    sync_own(&mut t, addr, len);
    crate::publish(&t);
}

/// `copier_wait(handle, offset, len)` returned 0 (on any thread, also
/// for a slot the runtime reused): bytes `[offset, offset + len)` of that
/// descriptor's copy are complete. Only that copy's bytes are released
/// ([`crate::tracker::Tracker::wait`]); another copy into the same bytes
/// stays pending.
fn on_wait(handle: u64, offset: usize, len: usize) {
    if LIVE.load(Relaxed) == 0 {
        return;
    }
    if thread::in_runtime() {
        LOG.record(Event::Wait { handle, offset, len });
        return;
    }
    let _g = RuntimeGuard::enter();
    let mut t = lock_tracker();
    if t.wait(handle, offset, len) {
        crate::publish(&t);
    }
}

/// What a `csync(addr, len)` of this thread completes: its own copies'
/// bytes (libcopier's csync waits for no other thread's copy). Inside a
/// completion handler, every copy's, as before handlers had threads.
fn sync_own(t: &mut crate::tracker::Tracker<RealShadow>, addr: usize, len: usize) {
    if thread::in_handler() {
        t.sync(addr, len);
    } else {
        t.sync_thread(addr, len, thread::current());
    }
}

/// Longest ready window (bytes) an instrumented `csync_ready_end` returns
/// for a request that does not continue a walk; see
/// [`crate::tracker::Tracker::ready_window`].
pub const READY_WINDOW: usize = 256;

/// Longest window of a walk: a request within [`WALK_GAP`] bytes after the
/// end of this thread's previous syncing window gets twice that window's
/// length, up to this; any other request starts again at
/// [`READY_WINDOW`]. Requests that sync nothing (inside bytes already
/// complete) neither grow nor end a walk. A front-to-back parse of a pending copy then asks
/// once per 4 KiB instead of once per 256 bytes. A function of the
/// thread's requests, so reports stay deterministic.
pub const READY_WINDOW_WALK: usize = 4096;

/// Bytes a walk's next request may start past the previous window's end
/// (a strided walk, `i += 7`).
pub const WALK_GAP: usize = 64;

/// Bytes past a window that [`ready_end`] waits for in one libcopier call
/// (without telling the tracker), so that the windows of a front-to-back
/// walk call libcopier once per this many bytes, not once per window.
pub const READY_AHEAD: usize = 16 * 1024;

thread_local! {
    /// `(start, end, submits)`: this thread's last libcopier wait made
    /// `[start, end)` complete when [`SUBMITS`] was `submits`.
    static COMPLETE: Cell<(usize, usize, u64)> = const { Cell::new((0, 0, u64::MAX)) };
    /// `(end, length)` of this thread's previous ready window.
    static WALK: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The window length for a request at `addr` (see [`READY_WINDOW_WALK`]).
fn walk_window(addr: usize) -> usize {
    let (end, len) = WALK.try_with(Cell::get).unwrap_or((0, 0));
    if len != 0 && addr >= end && addr - end < WALK_GAP {
        (len * 2).min(READY_WINDOW_WALK)
    } else {
        READY_WINDOW
    }
}

/// The ready window of an instrumented `csync_ready_end(addr, n)` (`n > 0`):
/// syncs `[addr, sync_end)` for the tracker exactly as a `csync` there
/// would (see [`crate::tracker::Tracker::ready_window`] for the window and
/// its sync range, with the length of [`walk_window`]) and returns the
/// window's end: `usize::MAX` only when nothing is pending, else at most
/// `copier_abi::symbols::READY_END_ABOVE` (all-ones tells CopierGen's guards that the window is
/// open below `addr` too, as libcopier's `csync_ready_end` says it). The bytes are made complete through libcopier, which is
/// asked for up to [`READY_AHEAD`] bytes more of the same buffers at a time
/// (the tracker's window rules with that length) and skipped while an
/// earlier wait of this thread covers the sync range and no copy was
/// submitted since. Reports see only the tracker's events, which are the
/// same as with one libcopier call per window.
pub fn ready_end(addr: usize, n: usize) -> usize {
    if LIVE.load(Relaxed) == 0 {
        return usize::MAX;
    }
    if thread::in_runtime() {
        // a signal handler that interrupted the sanitizer or malloc: no
        // lock here; libcopier's window (exactly `[addr, addr + n)` under a
        // checker), whose sync event is queued ([`on_sync`])
        // SAFETY: csync_ready_end only waits; any range is valid.
        return unsafe { csync_ready_end(addr as *const core::ffi::c_void, n) } as usize;
    }
    let want = addr.saturating_add(n);
    let _g = RuntimeGuard::enter();
    let (end, sync_end, ahead) = {
        let t = lock_tracker();
        let max = walk_window(addr);
        let (end, sync_end) = t.ready_window(addr, want, max);
        // Only a window that synced pending bytes continues a walk; a
        // request that met none (a second window test of the same parse,
        // at a field start behind the walk) leaves it as it was.
        if sync_end > want {
            let _ = WALK.try_with(|w| w.set((end, max)));
        }
        let done = COMPLETE.try_with(Cell::get).ok().is_some_and(|(a, b, k)| k == SUBMITS.load(Relaxed) && a <= addr && sync_end <= b);
        let ahead = (!done).then(|| (t.ready_window(addr, want, READY_AHEAD).1.max(sync_end), SUBMITS.load(Relaxed)));
        (end, sync_end, ahead)
    };
    if let Some((ahead_end, submits)) = ahead {
        // Outside the lock: the service's engines take it (interceptors).
        wait_unsynced(addr, ahead_end - addr);
        let _ = COMPLETE.try_with(|c| c.set((addr, ahead_end, submits)));
    }
    let mut t = lock_tracker();
    sync_own(&mut t, addr, sync_end - addr);
    crate::publish(&t);
    // (pending copies may lie below `addr`: never all-ones here)
    end.min(copier_abi::symbols::READY_END_ABOVE)
}

/// Places of libcopier's submit returns ([`on_submitted`]), in order.
static PUBLISHED_SEQ: AtomicU64 = AtomicU64::new(0);

/// The next publication place (under the tracker lock).
pub(crate) fn next_published() -> u64 {
    PUBLISHED_SEQ.fetch_add(1, AcqRel) + 1
}

fn on_submitted(copy: u64) {
    if LIVE.load(Relaxed) == 0 {
        return;
    }
    if thread::in_runtime() {
        LOG.record(Event::Published { copy });
        return;
    }
    let _g = RuntimeGuard::enter();
    let mut t = lock_tracker();
    let seq = next_published();
    t.mark_published(copy, seq);
}

thread_local! {
    /// The publication places at which this thread's `csync_all`s began,
    /// innermost last (a completion or signal handler's `csync_all` nests).
    static SYNC_ALL_BEGAN: Cell<([u64; 8], usize)> = const { Cell::new(([0; 8], 0)) };
}

fn on_sync_all_begin() {
    let token = PUBLISHED_SEQ.load(Acquire);
    let _ = SYNC_ALL_BEGAN.try_with(|c| {
        let (mut v, n) = c.get();
        if n < v.len() {
            v[n] = token;
        }
        c.set((v, n + 1));
    });
}

fn on_sync_all() {
    // (0 when the begin was not seen: release nothing, stay conservative)
    let token = SYNC_ALL_BEGAN
        .try_with(|c| {
            let (v, n) = c.get();
            if n == 0 {
                return 0;
            }
            c.set((v, n - 1));
            if n <= v.len() { v[n - 1] } else { 0 }
        })
        .unwrap_or(0);
    if LIVE.load(Relaxed) == 0 {
        return;
    }
    if thread::in_runtime() {
        LOG.record(Event::SyncAll { upto: token });
        return;
    }
    let _g = RuntimeGuard::enter();
    let mut t = lock_tracker();
    t.sync_all_upto(token);
    crate::publish(&t);
}

fn on_handler_enter(dst: usize, src: usize, len: usize) {
    thread::handler_enter(dst, src, len);
}

fn on_handler_exit() {
    thread::handler_exit();
}

/// The runtime's own `COPIER_OPTIONS` names (accepted, left to it).
pub fn runtime_option_names() -> Vec<&'static str> {
    copier::options::TABLE.iter().map(|t| t.0).collect()
}
