//! CopierGen for MLIR: `memref.copy` (and `linalg.copy`, and `linalg.generic`
//! copies) become asynchronous copies, `copier.copy_async`, with
//! `copier.wait`s placed by memory effects and alias analysis
//! ([`placement`]); [`lower`] turns them into libcopier calls (the
//! descriptor API `copier_submit`/`copier_wait` for dense copies, `amemcpy`
//! per row and `csync` for strided ones) ahead of the standard lowering to
//! the LLVM dialect.
//!
//! The `copiergen-mlir` executable (and `copiergen mlir`, which runs it)
//! is the command line ([`cli`]). It is a crate of its own because it links
//! MLIR's static archives (melior on mlir-sys: a large, slow build).

pub mod cli;
pub mod copies;
pub mod diag;
pub mod effects;
pub mod ir;
pub mod lower;
pub mod memref;
pub mod pipeline;
pub mod placement;
pub mod private;
pub mod rewrite;

pub use placement::Placement;
pub use rewrite::Counts;

/// The rewrite of MLIR text, for tests and tools: the rewritten module as
/// MLIR prints it, and the diagnostics (remarks) emitted on the way.
/// Errors carry MLIR's diagnostics of a malformed input.
pub fn rewrite_text(text: &str, placement: Placement) -> Result<(String, Vec<diag::Diag>, Counts), pipeline::Failure> {
    let (ctx, diags) = pipeline::context();
    let module = pipeline::parse_str(&ctx, &diags, text)?;
    let counts = rewrite::run(&ctx, &module, placement);
    let remarks = diags.take();
    pipeline::verify(&module, &diags, "the rewritten module")?;
    Ok((module.as_operation().to_string(), remarks, counts))
}

/// The rewrite and the copier lowering ([`lower`]) of MLIR text, before the
/// lowering to the LLVM dialect: the module as MLIR prints it. Errors carry
/// MLIR's diagnostics.
pub fn lower_copier_text(text: &str, placement: Placement) -> Result<String, pipeline::Failure> {
    let (ctx, diags) = pipeline::context();
    let module = pipeline::parse_str(&ctx, &diags, text)?;
    rewrite::run(&ctx, &module, placement);
    diags.take();
    lower::run(&ctx, &module, placement.threshold).map_err(|what| pipeline::Failure { what, diags: diags.take() })?;
    pipeline::verify(&module, &diags, "the lowered module")?;
    Ok(module.as_operation().to_string())
}

/// The rewrite, the copier lowering and `lowering` (an mlir-opt pipeline,
/// such as [`pipeline::DEFAULT_LOWERING`]) of MLIR text, translated to LLVM
/// IR text. Errors carry MLIR's diagnostics.
pub fn lower_text(text: &str, placement: Placement, lowering: &str) -> Result<String, pipeline::Failure> {
    let (ctx, diags) = pipeline::context();
    let mut module = pipeline::parse_str(&ctx, &diags, text)?;
    rewrite::run(&ctx, &module, placement);
    diags.take();
    lower::run(&ctx, &module, placement.threshold).map_err(|what| pipeline::Failure { what, diags: diags.take() })?;
    pipeline::run_pipeline(&ctx, &diags, &mut module, lowering)?;
    pipeline::check_llvm_only(&module, &diags)?;
    pipeline::translate(&module, &diags)
}
