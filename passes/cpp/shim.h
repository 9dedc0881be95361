//===- shim.h - FFI types shared by the C++ shim and Rust ------*- C++ -*-===//
//
// Part of Copier, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The FFI-stable types that cross the boundary between libcopiergen.so's
/// C++ shim (shim.cpp) and its Rust side (passes/src/ffi.rs). Every type here
/// is plain C: integers, enums with explicit values, opaque pointers and the
/// LLVM-C handles (LLVMValueRef, LLVMModuleRef, LLVMBasicBlockRef). Keep this
/// file and ffi.rs in sync field by field.
///
//===----------------------------------------------------------------------===//

#ifndef COPIERGEN_SHIM_H
#define COPIERGEN_SHIM_H

#include "llvm-c/Types.h"
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Opaque per-function analysis context (AA, loops, TLI, remarks).
typedef struct CgFunctionCtx CgFunctionCtx;
/// Opaque `llvm::ModuleAnalysisManager`.
typedef struct CgModuleAM CgModuleAM;
/// Opaque `llvm::PassBuilder`.
typedef struct CgPassBuilder CgPassBuilder;

/// Runs a Rust module pass; returns true when the module changed.
typedef bool (*CgRunFn)(void *Data, const char *Params, size_t ParamsLen,
                        LLVMModuleRef M, CgModuleAM *MAM);
/// Validates `name<params>`; on error writes a message (at most ErrCap bytes,
/// NUL-terminated) to Err and returns false.
typedef bool (*CgParseFn)(void *Data, const char *Params, size_t ParamsLen,
                          char *Err, size_t ErrCap);

/// Where a pass runs besides `-passes=<name>` (bit flags).
enum CgSchedule : uint32_t {
  /// At the end of the default optimizer pipeline (phase None or
  /// ThinLTOPostLink), so `clang -fpass-plugin=` runs it at -O0 ... -O3.
  CG_SCHEDULE_OPTIMIZER_LAST = 1u << 0,
  /// At the end of the full-LTO link pipeline (ld.lld --load-pass-plugin).
  CG_SCHEDULE_FULL_LTO_LAST = 1u << 1,
  /// At the end of the optimizer pipeline of an -flto compile (phases
  /// FullLTOPreLink, ThinLTOPreLink), with the parameters
  /// CG_LTO_PRELINK_PARAMS: link glue only, no rewrite.
  CG_SCHEDULE_LTO_PRELINK = 1u << 2,
};

/// The parameters a CG_SCHEDULE_LTO_PRELINK run gets.
#define CG_LTO_PRELINK_PARAMS "lto-prelink"

/// Metadata kind (empty node) on the calls of a loop or body copy that runs
/// while nothing is pending (cg_loop_clone_assume_zero): a call of a
/// guarded callee there goes to its unguarded copy without a test.
#define CG_NOTHING_PENDING_MD "copiergen.nothing_pending"

/// Kind of a plugin command-line option.
enum CgOptionKind : uint32_t {
  CG_OPTION_UINT = 0,
  CG_OPTION_BOOL = 1,
  CG_OPTION_STRING = 2,
  /// A size in bytes: digits with an optional k, m or g suffix
  /// (copier_abi::parse_size, parsed by copiergen_parse_size).
  CG_OPTION_SIZE = 3,
};

/// One plugin option, described by the Rust side's table (options.rs).
typedef struct CgOptionDesc {
  const char *Name;
  size_t NameLen;
  const char *Help;
  size_t HelpLen;
  uint32_t Kind;
  uint64_t DefaultUint;
  const char *DefaultStr;
  size_t DefaultStrLen;
} CgOptionDesc;

/// How to read the size of a memory location (llvm::LocationSize).
enum CgSizeKind : uint8_t {
  /// Exactly `Size` bytes from the pointer.
  CG_SIZE_PRECISE = 0,
  /// Unknown number of bytes starting at the pointer.
  CG_SIZE_AFTER_POINTER = 1,
  /// Unknown bytes before or after the pointer.
  CG_SIZE_UNKNOWN = 2,
};

/// llvm::ModRefInfo bits.
enum CgModRef : uint8_t {
  CG_NO_MOD_REF = 0,
  CG_REF = 1,
  CG_MOD = 2,
  CG_MOD_REF = 3,
};

/// llvm::AliasResult.
enum CgAlias : uint8_t {
  CG_NO_ALIAS = 0,
  CG_MAY_ALIAS = 1,
  CG_PARTIAL_ALIAS = 2,
  CG_MUST_ALIAS = 3,
};

