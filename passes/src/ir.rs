//! Thin helpers over the LLVM-C API for walking and editing IR.
//!
//! Handle invariant: every `LLVMValueRef`, `LLVMBasicBlockRef` and
//! `LLVMTypeRef` passed to these helpers was obtained from the module the
//! current pass run is working on and is still live (not erased). Passes get
//! them only by walking that module, so the invariant holds by construction;
//! each `// SAFETY:` below relies on it.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMBuilderRef, LLVMContextRef, LLVMMetadataRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind};
use std::ffi::{CStr, c_char};

/// An instruction opcode (LLVM-C `LLVMOpcode`).
pub type Opcode = LLVMOpcode;

/// The instructions of a block, in order.
pub fn instructions(bb: LLVMBasicBlockRef) -> impl Iterator<Item = LLVMValueRef> {
    // SAFETY: handle invariant (module docs).
    let first = unsafe { c::LLVMGetFirstInstruction(bb) };
    std::iter::successors(non_null(first), |&i| {
        // SAFETY: handle invariant.
        non_null(unsafe { c::LLVMGetNextInstruction(i) })
    })
}

/// The blocks of a function definition, in layout order.
pub fn blocks(function: LLVMValueRef) -> impl Iterator<Item = LLVMBasicBlockRef> {
    // SAFETY: handle invariant.
    let first = unsafe { c::LLVMGetFirstBasicBlock(function) };
    std::iter::successors(non_null_bb(first), |&b| {
        // SAFETY: handle invariant.
        non_null_bb(unsafe { c::LLVMGetNextBasicBlock(b) })
    })
}

/// The functions of a module, in order.
pub fn functions(module: LLVMModuleRef) -> impl Iterator<Item = LLVMValueRef> {
    // SAFETY: handle invariant.
    let first = unsafe { c::LLVMGetFirstFunction(module) };
    std::iter::successors(non_null(first), |&f| {
        // SAFETY: handle invariant.
        non_null(unsafe { c::LLVMGetNextFunction(f) })
    })
}

fn non_null(v: LLVMValueRef) -> Option<LLVMValueRef> {
    (!v.is_null()).then_some(v)
}

fn non_null_bb(b: LLVMBasicBlockRef) -> Option<LLVMBasicBlockRef> {
    (!b.is_null()).then_some(b)
}

/// The successors of a block (through its terminator); empty for a block
/// without terminator (malformed IR).
pub fn successors(bb: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    // SAFETY: handle invariant.
    let term = unsafe { c::LLVMGetBasicBlockTerminator(bb) };
    if term.is_null() {
        return Vec::new();
    }
    // SAFETY: handle invariant; `term` is a terminator.
    let n = unsafe { c::LLVMGetNumSuccessors(term) };
    // SAFETY: i < n.
    (0..n).map(|i| unsafe { c::LLVMGetSuccessor(term, i) }).collect()
}

/// The distinct predecessors of a block: the blocks whose terminator
/// branches to it (found through the block's uses, not a scan of the
/// function; `blockaddress` uses are not edges).
pub fn predecessors(bb: LLVMBasicBlockRef) -> Vec<LLVMBasicBlockRef> {
    // SAFETY: handle invariant.
    let v = unsafe { c::LLVMBasicBlockAsValue(bb) };
    let mut out = Vec::new();
    for u in users(v) {
        // SAFETY: handle invariant; a terminator is an instruction.
        if unsafe { c::LLVMIsATerminatorInst(u) }.is_null() {
            continue;
        }
        let pred = parent_block(u);
        if !out.contains(&pred) {
            out.push(pred);
        }
    }
    out
}

/// The block an instruction is in.
pub fn parent_block(inst: LLVMValueRef) -> LLVMBasicBlockRef {
    // SAFETY: handle invariant.
    unsafe { c::LLVMGetInstructionParent(inst) }
}

/// The instruction after `inst` in its block.
pub fn next_instruction(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    // SAFETY: handle invariant.
    non_null(unsafe { c::LLVMGetNextInstruction(inst) })
}

/// Number of successors of a terminator.
pub fn num_successors(term: LLVMValueRef) -> u32 {
    // SAFETY: handle invariant; `term` is a terminator.
    unsafe { c::LLVMGetNumSuccessors(term) }
}

/// Whether an instruction is a terminator.
pub fn is_terminator(inst: LLVMValueRef) -> bool {
    // SAFETY: handle invariant.
    !unsafe { c::LLVMIsATerminatorInst(inst) }.is_null()
}

/// Whether a call is a debug-info or lifetime marker intrinsic (no work).
pub fn is_debug_or_marker(call: LLVMValueRef) -> bool {
    called_function(call).is_some_and(|f| {
        let n = name(f);
        n.starts_with("llvm.dbg.") || n.starts_with("llvm.lifetime.") || n.starts_with("llvm.assume")
    })
}

/// The opcode of an instruction.
pub fn opcode(inst: LLVMValueRef) -> Opcode {
    // SAFETY: handle invariant; `inst` is an instruction.
    unsafe { c::LLVMGetInstructionOpcode(inst) }
}

/// True for the instructions that call something: `call`, `invoke` and
/// `callbr` (LLVM's `CallBase`).
pub fn is_call(inst: LLVMValueRef) -> bool {
    matches!(opcode(inst), Opcode::LLVMCall | Opcode::LLVMInvoke | Opcode::LLVMCallBr)
}

/// Operand `i` of an instruction.
pub fn operand(inst: LLVMValueRef, i: u32) -> LLVMValueRef {
    // SAFETY: handle invariant; callers pass i < the operand count.
    unsafe { c::LLVMGetOperand(inst, i) }
}

/// Number of call arguments of a call site.
pub fn num_args(call: LLVMValueRef) -> u32 {
    // SAFETY: handle invariant; `call` is a call site.
    unsafe { c::LLVMGetNumArgOperands(call) }
}

/// Argument `i` of a call site (`i < num_args(call)`).
pub fn arg(call: LLVMValueRef, i: u32) -> LLVMValueRef {
    debug_assert!(i < num_args(call));
    operand(call, i)
}

