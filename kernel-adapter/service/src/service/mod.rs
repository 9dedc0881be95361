//! The in-process copy service: clients and their copy queues, the tracker
//! lock, executors (service thread and helping `csync` callers), the service
//! thread's scheduling loop, and the `csync` family.
//!
//! # Paths
//! * **fast path** (in the C entry points, `gate`): one load proves that no
//!   copy is pending anywhere and the copy is below the threshold; then the
//!   copy runs with the instructions of glibc's `memcpy` (or jumps to it).
//! * **submit** (`amemcpy`): hooks; below the threshold, or when the service
//!   is unavailable or the queue full, a synchronous copy after waiting for
//!   pending conflicting copies; otherwise the caller fills the next slot of
//!   its own ring and publishes it — no lock, no shared counter. A parked
//!   service thread is woken (one futex call, only when it sleeps).
//! * **ingest**: the tracker-lock holder (service thread, or a `csync` caller
//!   that drains every ring first so it sees every earlier submission) moves
//!   published tasks into the tracker (`tracker::Tracker::ingest`).
//! * **execute**: executors claim segments (`desc`), check their edges, copy,
//!   and mark them done; the completer of the last segment retires the task
//!   and queues its completion handler (a waiter leaves a task without
//!   handler to the running service, [`retire`]).
//! * **csync**: a lock-free check that nothing is pending anywhere (the
//!   gate's holds count, then per-client `head == tail`); otherwise ingest, find the segments covering the range,
//!   push them to the sync queue (promotion), and help: claim and execute
//!   unclaimed segments (dependencies first), spin briefly then park on the
//!   completion epoch for segments other executors hold.
//!
//! Modules: [`submit`], [`exec`] (executors), [`handlers`] (completion
//! handlers), [`thread`] (the service thread), [`csync`] (and its
//! [`own_index`]), [`placement`] (the service thread's CPU), [`retire`], [`fork`],
//! [`lazy`] (`copier_drop`).

pub mod absorb_io;
mod csync;
mod exec;
mod fork;
mod handlers;
mod lazy;
mod own_index;
mod placement;
mod retire;
mod submit;
mod thread;

pub use crate::clients::{nothing_pending, MAX_CLIENTS};
pub use csync::{csync, csync_all, csync_ready_end, query_handle, wait_handle};
pub use fork::{fork_child, fork_parent, fork_prepare};
pub use lazy::discard;
pub use submit::{copy_inline, submit, submit_desc};
pub use retire::retirements_left;
pub use thread::{kill_service, service_running};

use crate::clients::{client_at, ring_of, NCLIENTS};
use crate::progress::wait_until;
use crate::tracker::TRACKER;
use core::sync::atomic::Ordering;

/// For tests: number of runs in the tracker's index (0 when nothing is
/// pending and every task retired).
pub fn index_len() -> usize {
    TRACKER.lock().map.len()
}

/// For tests: work the tracker's index did retiring tasks so far (runs
/// visited plus reader entries examined, see `RangeMap::work`).
pub fn index_work() -> u64 {
    TRACKER.lock().map.work()
}

/// For tests: wait until every queued task is retired (after `csync_all`
/// the last retirements may still be running on another executor).
pub fn quiesce() {
    csync_all();
    wait_until(nothing_pending);
}

/// For tests: a description of every task not retired yet.
pub fn debug_pending() -> String {
    let mut s = String::new();
    for i in 0..NCLIENTS.load(Ordering::Acquire) {
        let Some(r) = client_at(i).and_then(ring_of) else { continue };
        s += &format!("client {i}: tail {} ingested {} head {}\n", r.tail(), r.ingested(), r.head());
        for p in r.tail()..r.head() {
            let e = r.slot(p);
            let d = &e.desc;
            s += &format!(
                "  pos {p} slotpos {} flags {:#x} uflags {:#x} nsegs {} prefix {} first_undone {:?} dst {:#x} src {:#x} len {}\n",
                d.pos(), d.flags(), e.flags.load(Ordering::Relaxed), d.nsegs(), d.prefix(), d.first_undone(0, d.nsegs()), e.dst(), e.src(), e.len()
            );
        }
    }
    s
}

