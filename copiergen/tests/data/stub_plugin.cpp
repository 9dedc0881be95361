// A pass plugin that registers a no-op pass under CopierGen's name and entry
// points, so copiergen's own tests do not depend on the real pass. With
// STUB_PLUGIN_LOG=<file> set, each run appends "<module> <threshold>" to it
// (the -copiergen-threshold option if given, else COPIERGEN_THRESHOLD, else
// "-"), which tells the tests where and with which options the plugin ran.
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"
#include <cstdio>
#include <cstdlib>

using namespace llvm;

namespace {
cl::opt<std::string> Threshold("copiergen-threshold", cl::init(""));

struct StubPass : PassInfoMixin<StubPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (const char *Log = std::getenv("STUB_PLUGIN_LOG")) {
      const char *T = std::getenv("COPIERGEN_THRESHOLD");
      if (!Threshold.empty())
        T = Threshold.c_str();
      if (FILE *F = std::fopen(Log, "a")) {
        std::fprintf(F, "%s %s\n", M.getName().str().c_str(), T ? T : "-");
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
