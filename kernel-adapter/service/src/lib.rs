//! Copier's service side (DESIGN.md "kernel-adapter"): copy queues,
//! descriptors, the dependency tracker with copy absorption and lazy-copy
//! dropping, the scheduler, the copy engines and fault handling, hosted by an
//! in-process service thread.
//!
//! `libcopier` (crate `copier`) is the client library on top: it exposes the
//! C ABI and the safe Rust API and calls [`service`].
//!
//! Module map, each module using only those before it: [`primitive`]
//! (atomics, loom-swappable), [`sys`] (futex, clock), [`engine`] (CPU copy
//! engines); [`desc`] (segment completion protocol), [`ring`] (per-thread
//! copy queue), [`gate`] (the inline fast path's one-load proof that
//! nothing is pending), [`watch`] (a change count with one-load checks),
//! [`fork_guard`] (the submit/fork handshake); [`config`]
//! (`COPIER_OPTIONS`), [`hooks`] (sanitizer callbacks), [`fault`]
//! (recovering faults of asynchronous copies); [`task`] (a task's slot and
//! names), [`clients`] (threads and their rings), [`progress`] (waiters
//! and their wake-ups), [`stats`] (`COPIER_STATS`); [`tracker`]
//! (dependencies, absorption, lazy drop); [`service`] (submit, executors,
//! handlers, service thread, csync, fork); [`backend`] (the choice between
//! it and the host's `/dev/copier`, and the kernel backend).

#[cfg(not(loom))]
mod layout;
pub(crate) mod primitive;
pub mod progress;
pub mod desc;
pub(crate) mod fork_guard;
pub(crate) mod handoff;
pub mod gate;
pub mod ring;
pub mod watch;

pub mod backend;
#[cfg(not(loom))]
pub mod clients;
#[cfg(not(loom))]
pub mod config;
#[cfg(not(loom))]
pub mod engine;
#[cfg(not(loom))]
pub mod fault;
#[cfg(not(loom))]
pub mod hooks;
#[cfg(not(loom))]
pub mod service;
#[cfg(not(loom))]
pub mod stats;
#[cfg(not(loom))]
pub mod sys;
#[cfg(not(loom))]
pub mod task;
#[cfg(not(loom))]
pub mod tracker;
