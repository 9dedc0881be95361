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
#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/CFG.h"
#include "llvm/Analysis/CaptureTracking.h"
#include "llvm/Analysis/LazyValueInfo.h"
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
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"
#include "llvm/Transforms/Utils/SSAUpdater.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <algorithm>
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
extern "C" bool copiergen_parse_size(const char *Text, size_t Len,
                                     uint64_t *Value, const char **Syntax,
                                     size_t *SyntaxLen);

/// A CG_OPTION_SIZE option: a uint64_t that takes the syntax of every
/// Copier size (`16k`), parsed on the Rust side (copier_abi::parse_size).
/// A cl::Option of its own: LLVM's cl::parser<uint64_t> is final.
class SizeOption : public cl::Option {
  uint64_t Value;
  uint64_t Default;
  /// LLVM's uint64_t parser, for help and --print-options output.
  cl::parser<uint64_t> Printer{*this};

  bool handleOccurrence(unsigned Pos, StringRef, StringRef Arg) override {
    const char *Syntax = nullptr;
    size_t SyntaxLen = 0;
    uint64_t V = 0;
    if (!copiergen_parse_size(Arg.data(), Arg.size(), &V, &Syntax, &SyntaxLen))
      return error("'" + Arg + "' is not " + StringRef(Syntax, SyntaxLen));
    Value = V;
    setPosition(Pos);
    return false;
  }
  enum cl::ValueExpected getValueExpectedFlagDefault() const override {
    return cl::ValueRequired;
  }
  size_t getOptionWidth() const override {
    return Printer.getOptionWidth(*this);
  }
  void printOptionInfo(size_t GlobalWidth) const override {
    Printer.printOptionInfo(*this, GlobalWidth);
  }
  void printOptionValue(size_t GlobalWidth, bool Force) const override {
    if (Force || Value != Default)
      Printer.printOptionDiff(*this, Value, cl::OptionValue<uint64_t>(Default),
                              GlobalWidth);
  }
  void setDefault() override { Value = Default; }

public:
  SizeOption(StringRef Name, StringRef Help, uint64_t Init)
      : cl::Option(cl::Optional, cl::NotHidden), Value(Init), Default(Init) {
    setArgStr(Name);
    setDescription(Help);
    setValueStr("size");
    addArgument();
  }
  uint64_t getValue() const { return Value; }
};

/// The options, in the order of the Rust table. They live as long as the
/// process: LLVM never unloads a pass plugin, and a cl::opt must outlive
/// every command-line parse.
std::vector<cl::Option *> &options() {
  static std::vector<cl::Option *> Options;
  return Options;
}

/// The kind (CgOptionKind) of each option of options().
std::vector<uint32_t> &optionKinds() {
  static std::vector<uint32_t> Kinds;
  return Kinds;
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
      case CG_OPTION_SIZE:
        O = new SizeOption(Name, Help, D.DefaultUint);
        break;
      default:
        O = new cl::opt<std::string>(
            Name, cl::desc(Help),
            cl::init(std::string(D.DefaultStr, D.DefaultStrLen)));
        break;
      }
      options().push_back(O);
      optionKinds().push_back(D.Kind);
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
      else if (Schedule & CG_SCHEDULE_LTO_PRELINK)
        MPM.addPass(RustModulePass{{}, Name, CG_LTO_PRELINK_PARAMS, Run, Data});
    });

  if (Schedule & CG_SCHEDULE_FULL_LTO_LAST)
    PB.registerFullLinkTimeOptimizationLastEPCallback(
        [=](ModulePassManager &MPM, OptimizationLevel) {
          MPM.addPass(RustModulePass{{}, Name, "", Run, Data});
        });
}