/// What an underlying object is (see cg_object_kind).
enum CgObjectKind : uint8_t {
  CG_OBJECT_UNKNOWN = 0,
  /// A static `alloca` (stack memory of this frame).
  CG_OBJECT_ALLOCA = 1,
  /// A global variable (not thread-local).
  CG_OBJECT_GLOBAL = 2,
  /// The result of a call returning `noalias` (malloc-like heap memory).
  CG_OBJECT_HEAP = 3,
  /// A function argument.
  CG_OBJECT_ARGUMENT = 4,
  /// A thread-local global variable.
  CG_OBJECT_THREAD_LOCAL = 5,
};

/// Facts about a call site (bit flags, see cg_call_props).
enum CgCallProp : uint32_t {
  CG_CALL_NOUNWIND = 1u << 0,
  CG_CALL_WILLRETURN = 1u << 1,
  CG_CALL_NORETURN = 1u << 2,
  CG_CALL_MUSTTAIL = 1u << 3,
  /// The callee is a library function TargetLibraryInfo knows (right name
  /// and prototype, available on the target).
  CG_CALL_KNOWN_LIBFUNC = 1u << 4,
  CG_CALL_INLINE_ASM = 1u << 5,
  CG_CALL_INDIRECT = 1u << 6,
  CG_CALL_RETURNS_TWICE = 1u << 7,
  CG_CALL_DOES_NOT_ACCESS_MEMORY = 1u << 8,
  CG_CALL_ONLY_READS_MEMORY = 1u << 9,
  CG_CALL_INTRINSIC = 1u << 10,
  /// The call may free memory (no `nofree`).
  CG_CALL_MAY_FREE = 1u << 11,
  /// The call accesses at most argument and inaccessible memory.
  CG_CALL_ARGMEM_ONLY = 1u << 12,
  /// The call has operand bundles that may read or write memory (the
  /// call site itself reads their operands, e.g. `deopt`).
  CG_CALL_MEMORY_BUNDLES = 1u << 13,
};

/// What a call does itself with the memory an argument points to (bit
/// flags, see cg_call_arg_memory).
enum CgArgMemory : uint32_t {
  /// Read at the call site or by the callee: `byval` (the caller's copy
  /// into the argument area happens at the call), `byref`, `inalloca`,
  /// `preallocated`.
  CG_ARG_READS = 1u << 0,
  /// Written by the callee: `sret`, `inalloca`, `preallocated`.
  CG_ARG_WRITES = 1u << 1,
};

/// llvm::AtomicOrdering, strongest ordering of an instruction.
enum CgOrdering : uint8_t {
  CG_ORDERING_NOT_ATOMIC = 0,
  CG_ORDERING_UNORDERED = 1,
  CG_ORDERING_MONOTONIC = 2,
  CG_ORDERING_ACQUIRE = 4,
  CG_ORDERING_RELEASE = 5,
  CG_ORDERING_ACQ_REL = 6,
  CG_ORDERING_SEQ_CST = 7,
};

/// Where an upper bound of a pointer in a loop comes from (bits, see
/// cg_loop_max_address; none: the largest address).
enum CgBoundKind : uint8_t {
  /// ScalarEvolution: start + step * maximum backedge-taken count.
  CG_BOUND_TRIP_COUNT = 1u << 0,
  /// The size of the underlying allocation.
  CG_BOUND_OBJECT_SIZE = 1u << 1,
};

/// Remark kinds (llvm::OptimizationRemark, ...Missed, ...Analysis).
enum CgRemarkKind : uint8_t {
  CG_REMARK_PASSED = 0,
  CG_REMARK_MISSED = 1,
  CG_REMARK_ANALYSIS = 2,
};

/// One key/value argument of a remark (llvm::DiagnosticInfoOptimizationBase::
/// Argument). Key "String" is plain text.
typedef struct CgRemarkArg {
  const char *Key;
  size_t KeyLen;
  const char *Val;
  size_t ValLen;
} CgRemarkArg;

/// Diagnostic severities (llvm::DiagnosticSeverity).
enum CgSeverity : uint8_t {
  CG_SEVERITY_ERROR = 0,
  CG_SEVERITY_WARNING = 1,
  CG_SEVERITY_REMARK = 2,
  CG_SEVERITY_NOTE = 3,
};

#ifdef __cplusplus
} // extern "C"
#endif

#endif // COPIERGEN_SHIM_H