/// The called function of a direct call (through no casts: LLVM 22 has
/// opaque pointers), or `None` for indirect calls and inline asm.
pub fn called_function(call: LLVMValueRef) -> Option<LLVMValueRef> {
    // SAFETY: handle invariant; `call` is a call site.
    let callee = unsafe { c::LLVMGetCalledValue(call) };
    // SAFETY: handle invariant.
    (!callee.is_null() && !unsafe { c::LLVMIsAFunction(callee) }.is_null()).then_some(callee)
}

/// The callee of `inst` when it is a direct `call` (not `invoke`) of a
/// function declaration (a library routine, not one the module defines).
pub fn declared_callee(inst: LLVMValueRef) -> Option<LLVMValueRef> {
    if opcode(inst) != LLVMOpcode::LLVMCall {
        return None;
    }
    called_function(inst).filter(|&f| is_declaration(f))
}

/// The name of a value (empty when unnamed).
pub fn name(v: LLVMValueRef) -> String {
    let mut len = 0usize;
    // SAFETY: handle invariant; the name bytes are valid until the value is
    // renamed, and are copied at once.
    unsafe {
        let p = c::LLVMGetValueName2(v, &mut len);
        if p.is_null() {
            return String::new();
        }
        String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len)).into_owned()
    }
}

/// The section of a global value, if it has one.
pub fn section(global: LLVMValueRef) -> Option<String> {
    // SAFETY: handle invariant; `global` is a global value.
    let p = unsafe { c::LLVMGetSection(global) };
    if p.is_null() {
        return None;
    }
    // SAFETY: LLVMGetSection returns a NUL-terminated string.
    let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
    (!s.is_empty()).then_some(s)
}

/// Sets the section of a global value.
pub fn set_section(global: LLVMValueRef, section: &CStr) {
    // SAFETY: handle invariant; `global` is a global value; the name is
    // NUL-terminated (LLVM copies it).
    unsafe { c::LLVMSetSection(global, section.as_ptr()) }
}

/// Whether a function is a declaration (no body).
pub fn is_declaration(function: LLVMValueRef) -> bool {
    // SAFETY: handle invariant.
    unsafe { c::LLVMIsDeclaration(function) != 0 }
}

/// Whether a function has `available_externally` linkage (a copy of a body
/// defined elsewhere, for inlining only).
pub fn is_available_externally(function: LLVMValueRef) -> bool {
    // SAFETY: handle invariant; `function` is a global value.
    unsafe { c::LLVMGetLinkage(function) == inkwell::llvm_sys::LLVMLinkage::LLVMAvailableExternallyLinkage }
}

/// The zero-extended value of an integer constant of at most 64 bits.
pub fn const_int(v: LLVMValueRef) -> Option<u64> {
    // SAFETY: handle invariant.
    unsafe {
        if c::LLVMIsAConstantInt(v).is_null() {
            return None;
        }
        let ty = c::LLVMTypeOf(v);
        if c::LLVMGetIntTypeWidth(ty) > 64 {
            return None;
        }
        Some(c::LLVMConstIntGetZExtValue(v))
    }
}

/// The type of a value.
pub fn type_of(v: LLVMValueRef) -> LLVMTypeRef {
    // SAFETY: handle invariant.
    unsafe { c::LLVMTypeOf(v) }
}

/// The kind of a type.
pub fn type_kind(ty: LLVMTypeRef) -> LLVMTypeKind {
    // SAFETY: handle invariant.
    unsafe { c::LLVMGetTypeKind(ty) }
}

/// Whether `v` is a pointer in address space 0 (the only pointers libcopier
/// takes).
pub fn is_ptr_as0(v: LLVMValueRef) -> bool {
    let ty = type_of(v);
    // SAFETY: handle invariant; `ty` is a pointer type when the kind says so.
    type_kind(ty) == LLVMTypeKind::LLVMPointerTypeKind && unsafe { c::LLVMGetPointerAddressSpace(ty) } == 0
}

/// The address space of a pointer value (`None` if `v` is not a pointer).
pub fn address_space(v: LLVMValueRef) -> Option<u32> {
    let ty = type_of(v);
    // SAFETY: handle invariant; `ty` is a pointer type when the kind says so.
    (type_kind(ty) == LLVMTypeKind::LLVMPointerTypeKind).then(|| unsafe { c::LLVMGetPointerAddressSpace(ty) })
}

/// Bit width of an integer value (`None` if not an integer).
pub fn int_width(v: LLVMValueRef) -> Option<u32> {
    let ty = type_of(v);
    // SAFETY: handle invariant; `ty` is an integer type when the kind says so.
    (type_kind(ty) == LLVMTypeKind::LLVMIntegerTypeKind).then(|| unsafe { c::LLVMGetIntTypeWidth(ty) })
}

/// Whether a memory instruction (load, store, atomicrmw, cmpxchg) is
/// volatile.
pub fn is_volatile(inst: LLVMValueRef) -> bool {
    // SAFETY: handle invariant; `inst` is a memory-access instruction.
    unsafe { c::LLVMGetVolatile(inst) != 0 }
}

/// Source location `file:line:col` of an instruction's debug location.
pub fn debug_loc(inst: LLVMValueRef) -> Option<String> {
    // SAFETY: handle invariant; the LLVM-C debug-location getters accept
    // instructions and return borrowed, length-delimited strings.
    unsafe {
        if di::LLVMInstructionGetDebugLoc(inst).is_null() {
            return None;
        }
        let mut len = 0u32;
        let p = c::LLVMGetDebugLocFilename(inst, &mut len);
        let file = if p.is_null() {
            String::from("<unknown>")
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned()
        };
        let line = c::LLVMGetDebugLocLine(inst);
        let col = c::LLVMGetDebugLocColumn(inst);
        Some(format!("{file}:{line}:{col}"))
    }
}

/// `inst`'s context and the id of metadata kind `kind` in it.
fn md_kind(inst: LLVMValueRef, kind: &str) -> (LLVMContextRef, u32) {
    // SAFETY: handle invariant; the kind name is valid for the call.
    unsafe {
        let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(inst));
        (ctx, c::LLVMGetMDKindIDInContext(ctx, kind.as_ptr().cast::<c_char>(), kind.len() as u32))
    }
}

/// Attaches an empty metadata node of kind `kind` to `inst` (a flag such
/// as `!copier.generated !{}`).
pub fn set_flag_md(inst: LLVMValueRef, kind: &str) {
    let (ctx, id) = md_kind(inst, kind);
    // SAFETY: handle invariant; the empty node belongs to the instruction's
    // context.
    unsafe {
        let node = c::LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
        c::LLVMSetMetadata(inst, id, c::LLVMMetadataAsValue(ctx, node));
    }
}