uint64_t cg_option_uint(size_t Idx) {
  if (optionKinds()[Idx] == CG_OPTION_SIZE)
    return static_cast<SizeOption *>(options()[Idx])->getValue();
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

/// Runs LLVM's IR verifier on function F. Returns 0 when F is valid;
/// otherwise the length of the verifier's message, of which the first
/// Cap - 1 bytes are copied to Buf and NUL-terminated (Cap > 0).
size_t cg_verify_function(LLVMValueRef F, char *Buf, size_t Cap) {
  std::string Message;
  raw_string_ostream OS(Message);
  if (!verifyFunction(*unwrap<Function>(F), &OS))
    return 0;
  OS.flush();
  size_t N = std::min(Message.size(), Cap - 1);
  Message.copy(Buf, N);
  Buf[N] = 0;
  return Message.empty() ? 1 : Message.size();
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
  /// Analyses of the IR as the pass has changed it, rebuilt by
  /// cg_loop_prepare (the analysis manager's describe the IR as it was).
  std::unique_ptr<DominatorTree> FreshDT;
  std::unique_ptr<LoopInfo> FreshLI;

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
  if (CB->hasReadingOperandBundles() || CB->hasClobberingOperandBundles())
    P |= CG_CALL_MEMORY_BUNDLES;
  LibFunc LF;
  if (const Function *Callee = CB->getCalledFunction())
    if (Ctx->TLI.getLibFunc(*Callee, LF) && Ctx->TLI.has(LF))
      P |= CG_CALL_KNOWN_LIBFUNC;
  return P;
}

/// How call Call itself uses the memory its argument ArgNo points to
/// (CgArgMemory bits; 0 for a plain argument), from the call site's or the
/// callee's `byval`, `byref`, `inalloca`, `preallocated` and `sret`
/// attributes (LangRef "Parameter Attributes"). *Size receives the pointee
/// type's allocation size in bytes (what codegen copies for `byval`), or
/// UINT64_MAX when it has none (unsized or scalable).
uint32_t cg_call_arg_memory(LLVMValueRef Call, unsigned ArgNo, uint64_t *Size) {
  const auto *CB = unwrap<CallBase>(Call);
  *Size = UINT64_MAX;
  if (ArgNo >= CB->arg_size())
    return 0;
  uint32_t K = 0;
  Type *Ty = nullptr;
  if ((Ty = CB->getParamByValType(ArgNo)) ||
      (Ty = CB->getParamByRefType(ArgNo)))
    K = CG_ARG_READS;
  else if ((Ty = CB->getParamInAllocaType(ArgNo)) ||
           (Ty = CB->getParamPreallocatedType(ArgNo)))
    K = CG_ARG_READS | CG_ARG_WRITES;
  else if ((Ty = CB->getParamStructRetType(ArgNo)))
    K = CG_ARG_WRITES;
  if (K == 0 || !Ty->isSized())
    return K;
  TypeSize TS = CB->getDataLayout().getTypeAllocSize(Ty);
  if (!TS.isScalable())
    *Size = TS.getFixedValue();
  return K;
}

/// Whether call Call is the C library function TargetLibraryInfo knows
/// under its callee's name (right prototype, not `nobuiltin`, not disabled
/// by the caller's `no-builtins`/`no-builtin-<name>` attributes).
bool cg_is_library_call(CgFunctionCtx *Ctx, LLVMValueRef Call) {
  LibFunc LF;
  return Ctx->TLI.getLibFunc(*unwrap<CallBase>(Call), LF) && Ctx->TLI.has(LF);
}

/// Whether the C library's routine Name (`memcpy`, `memmove`) is the one the
/// analysed function would get: the library function is available there
/// (not disabled by -fno-builtin) and the module does not define a function
/// of that name.
bool cg_library_routine_usable(CgFunctionCtx *Ctx, const char *Name,
                               size_t Len) {
  StringRef N(Name, Len);
  LibFunc LF;
  if (!Ctx->TLI.getLibFunc(N, LF) || !Ctx->TLI.has(LF))
    return false;
  const Function *Def = Ctx->F.getParent()->getFunction(N);
  return !Def || Def->isDeclaration();
}

/// The largest value the integer Len can take at its definition, from
/// ScalarEvolution's unsigned range (known bits, `!range` metadata,
/// `llvm.assume`, loop trip counts, the dominating conditions it sees) and
/// ValueTracking's constant range, and LazyValueInfo's range at At (the
/// copy: conditions that dominate it); UINT64_MAX when unbounded or wider
/// than 64 bits.
uint64_t cg_length_max(CgFunctionCtx *Ctx, LLVMValueRef CLen,
                       LLVMValueRef CAt) {
  Value *Len = unwrap(CLen);
  Instruction *At = unwrap<Instruction>(CAt);
  if (!Len->getType()->isIntegerTy() ||
      Len->getType()->getIntegerBitWidth() > 64)
    return UINT64_MAX;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  APInt Max = SE.getUnsignedRangeMax(SE.getSCEV(Len));
  ConstantRange CR = computeConstantRange(Len, /*ForSigned=*/false,
                                          /*UseInstrInfo=*/true);
  APInt Max2 = CR.getUnsignedMax();
  if (Max2.ult(Max))
    Max = Max2;
  // The conditions on the paths to At (`if (n <= 64) memcpy(d, s, n)`).
  LazyValueInfo &LVI = Ctx->FAM.getResult<LazyValueAnalysis>(Ctx->F);
  APInt Max3 =
      LVI.getConstantRange(Len, At, /*UndefAllowed=*/false).getUnsignedMax();
  if (Max3.ult(Max))
    Max = Max3;
  return Max.getLimitedValue();
}

/// The most bytes the copy call Call (dst, src, len, ...) can move without
/// undefined behaviour: the smaller of what is left, from the pointers it
/// is given, of its destination's and its source's objects (getObjectSize:
/// allocas, globals with a definitive initializer, allocation calls of
/// constant size, through constant offsets; the largest object where a
/// select or phi picks one; the whole object at an offset it cannot
/// evaluate); UINT64_MAX when neither is known.
uint64_t cg_copy_object_max(CgFunctionCtx *Ctx, LLVMValueRef CCall) {
  auto *CB = dyn_cast<CallBase>(unwrap(CCall));
  if (!CB || CB->arg_size() < 2)
    return UINT64_MAX;
  const DataLayout &DL = CB->getModule()->getDataLayout();
  ObjectSizeOpts Opts;
  Opts.EvalMode = ObjectSizeOpts::Mode::Max;
  Opts.NullIsUnknownSize = true;
  uint64_t Best = UINT64_MAX;
  for (unsigned I = 0; I < 2; ++I) {
    Value *P = CB->getArgOperand(I);
    uint64_t Size;
    if (!P->getType()->isPointerTy())
      continue;
    // A pointer at an unknown offset into an object of Size bytes has at
    // most Size of them left.
    if ((getObjectSize(P, Size, DL, &Ctx->TLI, Opts) ||
         getObjectSize(getUnderlyingObject(P), Size, DL, &Ctx->TLI, Opts)) &&
        Size < Best)
      Best = Size;
  }
  return Best;
}

/// Whether To may run after From on some path of the function (LLVM's
/// isPotentiallyReachable, with the dominator tree and loop info: a false
/// answer is a proof).
bool cg_may_reach(CgFunctionCtx *Ctx, LLVMValueRef From, LLVMValueRef To) {
  return isPotentiallyReachable(unwrap<Instruction>(From),
                                unwrap<Instruction>(To), nullptr, &Ctx->DT,
                                &Ctx->LI);
}

/// Loop nesting depth of a block (0 outside loops; irreducible cycles are not
/// loops).
uint32_t cg_loop_depth(CgFunctionCtx *Ctx, LLVMBasicBlockRef BB) {
  return Ctx->LI.getLoopDepth(unwrap(BB));
}

/// If pointer Ptr, used in block BB, only grows from one iteration to the
/// next of the innermost loop L containing BB (ScalarEvolution: an affine
/// add recurrence of L with a known positive step), returns L's unique
/// predecessor outside the loop (every entry into L passes through it) and
/// sets *Header to L's header; otherwise null.
LLVMBasicBlockRef cg_increasing_in_loop(CgFunctionCtx *Ctx, LLVMValueRef Ptr,
                                        LLVMBasicBlockRef BB,
                                        LLVMBasicBlockRef *Header) {
  Loop *L = Ctx->LI.getLoopFor(unwrap(BB));
  if (!L || !L->getLoopPredecessor())
    return nullptr;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(unwrap(Ptr)));
  if (!AR || AR->getLoop() != L || !AR->isAffine() ||
      !SE.isKnownPositive(AR->getStepRecurrence(SE)))
    return nullptr;
  *Header = wrap(L->getHeader());
  return wrap(L->getLoopPredecessor());
}

