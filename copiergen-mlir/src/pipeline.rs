//! The MLIR side of `copiergen mlir`: a context with every dialect, parsing
//! with MLIR's diagnostics, pass pipelines in `mlir-opt` syntax, the rewrite,
//! the lowering to the LLVM dialect and the translation to LLVM IR.

use std::ffi::CStr;

use melior::dialect::DialectRegistry;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::{
    parse_pass_pipeline, register_all_dialects, register_all_llvm_translations, register_all_passes,
};
use melior::Context;
use mlir_sys::{mlirModuleCreateParseFromFile, mlirTranslateModuleToLLVMIRToString, MlirStringRef};

use crate::diag::{Diag, Diagnostics};

/// The default lowering of a memref/scf/affine/linalg/arith program (after
/// the copier lowering) to the LLVM dialect.
pub const DEFAULT_LOWERING: &str = "builtin.module(func.func(convert-linalg-to-loops), \
expand-strided-metadata, lower-affine, convert-scf-to-cf, convert-cf-to-llvm, \
finalize-memref-to-llvm, convert-math-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, \
convert-func-to-llvm, reconcile-unrealized-casts)";

/// A failure with MLIR's diagnostics (printed as `mlir-opt` prints them).
#[derive(Debug)]
pub struct Failure {
    /// What failed (`parsing`, `the pass pipeline`, …).
    pub what: String,
    /// The diagnostics MLIR emitted, if any.
    pub diags: Vec<Diag>,
}

/// A context with every upstream dialect, pass and LLVM translation, which
/// accepts the unregistered `copier` dialect, plus its captured diagnostics.
pub fn context() -> (Context, Diagnostics) {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let ctx = Context::new_with_registry(&registry, false);
    ctx.load_all_available_dialects();
    ctx.set_allow_unregistered_dialects(true);
    register_all_llvm_translations(&ctx);
    register_all_passes();
    let diags = Diagnostics::attach(&ctx);
    (ctx, diags)
}

/// Parses the file at `path` (locations name it as given).
pub fn parse_file<'c>(ctx: &'c Context, diags: &Diagnostics, path: &str) -> Result<Module<'c>, Failure> {
    let s = MlirStringRef { data: path.as_ptr().cast(), length: path.len() };
    // SAFETY: ctx is live; s borrows path for the call; a null module means failure.
    let raw = unsafe { mlirModuleCreateParseFromFile(ctx.to_raw(), s) };
    if raw.ptr.is_null() {
        return Err(Failure { what: format!("cannot parse {path}"), diags: diags.take() });
    }
    // SAFETY: raw is a fresh, owned module.
    let module = unsafe { Module::from_raw(raw) };
    verify(&module, diags, "the input")?;
    Ok(module)
}

/// Parses MLIR source text (locations name `name`).
pub fn parse_str<'c>(ctx: &'c Context, diags: &Diagnostics, text: &str) -> Result<Module<'c>, Failure> {
    let module = Module::parse(ctx, text)
        .ok_or_else(|| Failure { what: "cannot parse the input".into(), diags: diags.take() })?;
    verify(&module, diags, "the input")?;
    Ok(module)
}

/// Runs the verifier.
pub fn verify(module: &Module, diags: &Diagnostics, what: &str) -> Result<(), Failure> {
    if module.as_operation().verify() {
        Ok(())
    } else {
        Err(Failure { what: format!("{what} does not verify"), diags: diags.take() })
    }
}

/// Runs `pipeline` (mlir-opt's `--pass-pipeline` syntax, anchored on
/// `builtin.module(...)`) on the module.
pub fn run_pipeline(ctx: &Context, diags: &Diagnostics, module: &mut Module, pipeline: &str) -> Result<(), Failure> {
    let pm = PassManager::new(ctx);
    pm.enable_verifier(true);
    parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
        .map_err(|e| Failure { what: format!("invalid pass pipeline: {e}"), diags: diags.take() })?;
    pm.run(module).map_err(|_| Failure { what: format!("pass pipeline `{pipeline}` failed"), diags: diags.take() })
}

/// Fails, with an MLIR error at the first one, when an operation outside
/// the `llvm` and `builtin` dialects is left: MLIR's translation to LLVM IR
/// does not diagnose those reliably (it can crash).
pub fn check_llvm_only(module: &Module, diags: &Diagnostics) -> Result<(), Failure> {
    let mut bad = None;
    crate::ir::walk(module.as_operation(), &mut |op| {
        let n = crate::ir::name(op);
        if n.starts_with("llvm.") || n.starts_with("builtin.") {
            return true;
        }
        bad = Some((n, op.location()));
        false
    });
    let Some((name, loc)) = bad else { return Ok(()) };
    let msg = std::ffi::CString::new(format!(
        "'{name}' is not in the LLVM dialect after the lowering; lower it first (--pass-pipeline, --lower-pipeline)"
    ))
    .expect("no NUL in an op name");
    // SAFETY: loc is a live location; msg outlives the call.
    unsafe { mlir_sys::mlirEmitError(loc.to_raw(), msg.as_ptr()) };
    Err(Failure { what: "the module is not in the LLVM dialect".into(), diags: diags.take() })
}

/// Translates a module in the LLVM dialect to LLVM IR text.
pub fn translate(module: &Module, diags: &Diagnostics) -> Result<String, Failure> {
    // SAFETY: the module is live; the result is a malloc'ed C string or null.
    let raw = unsafe { mlirTranslateModuleToLLVMIRToString(module.as_operation().to_raw()) };
    if raw.is_null() {
        return Err(Failure { what: "translation to LLVM IR failed".into(), diags: diags.take() });
    }
    // SAFETY: raw is a NUL-terminated string we own.
    let text = unsafe { CStr::from_ptr(raw) }.to_string_lossy().into_owned();
    // SAFETY: raw came from malloc in the translation and is freed once.
    unsafe { libc_free(raw.cast()) };
    if text.is_empty() {
        return Err(Failure { what: "translation to LLVM IR failed".into(), diags: diags.take() });
    }
    Ok(text)
}

unsafe extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut std::ffi::c_void);
}