/// True if `inst` carries metadata of kind `kind`.
pub fn has_md(inst: LLVMValueRef, kind: &str) -> bool {
    let (_, id) = md_kind(inst, kind);
    // SAFETY: handle invariant.
    unsafe { !c::LLVMGetMetadata(inst, id).is_null() }
}

/// Removes `inst`'s metadata of kind `kind`, if any.
pub fn clear_md(inst: LLVMValueRef, kind: &str) {
    let (_, id) = md_kind(inst, kind);
    // SAFETY: handle invariant; a null node removes the attachment.
    unsafe { c::LLVMSetMetadata(inst, id, std::ptr::null_mut()) }
}

/// One operand of a metadata node, as [`md_operands`] reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MdOperand {
    /// An `MDString`.
    Str(String),
    /// An integer constant of at most 64 bits (zero-extended).
    Int(u64),
    /// Anything else (a node, another constant).
    Other,
}

/// The operands of the `kind` metadata node attached to `inst` (`"prof"`
/// for `!prof`), or `None` when it has none.
pub fn md_operands(inst: LLVMValueRef, kind: &str) -> Option<Vec<MdOperand>> {
    let (_, id) = md_kind(inst, kind);
    // SAFETY: handle invariant; the node's operands are read into a buffer
    // of the length LLVM reports, and MDString text is borrowed,
    // length-delimited, copied at once.
    unsafe {
        let node = c::LLVMGetMetadata(inst, id);
        if node.is_null() {
            return None;
        }
        let n = c::LLVMGetMDNodeNumOperands(node) as usize;
        let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
        c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
        Some(
            ops.into_iter()
                .map(|v| {
                    if v.is_null() {
                        return MdOperand::Other;
                    }
                    if let Some(i) = const_int(v) {
                        return MdOperand::Int(i);
                    }
                    let mut len = 0u32;
                    let p = if c::LLVMIsAMDString(v).is_null() { std::ptr::null() } else { c::LLVMGetMDString(v, &mut len) };
                    if p.is_null() {
                        MdOperand::Other
                    } else {
                        MdOperand::Str(String::from_utf8_lossy(std::slice::from_raw_parts(p.cast::<u8>(), len as usize)).into_owned())
                    }
                })
                .collect(),
        )
    }
}

/// Looks up an intrinsic ID by its base name (`llvm.memcpy`); 0 if unknown.
pub fn intrinsic_id(base_name: &str) -> u32 {
    // SAFETY: the name is valid for the call.
    unsafe { c::LLVMLookupIntrinsicID(base_name.as_ptr().cast::<c_char>(), base_name.len()) }
}

/// The intrinsic ID of a function (0 if not an intrinsic).
pub fn function_intrinsic_id(function: LLVMValueRef) -> u32 {
    // SAFETY: handle invariant; `function` is a function.
    unsafe { c::LLVMGetIntrinsicID(function) }
}

/// The module's target triple.
pub fn target_triple(module: LLVMModuleRef) -> String {
    // SAFETY: handle invariant; LLVMGetTarget returns a NUL-terminated string.
    unsafe { CStr::from_ptr(c::LLVMGetTarget(module)) }.to_string_lossy().into_owned()
}

/// Whether a function has the enum attribute `attr` (e.g. "naked").
pub fn has_fn_attr(function: LLVMValueRef, attr: &str) -> bool {
    // SAFETY: handle invariant; the name is valid for the call.
    unsafe {
        let kind = c::LLVMGetEnumAttributeKindForName(attr.as_ptr().cast::<c_char>(), attr.len());
        kind != 0
            && !c::LLVMGetEnumAttributeAtIndex(function, inkwell::llvm_sys::LLVMAttributeFunctionIndex, kind)
                .is_null()
    }
}

/// The first instruction of the entry block that is not an `alloca`.
pub fn entry_insertion_point(function: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: handle invariant; a definition has an entry block.
    let entry = unsafe { c::LLVMGetEntryBasicBlock(function) };
    instructions(entry)
        .find(|&i| opcode(i) != LLVMOpcode::LLVMAlloca)
        .expect("a well-formed entry block ends with a terminator")
}

/// Replaces every use of `old` with `new`.
pub fn replace_all_uses(old: LLVMValueRef, new: LLVMValueRef) {
    // SAFETY: handle invariant; both values have the same type (callers
    // replace a call by a call of the same return type).
    unsafe { c::LLVMReplaceAllUsesWith(old, new) }
}

/// Erases an instruction with no remaining uses.
pub fn erase(inst: LLVMValueRef) {
    // SAFETY: handle invariant; the instruction has no uses.
    unsafe { c::LLVMInstructionEraseFromParent(inst) }
}

/// Whether `v` is an instruction (not a constant the builder folded).
pub fn is_instruction(v: LLVMValueRef) -> bool {
    // SAFETY: handle invariant.
    !unsafe { c::LLVMIsAInstruction(v) }.is_null()
}

/// Whether `v` is the null pointer constant.
pub fn is_null_constant(v: LLVMValueRef) -> bool {
    // SAFETY: handle invariant.
    unsafe { c::LLVMIsConstant(v) != 0 && c::LLVMIsNull(v) != 0 }
}

/// The terminator of the block an instruction is in.
pub fn block_terminator(inst: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: handle invariant; `inst` is in a block with a terminator.
    unsafe { c::LLVMGetBasicBlockTerminator(c::LLVMGetInstructionParent(inst)) }
}

/// The terminator of a block.
pub fn block_terminator_of(bb: LLVMBasicBlockRef) -> LLVMValueRef {
    // SAFETY: handle invariant; a well-formed block has a terminator.
    unsafe { c::LLVMGetBasicBlockTerminator(bb) }
}

/// Whether a value has any use.
pub fn has_uses(v: LLVMValueRef) -> bool {
    // SAFETY: handle invariant.
    !unsafe { c::LLVMGetFirstUse(v) }.is_null()
}

/// The users of `v` (one entry per use).
pub fn users(v: LLVMValueRef) -> Vec<LLVMValueRef> {
    let mut out = Vec::new();
    // SAFETY: handle invariant; the use list is not changed while walked.
    unsafe {
        let mut u = c::LLVMGetFirstUse(v);
        while !u.is_null() {
            out.push(c::LLVMGetUser(u));
            u = c::LLVMGetNextUse(u);
        }
    }
    out
}