/// Whether P - Q is a constant number of bytes (ScalarEvolution: both
/// pointers evaluated at the same point of one iteration); sets *Distance.
bool cg_constant_distance(CgFunctionCtx *Ctx, LLVMValueRef P, LLVMValueRef Q,
                          int64_t *Distance) {
  Value *PV = unwrap(P), *QV = unwrap(Q);
  if (PV->getType() != QV->getType())
    return false;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  const auto *D =
      dyn_cast<SCEVConstant>(SE.getMinusSCEV(SE.getSCEV(PV), SE.getSCEV(QV)));
  if (!D || D->getAPInt().getSignificantBits() > 63)
    return false;
  *Distance = D->getAPInt().getSExtValue();
  return true;
}

/// Whether the access [Ptr, Ptr + Size) at instruction At lies inside
/// [Base, Base + Len) for the copy call Copy, which dominates At: with
/// Off = Ptr - Base (ScalarEvolution), Size <= Len and Off <= Len - Size
/// (unsigned, so Off >= 0 and nothing wraps) hold at At, using the
/// conditions that dominate it and the loops' induction facts. Size is
/// SizeValue when non-null, else SizeConst bytes.
bool cg_access_within(CgFunctionCtx *Ctx, LLVMValueRef Ptr, uint64_t SizeConst,
                      LLVMValueRef SizeValue, LLVMValueRef Base,
                      LLVMValueRef Len, LLVMValueRef At, LLVMValueRef Copy) {
  auto *AtI = unwrap<Instruction>(At);
  if (!Ctx->DT.dominates(unwrap<Instruction>(Copy), AtI))
    return false;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  Value *P = unwrap(Ptr), *B = unwrap(Base);
  if (P->getType() != B->getType())
    return false;
  const SCEV *Off = SE.getMinusSCEV(SE.getSCEV(P), SE.getSCEV(B));
  if (isa<SCEVCouldNotCompute>(Off))
    return false;
  Type *Ty = Off->getType();
  const SCEV *LenS = SE.getTruncateOrZeroExtend(SE.getSCEV(unwrap(Len)), Ty);
  const SCEV *SizeS =
      SizeValue ? SE.getTruncateOrZeroExtend(SE.getSCEV(unwrap(SizeValue)), Ty)
                : SE.getConstant(Ty, SizeConst);
  if (!SE.isKnownPredicateAt(ICmpInst::ICMP_ULE, SizeS, LenS, AtI))
    return false;
  const SCEV *Room = SE.getMinusSCEV(LenS, SizeS);
  if (SE.isKnownPredicateAt(ICmpInst::ICMP_ULE, Off, Room, AtI))
    return true;
  // An offset that grows without wrapping in a loop lies between its start
  // and its value at the last iteration (ScalarEvolution's symbolic
  // maximum backedge-taken count): check both where the loop is entered.
  // (Needed after unrolling, whose exit test counts with another
  // induction variable than the one the accesses use.)
  const auto *AR = dyn_cast<SCEVAddRecExpr>(Off);
  if (!AR || !AR->isAffine() || !AR->hasNoUnsignedWrap() ||
      !SE.isKnownNonNegative(AR->getStepRecurrence(SE)))
    return false;
  const Loop *L = AR->getLoop();
  const SCEV *Count = SE.getSymbolicMaxBackedgeTakenCount(L);
  BasicBlock *Pred = L->getLoopPredecessor();
  if (isa<SCEVCouldNotCompute>(Count) || !Pred || !SE.isLoopInvariant(Room, L))
    return false;
  Instruction *Entry = Pred->getTerminator();
  const SCEV *Last = AR->evaluateAtIteration(Count, SE);
  return SE.isKnownPredicateAt(ICmpInst::ICMP_ULE, AR->getStart(), Room,
                               Entry) &&
         SE.isKnownPredicateAt(ICmpInst::ICMP_ULE, Last, Room, Entry);
}

