//===- effects.cpp - MLIR analyses the C API lacks, for copiergen-mlir ----===//
//
// MLIR's C API exposes neither the memory-effect interfaces nor alias
// analysis. These functions only convert between C API handles and the C++
// analyses; every decision is made on the Rust side (src/effects.rs).
//
//===----------------------------------------------------------------------===//

#include "mlir/Analysis/AliasAnalysis.h"
#include "mlir/CAPI/IR.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cstdint>

using namespace mlir;

namespace {
// Bits of copiergen_mlir_effects_on's result (mirrored in src/effects.rs).
constexpr uint32_t EffectRead = 1;
constexpr uint32_t EffectWrite = 2;
constexpr uint32_t EffectFree = 4;
constexpr uint32_t EffectUnknown = 8;
} // namespace

extern "C" {

/// An alias analysis rooted at `root` (a function or module); free it with
/// copiergen_mlir_alias_free.
void *copiergen_mlir_alias_new(MlirOperation root) {
  return new AliasAnalysis(unwrap(root));
}

void copiergen_mlir_alias_free(void *aa) {
  delete static_cast<AliasAnalysis *>(aa);
}

/// 0: no alias, 1: may alias, 2: partial alias, 3: must alias.
int copiergen_mlir_alias(void *aa, MlirValue a, MlirValue b) {
  AliasResult r = static_cast<AliasAnalysis *>(aa)->alias(unwrap(a), unwrap(b));
  if (r.isNo())
    return 0;
  if (r.isPartial())
    return 2;
  if (r.isMust())
    return 3;
  return 1;
}

/// The effects of `op` and every operation nested in it on memory that may
/// alias `v`: a mask of EffectRead, EffectWrite, EffectFree; EffectUnknown
/// when the effects of some nested operation are not known, or when an effect
/// names no value (a whole resource, such as a call's).
uint32_t copiergen_mlir_effects_on(void *aa, MlirOperation op, MlirValue v) {
  auto *analysis = static_cast<AliasAnalysis *>(aa);
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(unwrap(op));
  if (!effects)
    return EffectUnknown;
  Value target = unwrap(v);
  uint32_t mask = 0;
  for (const MemoryEffects::EffectInstance &e : *effects) {
    if (isa<MemoryEffects::Allocate>(e.getEffect()))
      continue;
    Value on = e.getValue();
    if (!on) {
      // A symbol (memref.global) or a whole resource: unknown extent.
      if (isa<SideEffects::AutomaticAllocationScopeResource>(e.getResource()))
        continue;
      mask |= EffectUnknown;
      continue;
    }
    if (analysis->alias(on, target).isNo())
      continue;
    if (isa<MemoryEffects::Read>(e.getEffect()))
      mask |= EffectRead;
    else if (isa<MemoryEffects::Write>(e.getEffect()))
      mask |= EffectWrite;
    else if (isa<MemoryEffects::Free>(e.getEffect()))
      mask |= EffectFree;
    else
      mask |= EffectUnknown;
  }
  return mask;
}

/// 1 when `op` has no memory effect at all (itself and nested operations).
int copiergen_mlir_is_memory_effect_free(MlirOperation op) {
  return isMemoryEffectFree(unwrap(op)) ? 1 : 0;
}

/// 1 when the memory effects of `op` and everything nested in it are known
/// (MemoryEffectOpInterface or RecursiveMemoryEffects all the way down).
int copiergen_mlir_has_known_effects(MlirOperation op) {
  return getEffectsRecursively(unwrap(op)).has_value() ? 1 : 0;
}

/// 1 when `op` is a block terminator (trait IsTerminator).
int copiergen_mlir_is_terminator(MlirOperation op) {
  return unwrap(op)->hasTrait<OpTrait::IsTerminator>() ? 1 : 0;
}

/// Emits `message` as an MLIR remark at `loc` (reaches the context's
/// diagnostic handlers).
void copiergen_mlir_remark(MlirLocation loc, MlirStringRef message) {
  emitRemark(unwrap(loc), StringRef(message.data, message.length));
}

} // extern "C"