/// Number of operands of `inst`.
pub fn num_operands(inst: LLVMValueRef) -> u32 {
    // SAFETY: handle invariant.
    unsafe { c::LLVMGetNumOperands(inst) as u32 }
}

/// Deletes `inst` after replacing its remaining uses by `poison` (for
/// instructions only dead code uses).
pub fn erase_replacing_with_poison(inst: LLVMValueRef) {
    // SAFETY: handle invariant; `inst` is an instruction in a block.
    unsafe {
        c::LLVMReplaceAllUsesWith(inst, c::LLVMGetPoison(c::LLVMTypeOf(inst)));
        c::LLVMInstructionEraseFromParent(inst);
    }
}

/// An IR builder (LLVM-C `LLVMBuilderRef`), disposed on drop.
pub struct Builder {
    raw: LLVMBuilderRef,
    module: LLVMModuleRef,
}

impl Builder {
    /// A builder in the module's context, not positioned yet.
    pub fn new(module: LLVMModuleRef) -> Builder {
        // SAFETY: handle invariant.
        let raw = unsafe { c::LLVMCreateBuilderInContext(c::LLVMGetModuleContext(module)) };
        Builder { raw, module }
    }

    /// Positions before `inst` and takes its debug location for the
    /// instructions built next (none if `inst` has none).
    pub fn position_before(&self, inst: LLVMValueRef) {
        // SAFETY: handle invariant; `inst` is an instruction in a block.
        unsafe {
            c::LLVMPositionBuilderBefore(self.raw, inst);
            c::LLVMSetCurrentDebugLocation2(self.raw, di::LLVMInstructionGetDebugLoc(inst));
        }
    }

    /// Positions before `inst` without a debug location (setup code such as
    /// allocas and their initial stores).
    pub fn position_before_no_loc(&self, inst: LLVMValueRef) {
        // SAFETY: handle invariant.
        unsafe {
            c::LLVMPositionBuilderBefore(self.raw, inst);
            c::LLVMSetCurrentDebugLocation2(self.raw, std::ptr::null_mut());
        }
    }

    /// Positions right after `inst` (before its successor instruction),
    /// with `inst`'s debug location. Returns false (and does not move) when
    /// `inst` is a terminator.
    pub fn position_after(&self, inst: LLVMValueRef) -> bool {
        // SAFETY: handle invariant.
        let next = unsafe { c::LLVMGetNextInstruction(inst) };
        if next.is_null() {
            return false;
        }
        // SAFETY: handle invariant.
        unsafe {
            c::LLVMPositionBuilderBefore(self.raw, next);
            c::LLVMSetCurrentDebugLocation2(self.raw, di::LLVMInstructionGetDebugLoc(inst));
        }
        true
    }

