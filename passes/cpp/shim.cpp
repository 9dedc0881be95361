//===- shim.cpp - CopierGen's C++ shim over LLVM 22 -----------*- C++ -*-===//
//
// Part of Copier, under the Apache License v2.0.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// The C++ half of libcopiergen.so. It does two things and nothing else:
///
///  1. registers the Rust module passes with an llvm::PassBuilder (pipeline
///     parsing, the optimizer-last and full-LTO-last extension points) and
///     creates their command-line options;
///  2. exposes the LLVM analyses and utilities the LLVM-C API lacks (alias
///     analysis, capture tracking, loop depth, library-function recognition,
///     block splitting, mem2reg, optimization remarks) as extern "C" functions
///     on the FFI-stable types of shim.h.
///
/// All pass logic lives in Rust (passes/src). Model: llvm-plugin-rs's
/// `llvm-plugin/cpp/ffi.cc`.
///
//===----------------------------------------------------------------------===//

#include "shim.h"

#include "llvm/Analysis/AliasAnalysis.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/MemoryBuiltins.h"
#include "llvm/Analysis/MemoryLocation.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#if LLVM_VERSION_MAJOR != 22
#error "CopierGen's shim targets LLVM 22 (set LLVM_SYS_221_PREFIX)"
#endif

using namespace llvm;

namespace {

/// Name under which remarks are emitted (`-Rpass=copiergen`).
constexpr const char *RemarkPassName = "copiergen";

//===----------------------------------------------------------------------===//
// Command-line options, created from the Rust table at load time.
//===----------------------------------------------------------------------===//

extern "C" const CgOptionDesc *copiergen_rust_options(size_t *Count);

/// The options, in the order of the Rust table. They live as long as the
/// process: LLVM never unloads a pass plugin, and a cl::opt must outlive
/// every command-line parse.
std::vector<cl::Option *> &options() {
  static std::vector<cl::Option *> Options;
  return Options;
}

struct OptionRegistrar {
  OptionRegistrar() {
    size_t Count = 0;
    const CgOptionDesc *Descs = copiergen_rust_options(&Count);
    for (size_t I = 0; I < Count; ++I) {
      const CgOptionDesc &D = Descs[I];
      StringRef Name(D.Name, D.NameLen);
      StringRef Help(D.Help, D.HelpLen);
      cl::Option *O = nullptr;
      switch (D.Kind) {
      case CG_OPTION_UINT:
        O = new cl::opt<uint64_t>(Name, cl::desc(Help),
                                  cl::init(D.DefaultUint));
        break;
      case CG_OPTION_BOOL:
        O = new cl::opt<bool>(Name, cl::desc(Help),
                              cl::init(D.DefaultUint != 0));
        break;
      default:
        O = new cl::opt<std::string>(
            Name, cl::desc(Help),
            cl::init(std::string(D.DefaultStr, D.DefaultStrLen)));
        break;
      }
      options().push_back(O);
    }
  }
};

/// Registers the options when the plugin is loaded (dlopen), before the host
/// parses its command line (`opt -copiergen-threshold=N`).
OptionRegistrar TheOptionRegistrar;

//===----------------------------------------------------------------------===//
// Pass registration.
//===----------------------------------------------------------------------===//

/// A module pass implemented in Rust: a trampoline plus its data.
struct RustModulePass : PassInfoMixin<RustModulePass> {
  std::string Name;
  std::string Params;
  CgRunFn Run;
  void *Data;

  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    bool Changed = Run(Data, Params.data(), Params.size(), wrap(&M),
                       reinterpret_cast<CgModuleAM *>(&MAM));
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }

  void printPipeline(raw_ostream &OS,
                     function_ref<StringRef(StringRef)> MapClassName2PassName) {
    OS << Name;
    if (!Params.empty())
      OS << '<' << Params << '>';
  }

  /// Runs on `optnone` functions too, so -O0 builds are rewritten.
  static bool isRequired() { return true; }
};

} // namespace

