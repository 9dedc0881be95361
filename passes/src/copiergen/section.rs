//! Where the functions the pass adds go in the object file.
//!
//! The unguarded copies ([`super::dispatch`]) and the `csync_ready_end`
//! forwarder are new code. Left in `.text`, or in a `.text.*` section that
//! the linkers' default layout merges in input order (GNU ld's `*(.text
//! .text.*)`, lld without `-z keep-text-section-prefix`), each object's new
//! functions move every function of the objects after it, so code the pass
//! did not change starts at other offsets modulo the cache line than in a
//! build without the pass, and timings of unchanged loops move with that
//! placement. In a section of their own whose name neither default layout
//! matches, both linkers place them after all of `.text` (an orphan section
//! of the same flags), and the added functions move nothing. What still
//! moves unchanged code is the growth (guards) of the functions the pass
//! changed, for what follows them in `.text`.
//!
//! One section per module, not per function: under `-ffunction-sections`
//! `--gc-sections` keeps or drops the module's added functions together.

use crate::ir;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use std::ffi::CStr;

/// The section of the functions the pass adds. Not `.text.copier*`: that
/// prefix marks the runtime's own code, which both passes leave alone.
pub const ADDED_CODE: &CStr = c".copiergen.text";

/// Puts `function`, which the pass added, into [`ADDED_CODE`], unless the
/// program chose a section for it (a clone keeps its original's). The pass
/// only runs on ELF targets (x86-64 Linux), where any section name is valid.
pub fn place_added(function: LLVMValueRef) {
    if ir::section(function).is_none() {
        ir::set_section(function, ADDED_CODE);
    }
}