    /// The pointer type (address space 0).
    pub fn ptr_type(&self) -> LLVMTypeRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMPointerTypeInContext(c::LLVMGetModuleContext(self.module), 0) }
    }

    /// The integer type as wide as a pointer (`size_t`) under the module's
    /// data layout.
    pub fn intptr_type(&self) -> LLVMTypeRef {
        // SAFETY: handle invariant.
        unsafe {
            inkwell::llvm_sys::target::LLVMIntPtrTypeInContext(
                c::LLVMGetModuleContext(self.module),
                inkwell::llvm_sys::target::LLVMGetModuleDataLayout(self.module),
            )
        }
    }

    /// The `i32` type.
    pub fn int32_type(&self) -> LLVMTypeRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMInt32TypeInContext(c::LLVMGetModuleContext(self.module)) }
    }

    /// The `void` type.
    pub fn void_type(&self) -> LLVMTypeRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMVoidTypeInContext(c::LLVMGetModuleContext(self.module)) }
    }

    /// The null pointer constant.
    pub fn null_ptr(&self) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMConstPointerNull(self.ptr_type()) }
    }

    /// An integer constant of type `ty`.
    pub fn const_int(&self, ty: LLVMTypeRef, v: u64) -> LLVMValueRef {
        // SAFETY: handle invariant; `ty` is an integer type.
        unsafe { c::LLVMConstInt(ty, v, 0) }
    }

    /// Zero-extends or truncates the integer `v` to `ty`.
    pub fn int_cast(&self, v: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
        // SAFETY: handle invariant; `v` is an integer, `ty` an integer type.
        unsafe { c::LLVMBuildIntCast2(self.raw, v, ty, 0, c"".as_ptr()) }
    }

    /// Sign-extends or truncates the integer `v` to `ty`.
    pub fn int_cast_signed(&self, v: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
        // SAFETY: handle invariant; `v` is an integer, `ty` an integer type.
        unsafe { c::LLVMBuildIntCast2(self.raw, v, ty, 1, c"".as_ptr()) }
    }

    /// Calls `callee` (of type `fn_ty`) with `args`.
    pub fn call(&self, fn_ty: LLVMTypeRef, callee: LLVMValueRef, args: &[LLVMValueRef]) -> LLVMValueRef {
        let mut args = args.to_vec();
        // SAFETY: handle invariant; the arguments match fn_ty.
        unsafe { c::LLVMBuildCall2(self.raw, fn_ty, callee, args.as_mut_ptr(), args.len() as u32, c"".as_ptr()) }
    }

    /// `alloca ty` named `name`.
    pub fn alloca(&self, ty: LLVMTypeRef, name: &CStr) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMBuildAlloca(self.raw, ty, name.as_ptr()) }
    }

    /// `load ty, ptr`.
    pub fn load(&self, ty: LLVMTypeRef, ptr: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMBuildLoad2(self.raw, ty, ptr, c"".as_ptr()) }
    }

    /// `store v, ptr`.
    pub fn store(&self, v: LLVMValueRef, ptr: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMBuildStore(self.raw, v, ptr) }
    }

    /// `getelementptr i8, ptr, offset` (no `inbounds`: never poison).
    pub fn byte_gep(&self, ptr: LLVMValueRef, offset: LLVMValueRef) -> LLVMValueRef {
        let mut idx = [offset];
        // SAFETY: handle invariant; `offset` is an integer.
        unsafe {
            let i8 = c::LLVMInt8TypeInContext(c::LLVMGetModuleContext(self.module));
            c::LLVMBuildGEP2(self.raw, i8, ptr, idx.as_mut_ptr(), 1, c"".as_ptr())
        }
    }

    /// `icmp pred a, b`.
    pub fn icmp(&self, pred: LLVMIntPredicate, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; a and b have the same integer or pointer
        // type.
        unsafe { c::LLVMBuildICmp(self.raw, pred, a, b, c"".as_ptr()) }
    }

    /// Takes `inst`'s debug location for the instructions built next.
    pub fn set_loc_from(&self, inst: LLVMValueRef) {
        // SAFETY: handle invariant.
        unsafe { c::LLVMSetCurrentDebugLocation2(self.raw, di::LLVMInstructionGetDebugLoc(inst)) }
    }

    /// `or a, b`.
    pub fn or(&self, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMBuildOr(self.raw, a, b, c"".as_ptr()) }
    }

    /// `and a, b`.
    pub fn and(&self, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMBuildAnd(self.raw, a, b, c"".as_ptr()) }
    }

    /// `ptrtoint ptr to ty`.
    pub fn ptr_to_int(&self, ptr: LLVMValueRef, ty: LLVMTypeRef) -> LLVMValueRef {
        // SAFETY: handle invariant; `ptr` is a pointer, `ty` an integer type.
        unsafe { c::LLVMBuildPtrToInt(self.raw, ptr, ty, c"".as_ptr()) }
    }

    /// `load atomic ty, ptr acquire` (a plain load on x86-64 and AArch64's
    /// `ldar`), aligned to the type's size.
    pub fn load_acquire(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, align: u32) -> LLVMValueRef {
        // SAFETY: handle invariant; `ty` is an integer type of `align` bytes.
        unsafe {
            let l = c::LLVMBuildLoad2(self.raw, ty, ptr, c"".as_ptr());
            c::LLVMSetOrdering(l, inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingAcquire);
            c::LLVMSetAlignment(l, align);
            l
        }
    }

    /// `load atomic ty, ptr monotonic` (C11 relaxed: a plain load), aligned
    /// to the type's size.
    pub fn load_relaxed(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, align: u32) -> LLVMValueRef {
        // SAFETY: handle invariant; `ty` is an integer type of `align` bytes.
        unsafe {
            let l = c::LLVMBuildLoad2(self.raw, ty, ptr, c"".as_ptr());
            c::LLVMSetOrdering(l, inkwell::llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic);
            c::LLVMSetAlignment(l, align);
            l
        }
    }

    /// A private constant global holding the NUL-terminated `text`.
    pub fn global_string(&self, text: &str, name: &CStr) -> LLVMValueRef {
        // SAFETY: handle invariant; the text's length is passed with it.
        unsafe {
            let ctx = c::LLVMGetModuleContext(self.module);
            let init = c::LLVMConstStringInContext2(ctx, text.as_ptr().cast(), text.len(), 0);
            let g = c::LLVMAddGlobal(self.module, c::LLVMTypeOf(init), name.as_ptr());
            c::LLVMSetInitializer(g, init);
            c::LLVMSetGlobalConstant(g, 1);
            c::LLVMSetLinkage(g, inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            c::LLVMSetUnnamedAddress(g, inkwell::llvm_sys::LLVMUnnamedAddr::LLVMGlobalUnnamedAddr);
            g
        }
    }

    /// A private, writable, 8-aligned global `struct copier_site`
    /// (`copier_abi::site`): `{ file, line, col, function }`, the rest zero.
    pub fn site_global(&self, file: LLVMValueRef, line: u32, col: u32, function: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; the field types match the constants.
        unsafe {
            let ctx = c::LLVMGetModuleContext(self.module);
            let (ptr, i32t, i64t) = (self.ptr_type(), c::LLVMInt32TypeInContext(ctx), c::LLVMInt64TypeInContext(ctx));
            let counters = c::LLVMArrayType2(i64t, copier_abi::site::COUNTERS as u64);
            let mut fields = [ptr, i32t, i32t, ptr, i32t, i32t, counters];
            let ty = c::LLVMStructTypeInContext(ctx, fields.as_mut_ptr(), fields.len() as u32, 0);
            let mut vals = [
                file,
                c::LLVMConstInt(i32t, line as u64, 0),
                c::LLVMConstInt(i32t, col as u64, 0),
                function,
                c::LLVMConstInt(i32t, 0, 0),
                c::LLVMConstInt(i32t, 0, 0),
                c::LLVMConstNull(counters),
            ];
            let init = c::LLVMConstStructInContext(ctx, vals.as_mut_ptr(), vals.len() as u32, 0);
            let g = c::LLVMAddGlobal(self.module, ty, c"copiergen.site".as_ptr());
            c::LLVMSetInitializer(g, init);
            c::LLVMSetLinkage(g, inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage);
            c::LLVMSetAlignment(g, 8);
            g
        }
    }

    /// `select cond, a, b`.
    pub fn select(&self, cond: LLVMValueRef, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; `cond` is i1, a and b have one type.
        unsafe { c::LLVMBuildSelect(self.raw, cond, a, b, c"".as_ptr()) }
    }

    /// The pointer with every bit set (the largest address).
    pub fn all_ones_ptr(&self) -> LLVMValueRef {
        let ones = self.const_int(self.intptr_type(), u64::MAX);
        // SAFETY: handle invariant; an integer constant to the pointer type.
        unsafe { c::LLVMConstIntToPtr(ones, self.ptr_type()) }
    }

    /// `llvm.memcpy` (or `llvm.memmove` when `overlap`) of `len` bytes,
    /// alignment 1, not volatile.
    pub fn mem_copy(&self, dst: LLVMValueRef, src: LLVMValueRef, len: LLVMValueRef, overlap: bool) -> LLVMValueRef {
        // SAFETY: handle invariant; pointers and an integer length.
        unsafe {
            if overlap {
                c::LLVMBuildMemMove(self.raw, dst, 1, src, 1, len)
            } else {
                c::LLVMBuildMemCpy(self.raw, dst, 1, src, 1, len)
            }
        }
    }

    /// Moves the unlinked instruction `inst` to the builder's position.
    pub fn insert(&self, inst: LLVMValueRef) {
        // SAFETY: handle invariant; `inst` was removed from its block.
        unsafe { c::LLVMInsertIntoBuilder(self.raw, inst) }
    }

    /// Positions before `inst` with the debug location `loc` (null: none)
    /// for the instructions built next.
    pub fn position_before_at(&self, inst: LLVMValueRef, loc: LLVMMetadataRef) {
        // SAFETY: handle invariant; `inst` is an instruction in a block, `loc`
        // null or a DILocation.
        unsafe {
            c::LLVMPositionBuilderBefore(self.raw, inst);
            c::LLVMSetCurrentDebugLocation2(self.raw, loc);
        }
    }

    /// Positions before `inst` and before the debug records attached to
    /// it, with the debug location `loc` (null: none): where a phi at the
    /// top of a block goes (a phi must carry no debug records; the plain
    /// position would move `inst`'s records onto it).
    pub fn position_for_phi(&self, inst: LLVMValueRef, loc: LLVMMetadataRef) {
        // SAFETY: handle invariant; `inst` is an instruction in a block, `loc`
        // null or a DILocation.
        unsafe {
            c::LLVMPositionBuilderBeforeInstrAndDbgRecords(self.raw, inst);
            c::LLVMSetCurrentDebugLocation2(self.raw, loc);
        }
    }

    /// Positions at the end of `bb` with the debug location `loc` (null:
    /// none).
    pub fn position_at_end(&self, bb: LLVMBasicBlockRef, loc: LLVMMetadataRef) {
        // SAFETY: handle invariant; `loc` null or a DILocation.
        unsafe {
            c::LLVMPositionBuilderAtEnd(self.raw, bb);
            c::LLVMSetCurrentDebugLocation2(self.raw, loc);
        }
    }

    /// The integer type of `bits` bits.
    pub fn int_type(&self, bits: u32) -> LLVMTypeRef {
        // SAFETY: handle invariant.
        unsafe { c::LLVMIntTypeInContext(c::LLVMGetModuleContext(self.module), bits) }
    }

    /// `lshr a, b`.
    pub fn lshr(&self, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; a and b are integers of one type.
        unsafe { c::LLVMBuildLShr(self.raw, a, b, c"".as_ptr()) }
    }

    /// `add a, b`.
    pub fn add(&self, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; a and b are integers of one type.
        unsafe { c::LLVMBuildAdd(self.raw, a, b, c"".as_ptr()) }
    }

    /// `sub a, b`.
    pub fn sub(&self, a: LLVMValueRef, b: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; a and b are integers of one type.
        unsafe { c::LLVMBuildSub(self.raw, a, b, c"".as_ptr()) }
    }

    /// `inttoptr v to ptr` (address space 0).
    pub fn int_to_ptr(&self, v: LLVMValueRef) -> LLVMValueRef {
        // SAFETY: handle invariant; v is an integer.
        unsafe { c::LLVMBuildIntToPtr(self.raw, v, self.ptr_type(), c"".as_ptr()) }
    }

    /// `load ty, ptr` named `name`, with alignment `align` bytes.
    pub fn load_named(&self, ty: LLVMTypeRef, ptr: LLVMValueRef, name: &CStr, align: u32) -> LLVMValueRef {
        // SAFETY: handle invariant.
        unsafe {
            let v = c::LLVMBuildLoad2(self.raw, ty, ptr, name.as_ptr());
            c::LLVMSetAlignment(v, align);
            v
        }
    }

    /// An empty `phi ty` named `name` (add its incoming values with
    /// [`add_incoming`]).
    pub fn phi(&self, ty: LLVMTypeRef, name: &CStr) -> LLVMValueRef {
        // SAFETY: handle invariant; the builder is at the top of a block.
        unsafe { c::LLVMBuildPhi(self.raw, ty, name.as_ptr()) }
    }

    /// `br label dest`.
    pub fn br(&self, dest: LLVMBasicBlockRef) -> LLVMValueRef {
        // SAFETY: handle invariant; the builder is at the end of a block.
        unsafe { c::LLVMBuildBr(self.raw, dest) }
    }

    /// `switch v, label default [cases]` (`cases`: value and target).
    pub fn switch(&self, v: LLVMValueRef, default: LLVMBasicBlockRef, cases: &[(LLVMValueRef, LLVMBasicBlockRef)]) -> LLVMValueRef {
        // SAFETY: handle invariant; the builder is at the end of a block, the
        // case values are constants of v's type.
        unsafe {
            let sw = c::LLVMBuildSwitch(self.raw, v, default, cases.len() as u32);
            for &(value, target) in cases {
                c::LLVMAddCase(sw, value, target);
            }
            sw
        }
    }

    /// `ret void`.
    pub fn ret_void(&self) -> LLVMValueRef {
        // SAFETY: handle invariant; the builder is at the end of a block.
        unsafe { c::LLVMBuildRetVoid(self.raw) }
    }
}

