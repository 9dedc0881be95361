// A pass plugin that registers a no-op pass under CopierGen's name and entry
// points, so copiergen's own tests do not depend on the real pass. With
// STUB_PLUGIN_LOG=<file> set, each run appends "<module> <threshold>" to it
// (the -copiergen-threshold option if given, else the last
// -copiergen-threshold= in COPIERGEN_OPTIONS, as the real plugin reads it,
// else "-"), which tells the tests where and with which options it ran.
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace {
cl::opt<std::string> Threshold("copiergen-threshold", cl::init(""));

struct StubPass : PassInfoMixin<StubPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (const char *Log = std::getenv("STUB_PLUGIN_LOG")) {
      std::string T = "-";
      if (const char *Env = std::getenv("COPIERGEN_OPTIONS")) {
        std::string E(Env);
        const std::string Key = "-copiergen-threshold=";
        size_t At = E.rfind(Key);
        if (At != std::string::npos)
          T = E.substr(At + Key.size(), E.find(' ', At) - At - Key.size());
      }
      if (!Threshold.empty())
        T = Threshold;
      if (FILE *F = std::fopen(Log, "a")) {
        std::fprintf(F, "%s %s\n", M.getName().str().c_str(), T.c_str());
        std::fclose(F);
      }
    }
    return PreservedAnalyses::all();
  }
};
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "copiergen-stub", "0", [](PassBuilder &PB) {
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM,
                   ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "copiergen")
                    return false;
                  MPM.addPass(StubPass());
                  return true;
                });
            PB.registerOptimizerLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel,
                   ThinOrFullLTOPhase) { MPM.addPass(StubPass()); });
            PB.registerFullLinkTimeOptimizationLastEPCallback(
                [](ModulePassManager &MPM, OptimizationLevel) {
                  MPM.addPass(StubPass());
                });
          }};
}