/// Whether block BB lies in the natural loop whose header is Header (the
/// analysis manager's loop info: the IR as it was before the pass).
bool cg_loop_contains(CgFunctionCtx *Ctx, LLVMBasicBlockRef Header,
                      LLVMBasicBlockRef BB) {
  Loop *L = Ctx->LI.getLoopFor(unwrap(Header));
  return L && L->getHeader() == unwrap(Header) && L->contains(unwrap(BB));
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

/// Splits Before's block: `if (Cond) { <then block> } else { <else block> }`
/// then Before. Stores both new blocks' terminators (insert each arm's code
/// before its terminator).
void cg_split_if_then_else(LLVMValueRef Cond, LLVMValueRef Before,
                           LLVMValueRef *ThenTerm, LLVMValueRef *ElseTerm) {
  Instruction *I = unwrap<Instruction>(Before);
  Instruction *Then = nullptr;
  Instruction *Else = nullptr;
  SplitBlockAndInsertIfThenElse(unwrap(Cond), I, &Then, &Else);
  *ThenTerm = wrap(Then);
  *ElseTerm = wrap(Else);
}

/// Points the uses Uses (a use list, in its order) at To, keeping that
/// order (Use::set pushes on the front of a use list).
static void setUsesInOrder(ArrayRef<Use *> Uses, Value *To) {
  for (Use *U : llvm::reverse(Uses))
    U->set(To);
}

static SmallVector<Use *, 16> usesOf(Value *V) {
  SmallVector<Use *, 16> Uses;
  for (Use &U : V->uses())
    Uses.push_back(&U);
  return Uses;
}

/// Exchanges the metadata uses (debug records) of A and B.
static void swapMetadataUses(Value *A, Value *B) {
  if (!A->isUsedByMetadata() && !B->isUsedByMetadata())
    return;
  Argument *Tmp = new Argument(A->getType());
  ValueAsMetadata::handleRAUW(A, Tmp);
  ValueAsMetadata::handleRAUW(B, A);
  ValueAsMetadata::handleRAUW(Tmp, B);
  Tmp->deleteValue();
}

/// Exchanges the bodies (blocks, argument uses, !dbg subprogram) of F and
/// its fresh clone NF, so that NF, the nothing-pending copy, runs F's own
/// instructions: CloneFunction builds values whose use lists are in another
/// order, which instruction selection and register allocation read. False
/// (left as cloned) when a block's address is taken.
static bool swapBodies(Function *F, Function *NF) {
  for (BasicBlock &BB : *F)
    if (BB.hasAddressTaken())
      return false;
  // Through an empty function, so that no value is renamed.
  Function *Tmp = Function::Create(
      NF->getFunctionType(), GlobalValue::InternalLinkage, "", F->getParent());
  Tmp->splice(Tmp->end(), NF);
  NF->splice(NF->end(), F);
  for (auto [A, NA] : llvm::zip(F->args(), NF->args())) {
    SmallVector<Use *, 16> Own = usesOf(&A);
    SmallVector<Use *, 16> Theirs = usesOf(&NA);
    setUsesInOrder(Own, &NA);
    setUsesInOrder(Theirs, &A);
    swapMetadataUses(&A, &NA);
  }
  F->splice(F->end(), Tmp);
  Tmp->eraseFromParent();
  DISubprogram *SP = F->getSubprogram();
  F->setSubprogram(NF->getSubprogram());
  NF->setSubprogram(SP);
  return true;
}

/// A copy of F's body as an internal function named Name, for the
/// nothing-pending dispatch of a guarded function (the copy gets F's own
/// instructions, F the cloned ones: see swapBodies); nullptr when calls to it
/// could not stand for F's body (variadic, or an argument passed in F's
/// caller's frame: byval, inalloca, preallocated, swift ABI).
LLVMValueRef cg_clone_for_dispatch(CgModuleAM *CMAM, LLVMValueRef CF,
                                   const char *Name) {
  Function *F = unwrap<Function>(CF);
  if (F->isVarArg() || F->isDeclaration())
    return nullptr;
  for (const Argument &A : F->args())
    if (A.hasByValAttr() || A.hasInAllocaAttr() || A.hasPreallocatedAttr() ||
        A.hasSwiftErrorAttr() || A.hasSwiftSelfAttr())
      return nullptr;
  ValueToValueMapTy VMap;
  Function *NF = CloneFunction(F, VMap);
  if (swapBodies(F, NF)) {
    // F's cached analyses describe the blocks NF has now.
    auto &MAM = *reinterpret_cast<ModuleAnalysisManager *>(CMAM);
    MAM.getResult<FunctionAnalysisManagerModuleProxy>(*F->getParent())
        .getManager()
        .invalidate(*F, PreservedAnalyses::none());
  }
  NF->setName(Name);
  NF->setLinkage(GlobalValue::InternalLinkage);
  NF->setVisibility(GlobalValue::DefaultVisibility);
  NF->setDLLStorageClass(GlobalValue::DefaultStorageClass);
  NF->setComdat(nullptr);
  return wrap(NF);
}

/// At Before (in F's entry block, after its allocas): `if (*Word == 0)
/// return tail call Clone(args)` (an acquire load of the pending word). The
/// call takes the debug location of F's first located instruction, as the
/// verifier requires of calls between functions with debug info.
void cg_insert_dispatch(LLVMValueRef CF, LLVMValueRef CClone,
                        LLVMValueRef CWord, LLVMValueRef CBefore) {
  Function *F = unwrap<Function>(CF);
  Function *Clone = unwrap<Function>(CClone);
  Instruction *Before = unwrap<Instruction>(CBefore);
  DebugLoc Loc;
  for (Instruction &I : instructions(*F))
    if (I.getDebugLoc()) {
      Loc = I.getDebugLoc();
      break;
    }
  IRBuilder<> B(Before);
  B.SetCurrentDebugLocation(DebugLoc());
  Type *SizeTy = F->getParent()->getDataLayout().getIntPtrType(F->getContext());
  LoadInst *W = B.CreateAlignedLoad(
      SizeTy, unwrap(CWord), Align(SizeTy->getPrimitiveSizeInBits() / 8));
  W->setAtomic(AtomicOrdering::Acquire);
  Value *None = B.CreateICmpEQ(W, ConstantInt::get(SizeTy, 0));
  Instruction *Term = SplitBlockAndInsertIfThen(None, Before, false);
  B.SetInsertPoint(Term);
  B.SetCurrentDebugLocation(Loc);
  SmallVector<Value *, 8> Args;
  for (Argument &A : F->args())
    Args.push_back(&A);
  CallInst *Call = B.CreateCall(Clone, Args);
  Call->setCallingConv(F->getCallingConv());
  Call->setTailCallKind(CallInst::TCK_Tail);
  // Parameter and return attributes as the callee declares them (zeroext,
  // signext, inreg, sret: the ABI of the call must match the definition).
  AttributeList FA = F->getAttributes();
  SmallVector<AttributeSet, 8> ParamAttrs;
  for (unsigned I = 0; I < F->arg_size(); ++I)
    ParamAttrs.push_back(FA.getParamAttrs(I));
  Call->setAttributes(AttributeList::get(F->getContext(), AttributeSet(),
                                         FA.getRetAttrs(), ParamAttrs));
  if (F->getReturnType()->isVoidTy())
    B.CreateRetVoid();
  else
    B.CreateRet(Call);
  Term->eraseFromParent();
}

/// Replaces the call CCall (not an invoke, not musttail) of a guarded
/// function by `*Word == 0 ? Clone(args) : callee(args)` (an acquire load of
/// the pending word), so that the nothing-pending path skips the callee's
/// own dispatch and prologue. Returns false when the call is left alone.
bool cg_dispatch_call(LLVMValueRef CCall, LLVMValueRef CClone,
                      LLVMValueRef CWord) {
  auto *CI = dyn_cast<CallInst>(unwrap<Instruction>(CCall));
  if (!CI || CI->isMustTailCall())
    return false;
  Function *Clone = unwrap<Function>(CClone);
  IRBuilder<> B(CI);
  Type *SizeTy =
      CI->getModule()->getDataLayout().getIntPtrType(CI->getContext());
  LoadInst *W = B.CreateAlignedLoad(
      SizeTy, unwrap(CWord), Align(SizeTy->getPrimitiveSizeInBits() / 8));
  W->setAtomic(AtomicOrdering::Acquire);
  Value *None = B.CreateICmpEQ(W, ConstantInt::get(SizeTy, 0));
  Instruction *ThenT = nullptr;
  Instruction *ElseT = nullptr;
  SplitBlockAndInsertIfThenElse(None, CI, &ThenT, &ElseT);
  BasicBlock *Tail = CI->getParent();
  auto *U = cast<CallInst>(CI->clone());
  U->setCalledFunction(Clone);
  U->insertBefore(ThenT->getIterator());
  CI->moveBefore(ElseT->getIterator());
  if (!CI->getType()->isVoidTy()) {
    PHINode *P = PHINode::Create(CI->getType(), 2);
    P->insertBefore(Tail->begin());
    CI->replaceAllUsesWith(P);
    P->addIncoming(U, U->getParent());
    P->addIncoming(CI, CI->getParent());
  }
  return true;
}

/// Replaces the conditional branch Br by an unconditional branch to its
/// successor SuccIdx; the other successor loses this predecessor (its PHIs
/// drop the incoming value) and is deleted when no other block reaches it.
/// Then merges the straight-line blocks that
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
  // A block only this branch reached (a guard's miss block) is dead.
  if (Keep != Drop && pred_empty(Drop) && !Drop->isEntryBlock())
    DeleteDeadBlock(Drop);
  BasicBlock *Next = Keep->getSingleSuccessor();
  if (MergeBlockIntoPredecessor(Keep))
    Keep = Head;
  if (Next && Next != Keep)
    MergeBlockIntoPredecessor(Next);
}