/// Names the value `v` (uniqued within its function, as a name given when
/// building it).
pub fn set_name(v: LLVMValueRef, name: &CStr) {
    // SAFETY: handle invariant; the name is valid for its length.
    unsafe { c::LLVMSetValueName2(v, name.as_ptr(), name.to_bytes().len()) }
}

/// Sets the atomic ordering of the load or store `inst`.
pub fn set_ordering(inst: LLVMValueRef, ordering: inkwell::llvm_sys::LLVMAtomicOrdering) {
    // SAFETY: handle invariant; `inst` is a load or store.
    unsafe { c::LLVMSetOrdering(inst, ordering) }
}

/// Adds the incoming values `(value, predecessor)` to `phi`.
pub fn add_incoming(phi: LLVMValueRef, incoming: &[(LLVMValueRef, LLVMBasicBlockRef)]) {
    let (mut vals, mut blocks): (Vec<_>, Vec<_>) = incoming.iter().copied().unzip();
    // SAFETY: handle invariant; each block is a predecessor of phi's block
    // and each value has phi's type.
    unsafe { c::LLVMAddIncoming(phi, vals.as_mut_ptr(), blocks.as_mut_ptr(), vals.len() as u32) }
}

/// Appends an empty block named `name` to `function`.
pub fn append_block(function: LLVMValueRef, name: &CStr) -> LLVMBasicBlockRef {
    // SAFETY: handle invariant; `function` is a function.
    unsafe { c::LLVMAppendBasicBlockInContext(c::LLVMGetTypeContext(c::LLVMTypeOf(function)), function, name.as_ptr()) }
}

