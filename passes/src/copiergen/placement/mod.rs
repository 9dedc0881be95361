//! csync placement: a forward dataflow of pending copies over the CFG.
//!
//! State at a program point: the set of candidate copies that **may** still
//! be pending there (a may-analysis: union at merges). A copy becomes
//! pending at its call and stops being pending at a whole-copy sync. A
//! narrow sync (`csync(ptr, size)` of one access) leaves the copy pending for
//! its other bytes. The fixed point is computed over the blocks reachable
//! from the entry, in reverse post-order, following every CFG edge
//! (including `invoke` unwind edges, so landing pads see what may be pending
//! when the callee throws); irreducible cycles need no special case.
//!
//! Every sync is placed immediately before the instruction that needs it, on
//! exactly the paths where the copy may be pending: as late as the analysis
//! allows, and always reached before the access it protects. On a path where
//! the copy did not run, the sync covers an empty range (a no-op).
//!
//! [`dataflow`] computes the [`Plan`] (with ready ranges over bit sets
//! of pending copies); [`window_cost`] reads it to decide which
//! copies nothing would overlap.

mod bitset;
pub mod dataflow;
mod fast_map;
pub mod plan;
mod ready;
pub mod window_cost;

pub use dataflow::{plan, reverse_post_order, OverBudget};
pub use plan::{PendingCopy, Plan, SyncPoint, SyncRange};
pub use window_cost::{work_before_sync, QuickSync};