//===----------------------------------------------------------------------===//
// Loop versioning: an unguarded copy of a loop, entered from the guarded
// loop's header once a run-time condition holds. The IR has changed since
// the analysis manager's analyses were built: these functions work on fresh
// ones (cg_loop_prepare builds them; any IR change invalidates them).
//===----------------------------------------------------------------------===//

namespace {

/// The natural loop whose header is H under the fresh loop info, or null.
Loop *freshLoop(CgFunctionCtx *Ctx, BasicBlock *H) {
  if (!Ctx->FreshLI)
    return nullptr;
  Loop *L = Ctx->FreshLI->getLoopFor(H);
  return L && L->getHeader() == H ? L : nullptr;
}

} // namespace

/// A loop copy: the map from the original loop's values and blocks to the
/// copy's.
struct CgLoopClone {
  ValueToValueMapTy VMap;
};

/// Rebuilds the dominator tree and loop info of the current IR, then puts
/// the loop whose header is Header into loop-simplify form (preheader,
/// single latch, dedicated exits) and LCSSA form. Returns the preheader, or
/// null when the loop has more than MaxInsts instructions, cannot be cloned
/// (indirectbr, convergent or noduplicate calls, tokens used outside) or does
/// not reach those forms.
LLVMBasicBlockRef cg_loop_prepare(CgFunctionCtx *Ctx, LLVMBasicBlockRef Header,
                                  size_t MaxInsts) {
  Ctx->FreshLI.reset();
  Ctx->FreshDT = std::make_unique<DominatorTree>(Ctx->F);
  Ctx->FreshLI = std::make_unique<LoopInfo>(*Ctx->FreshDT);
  Loop *L = freshLoop(Ctx, unwrap(Header));
  if (!L)
    return nullptr;
  size_t Size = 0;
  for (BasicBlock *BB : L->blocks())
    Size += BB->size();
  if (Size > MaxInsts || !L->isSafeToClone())
    return nullptr;
  AssumptionCache &AC = Ctx->FAM.getResult<AssumptionAnalysis>(Ctx->F);
  simplifyLoop(L, Ctx->FreshDT.get(), Ctx->FreshLI.get(), nullptr, &AC, nullptr,
               /*PreserveLCSSA=*/false);
  // (Inner loops first: formLCSSA assumes them in LCSSA form.)
  formLCSSARecursively(*L, *Ctx->FreshDT, Ctx->FreshLI.get(), nullptr);
  if (!L->isLoopSimplifyForm() || !L->isLCSSAForm(*Ctx->FreshDT) ||
      !L->isSafeToClone())
    return nullptr;
  return wrap(L->getLoopPreheader());
}

