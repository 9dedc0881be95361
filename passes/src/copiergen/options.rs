//! CopierGen's command-line options (prefix `copiergen-`), registered by
//! the plugin in the order of [`OPTIONS`] (see [`crate::options`]).

use crate::options::{OptionDefault, PluginOption};

/// `-copiergen-threshold=N`: copies whose length is a compile-time constant
/// below N bytes stay synchronous `memcpy`. N is a size as
/// `copiergen --copier-threshold` takes it (`16384`, `16k`:
/// [`copier_abi::parse_size`]). Default: the runtime's inline threshold
/// [`copier_abi::DEFAULT_THRESHOLD`], below which submitting costs more
/// than copying. Overridden by the pass parameter `copiergen<threshold=N>`.
pub static THRESHOLD: PluginOption = PluginOption {
    name: "copiergen-threshold",
    help: "Constant-length copies shorter than this many bytes (e.g. 16384 or 16k) stay synchronous (default: libcopier's inline threshold)",
    default: OptionDefault::Size(copier_abi::DEFAULT_THRESHOLD as u64),
};

/// `-copiergen-window=false` disables the windowed wait in loops (a cached
/// `[lo, end)` ready window checked inline before each access; a
/// `csync_ready_end` call only when the access leaves it): loops then call
/// `csync` before every guarded access.
pub static WINDOW: PluginOption = PluginOption {
    name: "copiergen-window",
    help: "Guard accesses in loops with an inline ready-window check (csync_ready_end on a miss) instead of a csync call",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-max-queries=N`: alias-analysis budget per function. A function
/// that needs more queries keeps its copies synchronous (missed remark
/// `TooLarge`), so huge generated functions cannot stall the compiler.
pub static MAX_QUERIES: PluginOption = PluginOption {
    name: "copiergen-max-queries",
    help: "Alias queries allowed per function before CopierGen leaves its copies synchronous",
    default: OptionDefault::Uint(4_000_000),
};

/// `-copiergen-min-overlap=N`: the cost model. A copy whose first
/// whole-copy sync (a `csync` of the copy or `csync_all`: before `ret` when
/// the destination escapes, before a call that may read it, before `free`)
/// follows it on **every** path after fewer than N instructions of work
/// stays a synchronous `memcpy` (missed remark `NoOverlap`): waiting at once
/// gains nothing and costs the submission. Work is counted per path
/// (longest path wins); a call to a function (unknown work), inline asm, a
/// variable-length memory intrinsic or a loop without a sync on the way
/// counts as enough work. 0 rewrites every eligible copy. Overridden by the
/// pass parameter `copiergen<min-overlap=N>`.
///
/// Default 256: `bench/compiler/run.sh` (`ONLY=overlap`) measures
/// amemcpy + W instructions of independent straight-line work + csync
/// against memcpy + the same work; on the 2-core reference VM the
/// asynchronous copy of 16-256 KiB was 1.9x-2.3x slower at W = 256 and
/// 1.36x-1.42x at W = 1024, and paid from W = 4096 (0.78x-0.99x) on a
/// quiet machine, later under load (a submission and a waiting csync cost
/// far more than a few hundred instructions). 256 keeps only copies whose
/// overlap surely cannot pay for the submission.
pub static MIN_OVERLAP: PluginOption = PluginOption {
    name: "copiergen-min-overlap",
    help: "Keep a copy synchronous when its whole-copy sync follows on every path after fewer than this many instructions of work, no call or loop (0: never)",
    default: OptionDefault::Uint(256),
};

/// `-copiergen-loop-guards=false` disables the loop-guard rule of the cost
/// model (`placement::loop_guards`): by default a copy of run-time length
/// that would need ready-window checks of loads or stores on every
/// iteration of its own loop stays `memcpy` (missed remark `LoopGuards`).
/// From `bench/programs`: in zstd's sequence decoder and lz4_flex's
/// compressor such copies (match and literal copies of a few bytes) made
/// the programs execute 36% and 26% more instructions than the plain
/// build, for copies that never overlapped anything.
pub static LOOP_GUARDS: PluginOption = PluginOption {
    name: "copiergen-loop-guards",
    help: "Keep a copy of run-time length synchronous when it would need ready-window checks of loads or stores on every iteration of its loop",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-max-narrow=N`: a function that would need more than N
/// narrow syncs (each a guard in the code) is planned coarsely instead: the
/// first access a pending copy conflicts with waits for the whole copy.
/// Bounds the code (and compile time) the pass adds to large functions.
pub static MAX_NARROW: PluginOption = PluginOption {
    name: "copiergen-max-narrow",
    help: "Narrow syncs allowed per function before it is planned coarsely (whole-copy sync at the first conflicting access)",
    default: OptionDefault::Uint(32),
};

/// `-copiergen-guard-callees=false` turns off guarded callees: every call
/// that may touch a pending copy's buffers waits for the whole copy first.
pub static GUARD_CALLEES: PluginOption = PluginOption {
    name: "copiergen-guard-callees",
    help: "Let module functions called with pending copies wait inside (guarded callees) instead of before the call",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-lazy=false`: never submit a copy lazy
/// ([`super::lazy_copies`]: a copy whose destination only goes to the
/// write/send family and then dies is otherwise submitted with
/// `amemcpy_lazy` and dropped with `copier_drop`).
pub static LAZY: PluginOption = PluginOption {
    name: "copiergen-lazy",
    help: "Submit copies whose destination only reaches write/send calls and then dies lazy (amemcpy_lazy), dropped at the end (copier_drop)",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-dispatch=false` turns off the nothing-pending dispatch of
/// guarded callees: each gets an unguarded copy of its body, run when the
/// pending word reads 0 at its entry.
pub static DISPATCH: PluginOption = PluginOption {
    name: "copiergen-dispatch",
    help: "Give each guarded callee an unguarded copy of its body, run when nothing is pending at its entry",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-unguarded-loops=N`: a loop of at most N instructions with
/// increasing-pointer guards (and no copy submitted inside) gets a copy
/// without them, entered from its header once their ready windows cover
/// every address the rest of the loop execution can reach (loop
/// versioning; 0 turns it off).
pub static UNGUARDED_LOOPS: PluginOption = PluginOption {
    name: "copiergen-unguarded-loops",
    help: "Largest loop (instructions) that gets an unguarded copy run once its ready windows cover the rest of the loop (0: none)",
    default: OptionDefault::Uint(2000),
};

/// `-copiergen-pending-free-functions=N`: a function of at most N
/// instructions whose copies all split at run time (variable length, below
/// the threshold inline) gets a copy of its body without checks, entered
/// when nothing is pending at its entry; a long copy bails into the checked
/// body ([`super::pending_free`]; 0 turns it off).
pub static PENDING_FREE_FUNCTIONS: PluginOption = PluginOption {
    name: "copiergen-pending-free-functions",
    help: "Largest function (instructions) whose copies all split at run time that gets a copy without checks, run while nothing is pending at its entry (0: none)",
    default: OptionDefault::Uint(2000),
};

/// `-copiergen-disable`: the automatically scheduled run (clang
/// `-fpass-plugin`, LTO) does nothing; `-passes=copiergen` still runs.
pub static DISABLE: PluginOption = PluginOption {
    name: "copiergen-disable",
    help: "Do not run CopierGen from the default pipelines (an explicit -passes=copiergen still runs)",
    default: OptionDefault::Bool(false),
};

/// `-copiergen-verify`: after CopierGen changes a function, run LLVM's IR
/// verifier on it and report invalid IR as an error naming the function
/// (clang runs with `-disable-llvm-verifier`, so a pass bug would otherwise
/// surface as a back-end crash or a silent miscompile). On by default: one
/// linear walk per changed function.
pub static VERIFY: PluginOption = PluginOption {
    name: "copiergen-verify",
    help: "Run the IR verifier on every function CopierGen changed; invalid IR is an error",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-size-profile=false`: ignore memcpy size value profiles
/// (`-fprofile-use`; [`super::size_profile`]), as if the build had none.
pub static SIZE_PROFILE: PluginOption = PluginOption {
    name: "copiergen-size-profile",
    help: "Use the memcpy size value profiles of -fprofile-use: copies profiled short stay memcpy, copies profiled long skip the size split",
    default: OptionDefault::Bool(true),
};

/// `-copiergen-link-runtime`: every module the pass runs on refers to
/// libcopier (`emit::Runtime::anchor`) unless its own names conflict with
/// libcopier's, so a static link pulls the runtime in for the modules that
/// can use it and leaves a program that defines `csync` itself alone.
/// `copiergen cc` sets it on its compile jobs, and then no longer forces
/// the runtime in with `--undefined` (except at `-flto`, where the pass
/// runs after the linker has chosen its archive members).
pub static LINK_RUNTIME: PluginOption = PluginOption {
    name: "copiergen-link-runtime",
    help: "Make each module whose names do not conflict with libcopier's refer to it, so a static link pulls it in (set by copiergen cc)",
    default: OptionDefault::Bool(false),
};

/// CopierGen's options, in registration order.
pub static OPTIONS: &[&PluginOption] = &[
    &THRESHOLD, &WINDOW, &MAX_QUERIES, &MIN_OVERLAP, &LOOP_GUARDS, &MAX_NARROW, &GUARD_CALLEES, &DISPATCH, &UNGUARDED_LOOPS, &PENDING_FREE_FUNCTIONS, &LAZY, &DISABLE, &VERIFY, &SIZE_PROFILE, &LINK_RUNTIME,
];
