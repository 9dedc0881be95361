//! Signal handlers and the functions they call: their copies stay `memcpy`.
//!
//! POSIX lists `memcpy` and `memmove` among the async-signal-safe functions
//! (added in POSIX.1-2008 TC2; Linux man page signal-safety(7));
//! `amemcpy` and `csync` are not: libcopier takes its own locks and may
//! call `malloc`, so a handler that interrupted `malloc` on its thread would
//! wait forever for glibc's arena lock. A program with a `memcpy` in a
//! signal handler must therefore keep it.
//!
//! The rule, per module (the pass sees one module; what other modules do is
//! unknown):
//! - A *signal installer* is a call to `signal`, `ssignal`, `sysv_signal`,
//!   `__sysv_signal`, `bsd_signal`, `sigset`, `sigaction`, `__sigaction` or
//!   `__libc_sigaction`. A function is a *direct installer* when it calls
//!   one, an *installer* when it reaches one along direct calls of the
//!   module.
//! - A function is a *signal handler* when its address flows (through
//!   casts, GEPs, selects, phis, aggregates, constant expressions, global
//!   initializers, loads from globals it was stored in, parameters of the
//!   module's functions, return values) into an argument of an installer
//!   call, into a store or any call argument in a direct installer (a
//!   `struct sigaction` filled there, a wrapper from another module), into
//!   a store in any installer (a `struct sigaction` handed to a wrapper
//!   that calls `sigaction`), or into an argument of a call to an
//!   installer defined in the module. Arguments of calls to
//!   [`NOT_INSTALLERS`] (`pthread_create`, `qsort`, ...) in a direct
//!   installer do not count: those never make their callback a handler.
//!   The rule errs towards handlers: a missed rewrite costs speed, a
//!   rewritten handler copy can hang.
//! - The *signal context* is the handlers plus every function of the module
//!   they reach along direct calls. Indirect calls are unknown: a function
//!   a handler calls through a pointer is not found.
//!
//! Limits: a handler installed by another module (its address escapes to a
//! wrapper defined elsewhere from a function that calls no installer), one
//! installed through a pointer to `sigaction`, or a function a handler calls
//! through a pointer or from another module, is not found.

use crate::ir::{self, ValueClass};
use inkwell::llvm_sys::LLVMOpcode;
use inkwell::llvm_sys::prelude::LLVMValueRef;
use std::collections::{HashMap, HashSet, VecDeque};

/// Functions that make a function address a signal handler: `signal(2)`,
/// `sigaction(2)`, `sigset(3)`, `bsd_signal`, `sysv_signal`, `ssignal(3)`
/// and glibc's internal names.
pub const INSTALLERS: [&str; 9] =
    ["signal", "ssignal", "sysv_signal", "__sysv_signal", "bsd_signal", "sigset", "sigaction", "__sigaction", "__libc_sigaction"];

/// C library functions that take a callback and never install it as a
/// signal handler: passing a function to them in a direct installer does
/// not make it a handler.
pub const NOT_INSTALLERS: [&str; 4] = ["pthread_create", "qsort", "qsort_r", "bsearch"];

/// Functions of the module that may run in a signal handler, each with the
/// name of a handler it runs in (itself for a handler).
pub fn signal_context(definitions: &[LLVMValueRef]) -> HashMap<LLVMValueRef, String> {
    let defined: HashSet<LLVMValueRef> = definitions.iter().copied().collect();
    let calls_of = |f: LLVMValueRef| ir::blocks(f).flat_map(ir::instructions).filter(|&i| ir::is_call(i));
    let direct: HashSet<LLVMValueRef> = definitions
        .iter()
        .copied()
        .filter(|&f| calls_of(f).any(|c| ir::called_function(c).is_some_and(is_installer)))
        .collect();
    if direct.is_empty() {
        return HashMap::new();
    }
    // Installers: functions that reach a direct installer along direct
    // calls (reverse closure of the module call graph).
    let mut callers: HashMap<LLVMValueRef, Vec<LLVMValueRef>> = HashMap::new();
    for &f in definitions {
        for c in calls_of(f) {
            if let Some(g) = ir::called_function(c).filter(|g| defined.contains(g)) {
                callers.entry(g).or_default().push(f);
            }
        }
    }
    let mut installers = direct.clone();
    let mut work: Vec<LLVMValueRef> = direct.iter().copied().collect();
    while let Some(g) = work.pop() {
        for &f in callers.get(&g).map(Vec::as_slice).unwrap_or_default() {
            if installers.insert(f) {
                work.push(f);
            }
        }
    }
    let flow = Flow { direct: &direct, installers: &installers };
    // Handlers, then what they call (breadth first: the handler named is a
    // nearest one).
    let mut context: HashMap<LLVMValueRef, String> = HashMap::new();
    let mut queue = VecDeque::new();
    for &f in definitions {
        if flow.is_handler(f) {
            context.insert(f, ir::name(f));
            queue.push_back(f);
        }
    }
    while let Some(f) = queue.pop_front() {
        let handler = context[&f].clone();
        for c in calls_of(f) {
            if let Some(g) = ir::called_function(c).filter(|g| defined.contains(g)) {
                if let std::collections::hash_map::Entry::Vacant(e) = context.entry(g) {
                    e.insert(handler.clone());
                    queue.push_back(g);
                }
            }
        }
    }
    context
}

