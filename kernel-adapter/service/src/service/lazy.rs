//! `copier_drop`: discard a range, dropping the lazy copies that only
//! write it (issue 10; the rule is
//! [`Tracker::drop_discarded`](crate::tracker::Tracker::drop_discarded)'s,
//! in `tracker::lazy`).

use super::csync::csync;
use super::exec::settle_abandoned_replay;
use crate::clients::{nothing_pending, Busy};
use crate::gate;
use crate::tracker::TRACKER;

/// `copier_drop(addr, n)`: the program will not read `[addr, addr + n)`
/// again before writing it (it is about to free it, or its lifetime ends).
/// Pending lazy copies that only write bytes of the range and that no
/// later copy reads are dropped unexecuted (`lazy_dropped`); then, as
/// `csync(addr, n)`, return once no copy writes or reads a byte of the
/// range (the sanitizer sees a `csync`). Nested inside the runtime (a
/// signal handler that interrupted it), only the `csync`.
pub fn discard(addr: usize, n: usize) {
    if n != 0 && !gate::no_holds() && !nothing_pending() {
        settle_abandoned_replay();
        if let Some(_busy) = Busy::enter() {
            let mut g = TRACKER.lock();
            g.ingest_all();
            g.drop_discarded(addr, addr.saturating_add(n));
        }
    }
    csync(addr, n);
}
