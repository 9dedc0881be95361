//! Copier's service side (DESIGN.md "kernel-adapter"): copy queues,
//! descriptors, the dependency tracker with copy absorption and lazy-copy
//! dropping, the scheduler, the copy engines and fault handling, hosted by an
//! in-process service thread.
//!
//! `libcopier` (crate `copier`) is the client library on top: it exposes the
//! C ABI and the safe Rust API and calls [`service`].
//!
//! Module map: [`ring`] (per-thread copy queue), [`desc`] (segment
//! completion protocol), [`tracker`] (dependencies, absorption, lazy drop),
//! [`service`] (clients, executors, service thread, csync), [`gate`] (the
//! inline fast path's one-load proof that nothing is pending), [`engine`]
//! (CPU copy engines), [`fault`] (recovering faults of asynchronous copies),
//! [`config`] (`COPIER_OPTIONS`), [`stats`] (`COPIER_STATS`), [`hooks`]
//! (sanitizer callbacks), [`sys`] (futex, clock), [`watch`] (a change
//! count with one-load checks).

#[cfg(not(loom))]
mod layout;
pub(crate) mod primitive;
pub mod desc;
pub mod gate;
pub mod ring;
pub mod watch;

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
pub mod progress;
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