impl Drop for Builder {
    fn drop(&mut self) {
        // SAFETY: created by LLVMCreateBuilderInContext, disposed once.
        unsafe { c::LLVMDisposeBuilder(self.raw) }
    }
}

/// Sets the condition of the conditional branch `br`.
pub fn set_condition(br: LLVMValueRef, cond: LLVMValueRef) {
    // SAFETY: handle invariant; `br` is a conditional branch, `cond` an i1.
    unsafe { c::LLVMSetCondition(br, cond) }
}

/// Removes an instruction from its block without deleting it (re-insert it
/// with [`Builder::insert`]).
pub fn remove_from_parent(inst: LLVMValueRef) {
    // SAFETY: handle invariant.
    unsafe { c::LLVMInstructionRemoveFromParent(inst) }
}

/// Whether `name` can be declared as `ret (params...)`: the module has no
/// global of that name, or a function of exactly that type.
pub fn can_declare(module: LLVMModuleRef, name: &CStr, ret: LLVMTypeRef, params: &[LLVMTypeRef]) -> bool {
    let mut params = params.to_vec();
    // SAFETY: handle invariant; the name is NUL-terminated.
    unsafe {
        let fn_ty = c::LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let existing = c::LLVMGetNamedFunction(module, name.as_ptr());
        if !existing.is_null() {
            return c::LLVMGlobalGetValueType(existing) == fn_ty;
        }
        let len = name.to_bytes().len();
        c::LLVMGetNamedGlobal(module, name.as_ptr()).is_null()
            && c::LLVMGetNamedGlobalAlias(module, name.as_ptr(), len).is_null()
            && c::LLVMGetNamedGlobalIFunc(module, name.as_ptr(), len).is_null()
    }
}

/// A type as LLVM prints it (`ptr`, `i64`, `void`).
pub fn type_to_string(ty: LLVMTypeRef) -> String {
    // SAFETY: handle invariant; the printed string is owned by us, copied,
    // then freed with LLVMDisposeMessage.
    unsafe {
        let p = c::LLVMPrintTypeToString(ty);
        let s = CStr::from_ptr(p).to_string_lossy().into_owned();
        c::LLVMDisposeMessage(p);
        s
    }
}

/// Gets or declares `name` with type `ret (params...)` and the function
/// attributes `attrs` (a new declaration only) in the module. Returns the
/// function and its type. If the module already has a global of that name
/// with another type, returns `None`.
pub fn get_or_declare(
    module: LLVMModuleRef,
    name: &CStr,
    ret: LLVMTypeRef,
    params: &[LLVMTypeRef],
    attrs: &[&str],
) -> Option<(LLVMValueRef, LLVMTypeRef)> {
    let mut params = params.to_vec();
    // SAFETY: handle invariant; the name is NUL-terminated.
    unsafe {
        let fn_ty = c::LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let existing = c::LLVMGetNamedFunction(module, name.as_ptr());
        if !existing.is_null() {
            return (c::LLVMGlobalGetValueType(existing) == fn_ty).then_some((existing, fn_ty));
        }
        if !c::LLVMGetNamedGlobal(module, name.as_ptr()).is_null() {
            return None;
        }
        let f = c::LLVMAddFunction(module, name.as_ptr(), fn_ty);
        let ctx = c::LLVMGetModuleContext(module);
        for attr in attrs {
            let kind = c::LLVMGetEnumAttributeKindForName(attr.as_ptr().cast::<c_char>(), attr.len());
            c::LLVMAddAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, c::LLVMCreateEnumAttribute(ctx, kind, 0));
        }
        Some((f, fn_ty))
    }
}

/// Makes the direct call `call` call `function` (same type) instead.
pub fn set_called_function(call: LLVMValueRef, function: LLVMValueRef) {
    // SAFETY: handle invariant; the callee is a call's last operand.
    unsafe {
        let n = c::LLVMGetNumOperands(call);
        c::LLVMSetOperand(call, (n - 1) as u32, function);
    }
}

/// Deletes `function`, which nothing uses, from its module.
pub fn delete_function(function: LLVMValueRef) {
    // SAFETY: handle invariant; the function has no uses.
    unsafe { c::LLVMDeleteFunction(function) }
}

/// Renames the function or global variable `name` of `module` to a unique
/// name derived from `fresh` when it has local linkage (`static`: internal
/// or private), so an external declaration can take `name`. Nothing
/// outside the module can refer to a local symbol, and its debug info
/// keeps the source name. Returns whether it renamed one.
pub fn rename_if_local(module: LLVMModuleRef, name: &CStr, fresh: &CStr) -> bool {
    use inkwell::llvm_sys::LLVMLinkage::{LLVMInternalLinkage, LLVMPrivateLinkage};
    // SAFETY: handle invariant; the names are NUL-terminated.
    unsafe {
        let mut v = c::LLVMGetNamedFunction(module, name.as_ptr());
        if v.is_null() {
            v = c::LLVMGetNamedGlobal(module, name.as_ptr());
        }
        if v.is_null() || !matches!(c::LLVMGetLinkage(v), LLVMInternalLinkage | LLVMPrivateLinkage) {
            return false;
        }
        // LLVM makes the name unique (a numeric suffix) if `fresh` is taken.
        c::LLVMSetValueName2(v, fresh.as_ptr(), fresh.to_bytes().len());
        true
    }
}

/// Whether `module` defines a function `name` (a body, not a declaration)
/// with a linkage other than internal or private: its object file then
/// defines the symbol, as a library that also defines it would.
pub fn defines_external_function(module: LLVMModuleRef, name: &CStr) -> bool {
    use inkwell::llvm_sys::LLVMLinkage::{LLVMInternalLinkage, LLVMPrivateLinkage};
    // SAFETY: handle invariant; the name is NUL-terminated.
    unsafe {
        let f = c::LLVMGetNamedFunction(module, name.as_ptr());
        !f.is_null()
            && c::LLVMIsDeclaration(f) == 0
            && !matches!(c::LLVMGetLinkage(f), LLVMInternalLinkage | LLVMPrivateLinkage)
    }
}