/// Before the pass changes F (the analysis manager's analyses): for the
/// natural loop L whose header is Header, emits before the terminator of
/// L's unique outside predecessor an integer M (pointer width) with
/// Ptr + Offset <= M for every value Ptr takes while L runs (one entry),
/// saturated at 2^width - 1 - Len. The smaller of two bounds, each when
/// available: ScalarEvolution (Ptr an affine add recurrence of L with a
/// positive constant step and a computable symbolic maximum backedge-taken
/// count: start + step * count, in double width so that it cannot wrap);
/// the size of Ptr's underlying object (an allocation of known size:
/// `[Ptr + Offset, + Len)` is accessed, so it lies inside the object).
/// Without either, the saturation value itself. *Kinds gets the
/// CgBoundKind bits of the bounds used. Returns null, emitting nothing,
/// when L has no unique outside predecessor, more than MaxInsts
/// instructions, at most MinTrips iterations (a constant maximum: a copy
/// would not pay for itself), or cannot be cloned (cg_loop_prepare would
/// refuse it).
LLVMValueRef cg_loop_max_address(CgFunctionCtx *Ctx, LLVMBasicBlockRef Header,
                                 size_t MaxInsts, unsigned MinTrips,
                                 LLVMValueRef CPtr, int64_t Offset,
                                 uint64_t Len, uint8_t *Kinds) {
  *Kinds = 0;
  Loop *L = Ctx->LI.getLoopFor(unwrap(Header));
  if (!L || L->getHeader() != unwrap(Header) || !L->getLoopPredecessor() ||
      !L->isSafeToClone())
    return nullptr;
  size_t Size = 0;
  for (BasicBlock *BB : L->blocks())
    Size += BB->size();
  if (Size > MaxInsts)
    return nullptr;
  ScalarEvolution &SE = Ctx->FAM.getResult<ScalarEvolutionAnalysis>(Ctx->F);
  unsigned MaxTrips = SE.getSmallConstantMaxTripCount(L);
  if (MaxTrips && MaxTrips <= MinTrips)
    return nullptr;
  Value *Ptr = unwrap(CPtr);
  Instruction *At = L->getLoopPredecessor()->getTerminator();
  const DataLayout &DL = Ctx->F.getDataLayout();
  auto *IntPtrTy = cast<IntegerType>(DL.getIntPtrType(Ptr->getType()));
  unsigned Width = IntPtrTy->getBitWidth();
  auto *WideTy = IntegerType::get(Ctx->F.getContext(), 2 * Width);
  APInt Cap = APInt::getMaxValue(Width) - APInt(Width, Len);
  IRBuilder<> B(At);
  auto Wide = [&](Value *V) -> Value * {
    if (V->getType()->isPointerTy())
      V = B.CreatePtrToInt(V, IntPtrTy);
    return B.CreateZExtOrTrunc(V, WideTy);
  };
  Value *Bound = nullptr;

  const auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(Ptr));
  const SCEV *Count = SE.getSymbolicMaxBackedgeTakenCount(L);
  if (AR && AR->getLoop() == L && AR->isAffine() &&
      !isa<SCEVCouldNotCompute>(Count)) {
    const auto *Step = dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE));
    SCEVExpander Exp(SE, "copiergen");
    if (Step && Step->getAPInt().isStrictlyPositive() &&
        Step->getAPInt().getActiveBits() < Width &&
        Exp.isSafeToExpandAt(AR->getStart(), At) &&
        Exp.isSafeToExpandAt(Count, At)) {
      Value *Start = Exp.expandCodeFor(AR->getStart(), nullptr, At);
      Value *N = Wide(Exp.expandCodeFor(Count, nullptr, At));
      B.SetInsertPoint(At);
      if (!Step->getAPInt().isOne())
        N = B.CreateMul(
            N, ConstantInt::get(WideTy, Step->getAPInt().zext(2 * Width)));
      Bound = B.CreateAdd(Wide(Start), N);
      if (Offset)
        Bound = B.CreateAdd(Bound, ConstantInt::getSigned(WideTy, Offset));
      *Kinds |= CG_BOUND_TRIP_COUNT;
    }
  }

  const Value *Obj = getUnderlyingObject(Ptr);
  uint64_t ObjSize = 0;
  bool Available =
      isa<Argument>(Obj) || isa<GlobalVariable>(Obj) ||
      (isa<Instruction>(Obj) && Ctx->DT.dominates(cast<Instruction>(Obj), At));
  if (Available && Obj->getType()->isPointerTy() &&
      getObjectSize(Obj, ObjSize, DL, &Ctx->TLI) && ObjSize >= Len) {
    // The accessed range [Ptr + Offset, + Len) lies inside the object.
    Value *End = B.CreateAdd(Wide(const_cast<Value *>(Obj)),
                             ConstantInt::get(WideTy, ObjSize - Len));
    Bound = Bound ? B.CreateBinaryIntrinsic(Intrinsic::umin, Bound, End) : End;
    *Kinds |= CG_BOUND_OBJECT_SIZE;
  }
  if (!Bound)
    return wrap(ConstantInt::get(IntPtrTy, Cap));
  Value *CapV = ConstantInt::get(WideTy, Cap.zext(2 * Width));
  return wrap(
      B.CreateTrunc(B.CreateBinaryIntrinsic(Intrinsic::umin, Bound, CapV),
                    IntPtrTy, "copiergen.max"));
}

/// Deletes V and the instructions only it used, if V is an unused
/// instruction without side effects (a bound no loop copy needed).
void cg_delete_if_dead(LLVMValueRef V) {
  RecursivelyDeleteTriviallyDeadInstructions(unwrap(V));
}

/// After cg_loop_prepare: copies every block of
/// the loop whose header is Header. The copy's header takes the edge from
/// the preheader over from a new branch in the original header: the
/// original header keeps its PHIs and ends in `br i1 false, copy header,
/// rest` (the returned *Dispatch: set its condition), the rest of its
/// instructions moving to a new block. The loop exits' LCSSA PHIs get the
/// copy's values for the copy's edges. Returns the map (free with
/// cg_loop_clone_end).
CgLoopClone *cg_loop_clone(CgFunctionCtx *Ctx, LLVMBasicBlockRef Header,
                           LLVMValueRef *Dispatch) {
  BasicBlock *H = unwrap(Header);
  Loop *L = freshLoop(Ctx, H);
  BasicBlock *PH = L->getLoopPreheader();
  auto *Clone = new CgLoopClone();
  SmallVector<BasicBlock *, 16> NewBlocks;
  for (BasicBlock *BB : L->blocks()) {
    BasicBlock *NB =
        CloneBasicBlock(BB, Clone->VMap, ".copiergen.unguarded", &Ctx->F);
    Clone->VMap[BB] = NB;
    NewBlocks.push_back(NB);
  }
  remapInstructionsInBlocks(NewBlocks, Clone->VMap);
  SmallVector<BasicBlock *, 4> Exits;
  L->getUniqueExitBlocks(Exits);
  for (BasicBlock *E : Exits)
    for (PHINode &PN : E->phis())
      for (unsigned I = 0, N = PN.getNumIncomingValues(); I < N; ++I) {
        BasicBlock *From = PN.getIncomingBlock(I);
        if (!L->contains(From))
          continue;
        Value *V = PN.getIncomingValue(I);
        if (Value *Mapped = Clone->VMap.lookup(V))
          V = Mapped;
        PN.addIncoming(V, cast<BasicBlock>(Clone->VMap[From]));
      }
  auto *HC = cast<BasicBlock>(Clone->VMap[H]);
  BasicBlock *Rest = SplitBlock(H, H->getFirstNonPHIIt(),
                                static_cast<DomTreeUpdater *>(nullptr), nullptr,
                                nullptr, H->getName() + ".guarded");
  auto Orig = H->phis().begin();
  for (PHINode &PN : HC->phis()) {
    int Idx = PN.getBasicBlockIndex(PH);
    PN.setIncomingBlock(Idx, H);
    PN.setIncomingValue(Idx, &*Orig);
    ++Orig;
  }
  Instruction *Term = H->getTerminator();
  BranchInst *D =
      BranchInst::Create(HC, Rest, ConstantInt::getFalse(Ctx->F.getContext()),
                         Term->getIterator());
  Term->eraseFromParent();
  *Dispatch = wrap(D);
  // The IR changed: the fresh analyses are stale.
  Ctx->FreshLI.reset();
  Ctx->FreshDT.reset();
  return Clone;
}