fn is_installer(callee: LLVMValueRef) -> bool {
    INSTALLERS.contains(&ir::name(callee).as_str())
}

struct Flow<'a> {
    direct: &'a HashSet<LLVMValueRef>,
    installers: &'a HashSet<LLVMValueRef>,
}

impl Flow<'_> {
    /// Whether the address of `function` flows where it may become a
    /// signal handler (module docs).
    fn is_handler(&self, function: LLVMValueRef) -> bool {
        let mut seen = HashSet::from([function]);
        let mut work = vec![function];
        while let Some(v) = work.pop() {
            for u in ir::users(v) {
                let next = match ir::value_class(u) {
                    ValueClass::Instruction => match self.instruction_use(v, u) {
                        Use::Handler => return true,
                        Use::Follow(next) => next,
                        Use::Ignore => Vec::new(),
                    },
                    // Memory holding the address (its loads), aliases,
                    // constant expressions and aggregates holding it.
                    ValueClass::GlobalVariable | ValueClass::GlobalAlias | ValueClass::Constant => vec![u],
                    // A personality or prefix-data use: not a handler.
                    ValueClass::Function | ValueClass::Other => Vec::new(),
                };
                for n in next {
                    if seen.insert(n) {
                        work.push(n);
                    }
                }
            }
        }
        false
    }

    /// What the use of `v` (an address of the function, or memory holding
    /// it) by instruction `u` means.
    fn instruction_use(&self, v: LLVMValueRef, u: LLVMValueRef) -> Use {
        let parent = ir::parent_function(u);
        match ir::opcode(u) {
            LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMAddrSpaceCast
            | LLVMOpcode::LLVMPtrToInt
            | LLVMOpcode::LLVMIntToPtr
            | LLVMOpcode::LLVMGetElementPtr
            | LLVMOpcode::LLVMSelect
            | LLVMOpcode::LLVMPHI
            | LLVMOpcode::LLVMFreeze
            | LLVMOpcode::LLVMInsertValue
            | LLVMOpcode::LLVMInsertElement
            | LLVMOpcode::LLVMExtractValue
            | LLVMOpcode::LLVMExtractElement
            | LLVMOpcode::LLVMShuffleVector
            // A load from memory holding the address yields it again.
            | LLVMOpcode::LLVMLoad => Use::Follow(vec![u]),
            LLVMOpcode::LLVMStore | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg => {
                let (value_operands, ptr) = match ir::opcode(u) {
                    LLVMOpcode::LLVMStore => (&[0][..], 1),
                    LLVMOpcode::LLVMAtomicRMW => (&[1][..], 0),
                    _ => (&[1, 2][..], 0),
                };
                if !value_operands.iter().any(|&i| ir::operand(u, i) == v) {
                    return Use::Ignore;
                }
                if self.installers.contains(&parent) {
                    return Use::Handler;
                }
                // Stored in a global: whoever loads it has the address.
                Use::Follow(global_base(ir::operand(u, ptr)).into_iter().collect())
            }
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
                let positions: Vec<u32> = (0..ir::num_args(u)).filter(|&i| ir::arg(u, i) == v).collect();
                if positions.is_empty() {
                    // The callee operand: a call of the function, not its
                    // address escaping.
                    return Use::Ignore;
                }
                let callee = ir::called_function(u);
                if callee.is_some_and(is_installer) {
                    return Use::Handler;
                }
                if let Some(g) = callee.filter(|&g| !ir::is_declaration(g)) {
                    if self.installers.contains(&g) {
                        return Use::Handler;
                    }
                    // Follow into the module's own function.
                    return Use::Follow(positions.iter().filter_map(|&i| ir::param(g, i)).collect());
                }
                let harmless = callee.is_some_and(|g| NOT_INSTALLERS.contains(&ir::name(g).as_str()));
                if self.direct.contains(&parent) && !harmless { Use::Handler } else { Use::Ignore }
            }
            // Returned: the callers' calls yield it.
            LLVMOpcode::LLVMRet => Use::Follow(
                ir::users(parent)
                    .into_iter()
                    .filter(|&c| ir::value_class(c) == ValueClass::Instruction && ir::is_call(c))
                    .filter(|&c| ir::called_function(c) == Some(parent))
                    .collect(),
            ),
            _ => Use::Ignore,
        }
    }
}

enum Use {
    /// The address may become a signal handler.
    Handler,
    /// Keep following these values.
    Follow(Vec<LLVMValueRef>),
    /// The use leads nowhere.
    Ignore,
}

/// The global variable `ptr` points into, through GEPs and casts.
fn global_base(mut ptr: LLVMValueRef) -> Option<LLVMValueRef> {
    for _ in 0..64 {
        match ir::value_class(ptr) {
            ValueClass::GlobalVariable => return Some(ptr),
            ValueClass::Instruction
                if matches!(
                    ir::opcode(ptr),
                    LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
                ) =>
            {
                ptr = ir::operand(ptr, 0);
            }
            ValueClass::Constant if ir::num_operands(ptr) > 0 => ptr = ir::operand(ptr, 0),
            _ => return None,
        }
    }
    None
}