/// Defines (once) the weak hidden pointer variable `name` initialised to
/// `target`'s address: the object file then refers to `target` even when
/// no code does, and every module's copy of `name` merges into one.
pub fn define_weak_hidden_pointer(module: LLVMModuleRef, name: &CStr, target: LLVMValueRef) {
    use inkwell::llvm_sys::{LLVMLinkage, LLVMVisibility};
    // SAFETY: handle invariant; the name is NUL-terminated; `target` is a
    // global of `module`.
    unsafe {
        if !c::LLVMGetNamedGlobal(module, name.as_ptr()).is_null() {
            return;
        }
        let ty = c::LLVMTypeOf(target);
        let g = c::LLVMAddGlobal(module, ty, name.as_ptr());
        c::LLVMSetInitializer(g, target);
        c::LLVMSetLinkage(g, LLVMLinkage::LLVMWeakAnyLinkage);
        c::LLVMSetVisibility(g, LLVMVisibility::LLVMHiddenVisibility);
        c::LLVMSetGlobalConstant(g, 1);
    }
}

/// Whether [`get_or_declare_global`] would succeed for `name` and `ty`.
pub fn can_declare_global(module: LLVMModuleRef, name: &CStr, ty: LLVMTypeRef) -> bool {
    // SAFETY: handle invariant; the name is NUL-terminated.
    unsafe {
        if !c::LLVMGetNamedFunction(module, name.as_ptr()).is_null() {
            return false;
        }
        let existing = c::LLVMGetNamedGlobal(module, name.as_ptr());
        existing.is_null() || c::LLVMGlobalGetValueType(existing) == ty
    }
}

/// Gets or declares the external global variable `name` of value type `ty`.
/// `None` when the module has a function or a global of another type by
/// that name.
pub fn get_or_declare_global(module: LLVMModuleRef, name: &CStr, ty: LLVMTypeRef) -> Option<LLVMValueRef> {
    // SAFETY: handle invariant; the name is NUL-terminated.
    unsafe {
        if !c::LLVMGetNamedFunction(module, name.as_ptr()).is_null() {
            return None;
        }
        let existing = c::LLVMGetNamedGlobal(module, name.as_ptr());
        if !existing.is_null() {
            return (c::LLVMGlobalGetValueType(existing) == ty).then_some(existing);
        }
        Some(c::LLVMAddGlobal(module, ty, name.as_ptr()))
    }
}

/// Gets or defines the internal helper `name(ptr, size) -> ptr` that calls
/// `target` (same type) with the calling convention `cc` (e.g.
/// `preserve_allcc`: the helper saves every register it uses, so a cold call
/// to it from a hot loop forces no spills there). `noinline`, `cold`,
/// `nounwind`. Returns the helper.
pub fn get_or_define_forwarder(
    module: LLVMModuleRef,
    name: &CStr,
    fn_ty: LLVMTypeRef,
    target: LLVMValueRef,
    cc: u32,
) -> LLVMValueRef {
    // SAFETY: handle invariant; the name is NUL-terminated; the body built
    // here has the type `fn_ty` it declares.
    unsafe {
        let existing = c::LLVMGetNamedFunction(module, name.as_ptr());
        if !existing.is_null() {
            return existing;
        }
        let f = c::LLVMAddFunction(module, name.as_ptr(), fn_ty);
        c::LLVMSetLinkage(f, inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        c::LLVMSetFunctionCallConv(f, cc);
        let ctx = c::LLVMGetModuleContext(module);
        for attr in ["noinline", "cold", "nounwind", "willreturn"] {
            let kind = c::LLVMGetEnumAttributeKindForName(attr.as_ptr().cast::<c_char>(), attr.len());
            c::LLVMAddAttributeAtIndex(f, inkwell::llvm_sys::LLVMAttributeFunctionIndex, c::LLVMCreateEnumAttribute(ctx, kind, 0));
        }
        let bb = c::LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let b = c::LLVMCreateBuilderInContext(ctx);
        c::LLVMPositionBuilderAtEnd(b, bb);
        let mut args = [c::LLVMGetParam(f, 0), c::LLVMGetParam(f, 1)];
        let r = c::LLVMBuildCall2(b, fn_ty, target, args.as_mut_ptr(), 2, c"".as_ptr());
        c::LLVMBuildRet(b, r);
        c::LLVMDisposeBuilder(b);
        f
    }
}

/// Sets the calling convention of a call instruction.
pub fn set_call_conv(call: LLVMValueRef, cc: u32) {
    // SAFETY: handle invariant; `call` is a call instruction.
    unsafe { c::LLVMSetInstructionCallConv(call, cc) }
}

/// The function an instruction is in.
pub fn parent_function(inst: LLVMValueRef) -> LLVMValueRef {
    // SAFETY: handle invariant; `inst` is an instruction in a block of a
    // function.
    unsafe { c::LLVMGetBasicBlockParent(c::LLVMGetInstructionParent(inst)) }
}

/// Parameter `i` of a function, if it has that many.
pub fn param(function: LLVMValueRef, i: u32) -> Option<LLVMValueRef> {
    // SAFETY: handle invariant; `function` is a function, `i` is checked
    // against its parameter count.
    unsafe { (i < c::LLVMCountParams(function)).then(|| c::LLVMGetParam(function, i)) }
}

/// What kind of value a user of a value is, for walking use chains.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueClass {
    /// An instruction.
    Instruction,
    /// A function.
    Function,
    /// A global variable (the user of its initializer).
    GlobalVariable,
    /// A global alias or ifunc.
    GlobalAlias,
    /// A constant expression or aggregate constant.
    Constant,
    /// Anything else (metadata wrappers, arguments, ...).
    Other,
}

/// Classifies `v`.
pub fn value_class(v: LLVMValueRef) -> ValueClass {
    // SAFETY: handle invariant; the LLVMIsA* queries only inspect `v`.
    unsafe {
        if !c::LLVMIsAInstruction(v).is_null() {
            ValueClass::Instruction
        } else if !c::LLVMIsAFunction(v).is_null() {
            ValueClass::Function
        } else if !c::LLVMIsAGlobalVariable(v).is_null() {
            ValueClass::GlobalVariable
        } else if !c::LLVMIsAGlobalAlias(v).is_null() || !c::LLVMIsAGlobalIFunc(v).is_null() {
            ValueClass::GlobalAlias
        } else if !c::LLVMIsAConstant(v).is_null() {
            ValueClass::Constant
        } else {
            ValueClass::Other
        }
    }
}