extern "C" {

/// Registers a Rust module pass named `Name` with the PassBuilder: as
/// `-passes=Name` or `-passes=Name<params>`, and at the extension points in
/// `Schedule` (CgSchedule bits).
void cg_register_module_pass(CgPassBuilder *CPB, const char *NamePtr,
                             size_t NameLen, uint32_t Schedule, CgRunFn Run,
                             CgParseFn Parse, void *Data) {
  PassBuilder &PB = *reinterpret_cast<PassBuilder *>(CPB);
  std::string Name(NamePtr, NameLen);

  PB.registerPipelineParsingCallback(
      [=](StringRef PipelineName, ModulePassManager &MPM,
          ArrayRef<PassBuilder::PipelineElement>) {
        StringRef Params;
        if (PipelineName == Name) {
          Params = "";
        } else if (PipelineName.consume_front(Name) &&
                   PipelineName.consume_front("<") &&
                   PipelineName.consume_back(">")) {
          Params = PipelineName;
        } else {
          return false;
        }
        char Err[512] = {0};
        if (!Parse(Data, Params.data(), Params.size(), Err, sizeof(Err))) {
          errs() << Name << ": invalid pass parameters '" << Params
                 << "': " << Err << "\n";
          return false;
        }
        MPM.addPass(RustModulePass{{}, Name, Params.str(), Run, Data});
        return true;
      });

  if (Schedule & CG_SCHEDULE_OPTIMIZER_LAST)
    PB.registerOptimizerLastEPCallback([=](ModulePassManager &MPM,
                                           OptimizationLevel,
                                           ThinOrFullLTOPhase Phase) {
      // Pre-link phases run again after the link: running there would
      // rewrite twice (full LTO) or be skipped by ThinLTO's backend.
      if (Phase == ThinOrFullLTOPhase::None ||
          Phase == ThinOrFullLTOPhase::ThinLTOPostLink)
        MPM.addPass(RustModulePass{{}, Name, "", Run, Data});
    });

  if (Schedule & CG_SCHEDULE_FULL_LTO_LAST)
    PB.registerFullLinkTimeOptimizationLastEPCallback(
        [=](ModulePassManager &MPM, OptimizationLevel) {
          MPM.addPass(RustModulePass{{}, Name, "", Run, Data});
        });
}

uint64_t cg_option_uint(size_t Idx) {
  return static_cast<cl::opt<uint64_t> *>(options()[Idx])->getValue();
}

bool cg_option_bool(size_t Idx) {
  return static_cast<cl::opt<bool> *>(options()[Idx])->getValue();
}

/// Returns the option's value; valid until the next command-line parse.
const char *cg_option_string(size_t Idx, size_t *Len) {
  const std::string &S =
      static_cast<cl::opt<std::string> *>(options()[Idx])->getValue();
  *Len = S.size();
  return S.data();
}

/// Sets the option from text as if given on the command line (`-name=Value`).
/// Returns false (and prints LLVM's message) if the value does not parse.
bool cg_option_set(size_t Idx, const char *Value, size_t Len) {
  cl::Option *O = options()[Idx];
  return !O->addOccurrence(0, O->ArgStr, StringRef(Value, Len));
}

/// Whether the option was given on the command line.
bool cg_option_given(size_t Idx) {
  return options()[Idx]->getNumOccurrences() > 0;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Per-function analyses.
//===----------------------------------------------------------------------===//

struct CgFunctionCtx {
  Function &F;
  FunctionAnalysisManager &FAM;
  AAResults &AA;
  DominatorTree &DT;
  LoopInfo &LI;
  TargetLibraryInfo &TLI;
  /// Capture facts relative to a program point: an object is not reachable
  /// through escaped pointers before the instruction that captures it.
  EarliestEscapeAnalysis EEA;
  /// Valid only while the IR of F is unchanged (cg_mod_ref, cg_alias).
  BatchAAResults BAA;

  CgFunctionCtx(Function &F, FunctionAnalysisManager &FAM)
      : F(F), FAM(FAM), AA(FAM.getResult<AAManager>(F)),
        DT(FAM.getResult<DominatorTreeAnalysis>(F)),
        LI(FAM.getResult<LoopAnalysis>(F)),
        TLI(FAM.getResult<TargetLibraryAnalysis>(F)), EEA(DT, &LI),
        BAA(AA, &EEA) {}
};

namespace {

LocationSize locationSize(uint64_t Size, uint8_t Kind) {
  switch (Kind) {
  case CG_SIZE_PRECISE:
    return LocationSize::precise(Size);
  case CG_SIZE_AFTER_POINTER:
    return LocationSize::afterPointer();
  default:
    return LocationSize::beforeOrAfterPointer();
  }
}

} // namespace

extern "C" {

/// Starts analysing the definition `F` of the module being run; the context
/// must be ended with cg_function_end before F's IR changes are visible to
/// later analysis queries.
CgFunctionCtx *cg_function_begin(CgModuleAM *CMAM, LLVMValueRef CF) {
  auto &MAM = *reinterpret_cast<ModuleAnalysisManager *>(CMAM);
  Function &F = *unwrap<Function>(CF);
  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(*F.getParent())
                  .getManager();
  return new CgFunctionCtx(F, FAM);
}

/// Ends the context; when `Changed`, invalidates F's cached analyses.
void cg_function_end(CgFunctionCtx *Ctx, bool Changed) {
  if (Changed)
    Ctx->FAM.invalidate(Ctx->F, PreservedAnalyses::none());
  delete Ctx;
}

/// ModRefInfo of instruction `I` on the location (Ptr, Size) (CgModRef).
uint8_t cg_mod_ref(CgFunctionCtx *Ctx, LLVMValueRef I, LLVMValueRef Ptr,
                   uint64_t Size, uint8_t Kind) {
  MemoryLocation Loc(unwrap(Ptr), locationSize(Size, Kind));
  ModRefInfo MRI = Ctx->BAA.getModRefInfo(unwrap<Instruction>(I), Loc);
  return static_cast<uint8_t>(MRI) & CG_MOD_REF;
}

/// AliasResult of two locations (CgAlias).
uint8_t cg_alias(CgFunctionCtx *Ctx, LLVMValueRef P1, uint64_t S1, uint8_t K1,
                 LLVMValueRef P2, uint64_t S2, uint8_t K2) {
  MemoryLocation L1(unwrap(P1), locationSize(S1, K1));
  MemoryLocation L2(unwrap(P2), locationSize(S2, K2));
  switch (Ctx->BAA.alias(L1, L2)) {
  case AliasResult::NoAlias:
    return CG_NO_ALIAS;
  case AliasResult::PartialAlias:
    return CG_PARTIAL_ALIAS;
  case AliasResult::MustAlias:
    return CG_MUST_ALIAS;
  default:
    return CG_MAY_ALIAS;
  }
}

/// llvm::getUnderlyingObject: strips GEPs, casts and aliases.
LLVMValueRef cg_underlying_object(LLVMValueRef V) {
  return wrap(getUnderlyingObject(unwrap(V)));
}

/// llvm::GetPointerBaseWithConstantOffset: the base V = Base + *Offset bytes
/// through constant GEPs and casts (V itself and 0 when there are none).
LLVMValueRef cg_base_offset(LLVMModuleRef M, LLVMValueRef V, int64_t *Offset) {
  int64_t Off = 0;
  Value *Base = GetPointerBaseWithConstantOffset(unwrap(V), Off,
                                                 unwrap(M)->getDataLayout());
  *Offset = Off;
  return wrap(Base);
}

/// Whether F's body is the one calls from this module run: an exact
/// definition (not linkonce/weak/available_externally, whose chosen copy may
/// come from another module) that cannot be interposed.
bool cg_is_exact_definition(LLVMValueRef CF) {
  const Function *F = unwrap<Function>(CF);
  return !F->isDeclaration() && F->isDefinitionExact() && !F->isInterposable();
}

/// Whether V is a global variable marked constant (read-only memory).
bool cg_is_constant_global(LLVMValueRef V) {
  const auto *GV = dyn_cast<GlobalVariable>(unwrap(V));
  return GV && GV->isConstant();
}

/// Classifies an underlying object (CgObjectKind).
uint8_t cg_object_kind(LLVMValueRef CV) {
  const Value *V = unwrap(CV);
  if (const auto *AI = dyn_cast<AllocaInst>(V))
    return AI->isStaticAlloca() ? CG_OBJECT_ALLOCA : CG_OBJECT_UNKNOWN;
  if (const auto *GV = dyn_cast<GlobalVariable>(V))
    return GV->isThreadLocal() ? CG_OBJECT_THREAD_LOCAL : CG_OBJECT_GLOBAL;
  if (isa<Argument>(V))
    return CG_OBJECT_ARGUMENT;
  if (isNoAliasCall(V))
    return CG_OBJECT_HEAP;
  return CG_OBJECT_UNKNOWN;
}

/// Whether V may be captured anywhere in its function: a use other than a
/// load, store to it, comparison, or a call that provably does not keep it.
/// Unlike llvm::PointerMayBeCaptured, passing V to a deallocation function
/// (free, operator delete) does not capture it: the memory is dead after.
bool cg_may_be_captured(CgFunctionCtx *Ctx, LLVMValueRef V) {
  struct Tracker : CaptureTracker {
    const TargetLibraryInfo &TLI;
    bool Captured = false;
    explicit Tracker(const TargetLibraryInfo &TLI) : TLI(TLI) {}
    void tooManyUses() override { Captured = true; }
    Action captured(const Use *U, UseCaptureInfo CI) override {
      if (const auto *CB = dyn_cast<CallBase>(U->getUser()))
        if (getFreedOperand(CB, &TLI) == U->get())
          return ContinueIgnoringReturn;
      if (capturesNothing(CI.UseCC))
        return Continue; // Only through the user's result: follow it.
      Captured = true;
      return Stop;
    }
  } T(Ctx->TLI);
  PointerMayBeCaptured(unwrap(V), &T);
  return T.Captured;
}

/// Facts about a call site (CgCallProp bits).
uint32_t cg_call_props(CgFunctionCtx *Ctx, LLVMValueRef CCall) {
  const auto *CB = unwrap<CallBase>(CCall);
  uint32_t P = 0;
  if (CB->doesNotThrow())
    P |= CG_CALL_NOUNWIND;
  if (CB->hasFnAttr(Attribute::WillReturn))
    P |= CG_CALL_WILLRETURN;
  if (CB->doesNotReturn())
    P |= CG_CALL_NORETURN;
  if (const auto *CI = dyn_cast<CallInst>(CB); CI && CI->isMustTailCall())
    P |= CG_CALL_MUSTTAIL;
  if (CB->isInlineAsm())
    P |= CG_CALL_INLINE_ASM;
  if (CB->isIndirectCall())
    P |= CG_CALL_INDIRECT;
  if (CB->hasFnAttr(Attribute::ReturnsTwice))
    P |= CG_CALL_RETURNS_TWICE;
  if (CB->doesNotAccessMemory())
    P |= CG_CALL_DOES_NOT_ACCESS_MEMORY;
  else if (CB->onlyReadsMemory())
    P |= CG_CALL_ONLY_READS_MEMORY;
  if (isa<IntrinsicInst>(CB))
    P |= CG_CALL_INTRINSIC;
  if (!CB->hasFnAttr(Attribute::NoFree))
    P |= CG_CALL_MAY_FREE;
  if (CB->onlyAccessesInaccessibleMemOrArgMem())
    P |= CG_CALL_ARGMEM_ONLY;
  LibFunc LF;
  if (const Function *Callee = CB->getCalledFunction())
    if (Ctx->TLI.getLibFunc(*Callee, LF) && Ctx->TLI.has(LF))
      P |= CG_CALL_KNOWN_LIBFUNC;
  return P;
}

/// Loop nesting depth of a block (0 outside loops; irreducible cycles are not
/// loops).
uint32_t cg_loop_depth(CgFunctionCtx *Ctx, LLVMBasicBlockRef BB) {
  return Ctx->LI.getLoopDepth(unwrap(BB));
}

/// If pointer Ptr, used in block BB, only grows from one iteration to the
/// next of the innermost loop L containing BB (ScalarEvolution: an affine
/// add recurrence of L with a known positive step), returns L's unique
/// predecessor outside the loop (every entry into L passes through it);
/// otherwise null.
LLVMBasicBlockRef cg_increasing_in_loop(CgFunctionCtx *Ctx, LLVMValueRef Ptr,
                                        LLVMBasicBlockRef BB) {
  Loop *L = Ctx->LI.getLoopFor(unwrap(BB));
  if (!L || !L->getLoopPredecessor())
    return nullptr;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(unwrap(Ptr)));
  if (!AR || AR->getLoop() != L || !AR->isAffine() ||
      !SE.isKnownPositive(AR->getStepRecurrence(SE)))
    return nullptr;
  return wrap(L->getLoopPredecessor());
}

/// Strongest atomic ordering of a memory instruction or fence (CgOrdering).
uint8_t cg_atomic_ordering(LLVMValueRef CI) {
  const Instruction *I = unwrap<Instruction>(CI);
  AtomicOrdering O = AtomicOrdering::NotAtomic;
  if (const auto *LI = dyn_cast<LoadInst>(I))
    O = LI->getOrdering();
  else if (const auto *SI = dyn_cast<StoreInst>(I))
    O = SI->getOrdering();
  else if (const auto *FI = dyn_cast<FenceInst>(I))
    O = FI->getOrdering();
  else if (const auto *RMW = dyn_cast<AtomicRMWInst>(I))
    O = RMW->getOrdering();
  else if (const auto *CX = dyn_cast<AtomicCmpXchgInst>(I))
    O = CX->getMergedOrdering();
  return static_cast<uint8_t>(O);
}

/// Whether a fence or atomic is single-thread scoped (syncscope
/// "singlethread"): it orders only against signal handlers.
bool cg_is_single_thread_scope(LLVMValueRef CI) {
  const Instruction *I = unwrap<Instruction>(CI);
  if (auto SSID = getAtomicSyncScopeID(I))
    return *SSID == SyncScope::SingleThread;
  return false;
}

/// Splits Before's block: `if (Cond) { <new block> }` then Before. Returns
/// the new block's terminator (insert the conditional code before it). When
/// Unlikely, the branch carries weights that mark the new block cold.
LLVMValueRef cg_split_if_then(LLVMValueRef Cond, LLVMValueRef Before,
                              bool Unlikely) {
  Instruction *I = unwrap<Instruction>(Before);
  MDNode *Weights = nullptr;
  if (Unlikely)
    Weights = MDBuilder(I->getContext()).createUnlikelyBranchWeights();
  Instruction *Term = SplitBlockAndInsertIfThen(unwrap(Cond), I,
                                                /*Unreachable=*/false, Weights);
  return wrap(Term);
}

/// Replaces the conditional branch Br by an unconditional branch to its
/// successor SuccIdx; the other successor loses this predecessor (its PHIs
/// drop the incoming value). Then merges the straight-line blocks that
/// leaves (head, kept successor, and its own single successor).
void cg_make_unconditional(LLVMValueRef Br, unsigned SuccIdx) {
  auto *BI = cast<BranchInst>(unwrap<Instruction>(Br));
  BasicBlock *Head = BI->getParent();
  BasicBlock *Keep = BI->getSuccessor(SuccIdx);
  BasicBlock *Drop = BI->getSuccessor(1 - SuccIdx);
  if (Keep != Drop)
    Drop->removePredecessor(Head);
  BranchInst::Create(Keep, BI->getIterator());
  BI->eraseFromParent();
  BasicBlock *Next = Keep->getSingleSuccessor();
  if (MergeBlockIntoPredecessor(Keep))
    Keep = Head;
  if (Next && Next != Keep)
    MergeBlockIntoPredecessor(Next);
}

/// Promotes the given allocas to SSA values (mem2reg) with a freshly built
/// dominator tree; skips allocas that are not promotable. Returns how many
/// were promoted.
size_t cg_promote_allocas(CgFunctionCtx *Ctx, LLVMValueRef *Allocas,
                          size_t Count) {
  std::vector<AllocaInst *> Promotable;
  for (size_t I = 0; I < Count; ++I) {
    auto *AI = unwrap<AllocaInst>(Allocas[I]);
    if (isAllocaPromotable(AI))
      Promotable.push_back(AI);
  }
  if (Promotable.empty())
    return 0;
  DominatorTree DT(Ctx->F);
  PromoteMemToReg(Promotable, DT);
  return Promotable.size();
}

/// Whether remarks of pass `copiergen` are requested (-Rpass*, or an
/// optimization record is being written).
bool cg_remarks_enabled(CgFunctionCtx *Ctx) {
  return OptimizationRemarkEmitter::allowExtraAnalysis(Ctx->F, RemarkPassName);
}

/// Emits a remark of pass `copiergen` named `Name` at instruction `At` (its
/// debug location; the function's when At is null), made of Args.
void cg_remark(CgFunctionCtx *Ctx, uint8_t Kind, const char *NamePtr,
               size_t NameLen, LLVMValueRef At, const CgRemarkArg *Args,
               size_t Count) {
  OptimizationRemarkEmitter ORE(&Ctx->F);
  StringRef Name(NamePtr, NameLen);
  auto Fill = [&](DiagnosticInfoOptimizationBase &R) {
    for (size_t I = 0; I < Count; ++I)
      R << DiagnosticInfoOptimizationBase::Argument(
          StringRef(Args[I].Key, Args[I].KeyLen),
          StringRef(Args[I].Val, Args[I].ValLen));
  };
  const Instruction *Inst = At ? unwrap<Instruction>(At) : nullptr;
  switch (Kind) {
  case CG_REMARK_PASSED: {
    OptimizationRemark R =
        Inst ? OptimizationRemark(RemarkPassName, Name, Inst)
             : OptimizationRemark(RemarkPassName, Name, &Ctx->F);
    Fill(R);
    ORE.emit(R);
    break;
  }
  case CG_REMARK_MISSED: {
    OptimizationRemarkMissed R =
        Inst ? OptimizationRemarkMissed(RemarkPassName, Name, Inst)
             : OptimizationRemarkMissed(RemarkPassName, Name,
                                        &Ctx->F.getEntryBlock().front());
    Fill(R);
    ORE.emit(R);
    break;
  }
  default: {
    OptimizationRemarkAnalysis R =
        Inst ? OptimizationRemarkAnalysis(RemarkPassName, Name, Inst)
             : OptimizationRemarkAnalysis(RemarkPassName, Name,
                                          &Ctx->F.getEntryBlock().front());
    Fill(R);
    ORE.emit(R);
    break;
  }
  }
}

/// Reports a diagnostic through the module's LLVMContext (the host prints it
/// like its own: "warning: ..." in clang). F may be null.
void cg_diagnose(LLVMModuleRef CM, LLVMValueRef CF, uint8_t Severity,
                 const char *Msg, size_t Len) {
  Module &M = *unwrap(CM);
  DiagnosticSeverity S = DS_Warning;
  switch (Severity) {
  case CG_SEVERITY_ERROR:
    S = DS_Error;
    break;
  case CG_SEVERITY_REMARK:
    S = DS_Remark;
    break;
  case CG_SEVERITY_NOTE:
    S = DS_Note;
    break;
  default:
    break;
  }
  std::string Text = "copiergen: " + std::string(Msg, Len);
  if (CF)
    Text += " (in function '" + unwrap<Function>(CF)->getName().str() + "')";
  M.getContext().diagnose(DiagnosticInfoGeneric(Text, S));
}

/// Store size in bytes of type Ty under M's data layout. Sets *Fixed to
/// false (and returns the minimum size) for scalable types, and to false with
/// size 0 for unsized types.
uint64_t cg_type_store_size(LLVMModuleRef CM, LLVMTypeRef Ty, bool *Fixed) {
  if (!unwrap(Ty)->isSized()) {
    *Fixed = false;
    return 0;
  }
  TypeSize Size = unwrap(CM)->getDataLayout().getTypeStoreSize(unwrap(Ty));
  *Fixed = !Size.isScalable();
  return Size.getKnownMinValue();
}

} // extern "C"