/// After cg_loop_clone, once branches of the copy jump into the original
/// loop (bail edges, the copy's edge from block From to original block To
/// set by the caller): every use of a value of the original loop that a
/// path through such an edge can reach sees the copy's value there
/// (SSAUpdater: PHIs where the two meet). Values are available in their
/// own block and in its copy; every path into the original loop through a
/// bail edge passed the copy of each definition the original path to the
/// use passes, so no PHI gets an undefined incoming value.
void cg_loop_clone_repair_ssa(CgFunctionCtx *Ctx, CgLoopClone *Clone) {
  // In program order (the map's order depends on addresses): the PHIs
  // come out the same on every run.
  SmallVector<std::pair<Instruction *, Instruction *>, 64> Pairs;
  for (BasicBlock &BB : Ctx->F)
    for (Instruction &I : BB) {
      auto *C = dyn_cast_or_null<Instruction>(Clone->VMap.lookup(&I));
      if (!C || C == &I || I.getType()->isVoidTy() ||
          I.getType()->isTokenTy() || I.use_empty())
        continue;
      Pairs.push_back({&I, C});
    }
  for (auto [I, C] : Pairs) {
    SmallVector<Use *, 8> Uses;
    for (Use &U : I->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      // A use in the definition's own block (not a PHI) stays dominated.
      if (User->getParent() == I->getParent() && !isa<PHINode>(User))
        continue;
      Uses.push_back(&U);
    }
    if (Uses.empty())
      continue;
    SSAUpdater SSA;
    SSA.Initialize(I->getType(), I->getName());
    SSA.AddAvailableValue(I->getParent(), I);
    SSA.AddAvailableValue(C->getParent(), C);
    for (Use *U : Uses)
      SSA.RewriteUse(*U);
  }
}

/// Sets successor Index of the terminator Term to Target.
void cg_set_successor(LLVMValueRef Term, unsigned Index,
                      LLVMBasicBlockRef Target) {
  unwrap<Instruction>(Term)->setSuccessor(Index, unwrap(Target));
}

/// In the loop copy: replaces every load of the global Word by 0 (the copy
/// runs only while it reads 0 and submits nothing), simplifies the
/// instructions that fed, folds constant branches, marks the copy's calls
/// CG_NOTHING_PENDING_MD, and deletes the blocks of F that are no longer
/// reachable.
void cg_loop_clone_assume_zero(CgFunctionCtx *Ctx, CgLoopClone *Clone,
                               LLVMValueRef Word) {
  Value *W = unwrap(Word);
  SmallPtrSet<Value *, 32> Copies;
  for (auto KV : Clone->VMap)
    if (isa<BasicBlock>(KV.first))
      Copies.insert(static_cast<Value *>(KV.second));
  SmallVector<BasicBlock *, 16> Blocks;
  for (BasicBlock &BB : Ctx->F)
    if (Copies.contains(&BB))
      Blocks.push_back(&BB);
  for (BasicBlock *B : Blocks)
    for (Instruction &I : make_early_inc_range(*B))
      if (auto *L = dyn_cast<LoadInst>(&I))
        if (L->getPointerOperand() == W) {
          L->replaceAllUsesWith(Constant::getNullValue(L->getType()));
          L->eraseFromParent();
        }
  for (BasicBlock *B : Blocks) {
    SimplifyInstructionsInBlock(B);
    ConstantFoldTerminator(B, /*DeleteDeadConditions=*/true);
  }
  // Calls in the copy run with nothing pending: their dispatch needs no
  // test (CG_NOTHING_PENDING_MD).
  for (BasicBlock *B : Blocks)
    for (Instruction &I : *B)
      if (isa<CallInst>(I))
        I.setMetadata(CG_NOTHING_PENDING_MD,
                      MDNode::get(Ctx->F.getContext(), {}));
  removeUnreachableBlocks(Ctx->F);
}

/// The header of the innermost natural loop containing BB when that loop
/// has no inner loop (analyses of the IR as it was), else null.
LLVMBasicBlockRef cg_innermost_loop(CgFunctionCtx *Ctx, LLVMBasicBlockRef BB) {
  Loop *L = Ctx->LI.getLoopFor(unwrap(BB));
  return L && L->isInnermost() ? wrap(L->getHeader()) : nullptr;
}

/// For each of the N blocks Blocks[I]: the header of the outermost natural
/// loop containing it that contains none of the NBlocked blocks Blocked,
/// has at most MaxInsts instructions and can be cloned (cg_loop_prepare's
/// conditions), into Out[I]; null when the innermost loop already fails,
/// or when the blocks of Blocks in that loop are expected to run fewer
/// than MinPerEntry times per entry into it (block frequencies: branch
/// weights and profiles where the IR has them, LLVM's static estimate
/// otherwise), or, with OutermostOnly, when that loop lies in another
/// loop. Loop info of the IR as it is now (built here, replacing the
/// fresh one).
void cg_outermost_loops_without(CgFunctionCtx *Ctx, LLVMBasicBlockRef *Blocks,
                                size_t N, LLVMBasicBlockRef *Blocked,
                                size_t NBlocked, size_t MaxInsts,
                                unsigned MinPerEntry, bool OutermostOnly,
                                LLVMBasicBlockRef *Out) {
  Ctx->FreshLI.reset();
  Ctx->FreshDT = std::make_unique<DominatorTree>(Ctx->F);
  Ctx->FreshLI = std::make_unique<LoopInfo>(*Ctx->FreshDT);
  auto Fits = [&](Loop *L) {
    for (size_t J = 0; J < NBlocked; ++J)
      if (L->contains(unwrap(Blocked[J])))
        return false;
    size_t Size = 0;
    for (BasicBlock *BB : L->blocks())
      Size += BB->size();
    return Size <= MaxInsts && L->isSafeToClone();
  };
  SmallVector<Loop *, 16> Best(N, nullptr);
  for (size_t I = 0; I < N; ++I)
    for (Loop *L = Ctx->FreshLI->getLoopFor(unwrap(Blocks[I])); L && Fits(L);
         L = L->getParentLoop())
      Best[I] = L;
  BranchProbabilityInfo BPI(Ctx->F, *Ctx->FreshLI, &Ctx->TLI,
                            Ctx->FreshDT.get(), nullptr);
  BlockFrequencyInfo BFI(Ctx->F, BPI, *Ctx->FreshLI);
  for (size_t I = 0; I < N; ++I) {
    Loop *L = Best[I];
    Out[I] = nullptr;
    if (!L || (OutermostOnly && L->getParentLoop()))
      continue;
    BasicBlock *H = L->getHeader();
    uint64_t Entry = 0;
    for (BasicBlock *P : predecessors(H))
      if (!L->contains(P))
        Entry +=
            (BFI.getBlockFreq(P) * BPI.getEdgeProbability(P, H)).getFrequency();
    uint64_t Runs = 0;
    for (size_t J = 0; J < N; ++J)
      if (Best[J] == L)
        Runs += BFI.getBlockFreq(unwrap(Blocks[J])).getFrequency();
    if (Runs >= uint64_t(MinPerEntry) * std::max<uint64_t>(Entry, 1))
      Out[I] = wrap(H);
  }
}

