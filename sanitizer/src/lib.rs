//! CopierSanitizer runtime: shadow memory that catches any use of a buffer
//! before its `csync` (issue 4).
#![allow(clippy::missing_safety_doc)]

pub mod mapping;
pub mod ranges;
pub mod shadow;
pub mod tracker;