/// The copy of V made by cg_loop_clone (V itself when V is not in the loop).
LLVMValueRef cg_loop_clone_lookup(CgLoopClone *Clone, LLVMValueRef V) {
  Value *M = Clone->VMap.lookup(unwrap(V));
  return wrap(M ? M : unwrap(V));
}

void cg_loop_clone_end(CgLoopClone *Clone) { delete Clone; }

/// Function versioning: copies every block of F except the entry's static
/// allocas, which both versions share. The allocas (constant-size ones of
/// the entry block) move to its front, the entry splits after them and
/// ends in `br i1 false, copy, original` (the returned *Dispatch: set its
/// condition). Returns the map (free with cg_loop_clone_end; the
/// cg_loop_clone_* functions apply), or null, changing nothing, when F has
/// more than MaxInsts instructions or cannot be copied: a block whose
/// address is taken, indirectbr or callbr, a token-typed value (funclet EH
/// pads, a token a PHI cannot merge), a convergent, noduplicate or
/// returns_twice call, or a pre-split coroutine.
CgLoopClone *cg_body_clone(CgFunctionCtx *Ctx, size_t MaxInsts,
                           LLVMValueRef *Dispatch) {
  Function &F = Ctx->F;
  if (F.isDeclaration() || F.isPresplitCoroutine())
    return nullptr;
  size_t Size = 0;
  for (BasicBlock &BB : F) {
    if (BB.hasAddressTaken())
      return nullptr;
    for (Instruction &I : BB) {
      if (++Size > MaxInsts || I.getType()->isTokenTy() ||
          isa<IndirectBrInst, CallBrInst>(I))
        return nullptr;
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (CB->isConvergent() || CB->cannotDuplicate() ||
            CB->hasFnAttr(Attribute::ReturnsTwice))
          return nullptr;
    }
  }
  BasicBlock &Entry = F.getEntryBlock();
  // Static allocas first, in their order: the copy uses the same slots.
  SmallVector<AllocaInst *, 16> Allocas;
  for (Instruction &I : Entry)
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && AI->isStaticAlloca())
      Allocas.push_back(AI);
  for (size_t I = 0; I < Allocas.size(); ++I) {
    if (I == 0)
      Allocas[I]->moveBefore(Entry.begin());
    else
      Allocas[I]->moveAfter(Allocas[I - 1]);
  }
  BasicBlock::iterator SplitAt = Entry.begin();
  while (isa<AllocaInst>(*SplitAt) &&
         cast<AllocaInst>(*SplitAt).isStaticAlloca())
    ++SplitAt;
  BasicBlock *Body =
      SplitBlock(&Entry, SplitAt, static_cast<DomTreeUpdater *>(nullptr),
                 nullptr, nullptr, "copiergen.guarded");
  auto *Clone = new CgLoopClone();
  SmallVector<BasicBlock *, 32> Blocks, NewBlocks;
  for (BasicBlock &BB : F)
    if (&BB != &Entry)
      Blocks.push_back(&BB);
  for (BasicBlock *BB : Blocks) {
    BasicBlock *NB =
        CloneBasicBlock(BB, Clone->VMap, ".copiergen.unguarded", &F);
    Clone->VMap[BB] = NB;
    NewBlocks.push_back(NB);
  }
  remapInstructionsInBlocks(NewBlocks, Clone->VMap);
  Instruction *Term = Entry.getTerminator();
  BranchInst *D = BranchInst::Create(cast<BasicBlock>(Clone->VMap[Body]), Body,
                                     ConstantInt::getFalse(F.getContext()),
                                     Term->getIterator());
  Term->eraseFromParent();
  *Dispatch = wrap(D);
  Ctx->FreshLI.reset();
  Ctx->FreshDT.reset();
  return Clone;
}

/// After cg_body_clone: every edge of the copy into the copy of one of the
/// N blocks Targets goes to the original block instead (bail edges). The
/// original's PHIs get the copy's values for the new edges; the copied
/// block's PHIs lose them.
void cg_body_clone_bail(CgLoopClone *Clone, LLVMBasicBlockRef *Targets,
                        size_t N) {
  DenseMap<BasicBlock *, BasicBlock *> ToOriginal;
  for (size_t I = 0; I < N; ++I)
    if (auto *C = dyn_cast_or_null<BasicBlock>(
            Clone->VMap.lookup(unwrap(Targets[I]))))
      ToOriginal[C] = unwrap(Targets[I]);
  DenseMap<BasicBlock *, BasicBlock *> Source;
  for (auto KV : Clone->VMap)
    if (auto *B = dyn_cast<BasicBlock>(KV.first))
      Source[cast<BasicBlock>(KV.second)] = const_cast<BasicBlock *>(B);
  for (auto [Copy, Orig] : Source) {
    Instruction *Term = Copy->getTerminator();
    for (unsigned K = 0, E = Term->getNumSuccessors(); K < E; ++K) {
      BasicBlock *To = ToOriginal.lookup(Term->getSuccessor(K));
      if (!To)
        continue;
      Term->getSuccessor(K)->removePredecessor(Copy,
                                               /*KeepOneInputPHIs=*/true);
      for (PHINode &PN : To->phis()) {
        Value *V = PN.getIncomingValueForBlock(Orig);
        if (Value *M = Clone->VMap.lookup(V))
          V = M;
        PN.addIncoming(V, Copy);
      }
      Term->setSuccessor(K, To);
    }
  }
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
