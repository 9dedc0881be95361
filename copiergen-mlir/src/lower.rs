//! Lowering of the `copier` operations to calls into libcopier, before the
//! standard MLIR → LLVM pipeline: each memref is cast to the fully dynamic
//! strided type of its rank and element, and a helper function per (element,
//! rank), written here in MLIR, reads its strided metadata and calls
//!
//! - for `copier.copy_async`: one `amemcpy` when both memrefs are contiguous
//!   (checked at run time from the strides), else one `amemcpy` per row
//!   (innermost stride 1 on both sides), else a synchronous `memref.copy`;
//! - for `copier.wait`: `csync` over the bytes the view spans (first to last
//!   element; 0 bytes for an empty view, which returns at once).
//!
//! A wait is a range wait: `csync` returns when no earlier copy of the thread
//! touches the range, which covers the token's copy (its token only orders
//! the operations in the IR).

use std::collections::BTreeMap;
use std::fmt::Write;

use melior::dialect::func;
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Module, OperationRef, Type, Value, ValueLike};
use melior::Context;

use crate::ir::{clone_op, erase, name, walk};
use crate::memref::MemrefInfo;
use crate::rewrite::{COPY_ASYNC, WAIT};

/// Lowers every `copier` operation of `module` to calls; adds the helpers
/// and the `amemcpy`/`csync` declarations. Returns the number lowered.
pub fn run(ctx: &Context, module: &Module) -> Result<usize, String> {
    let mut ops: Vec<OperationRef> = Vec::new();
    walk(module.as_operation(), &mut |op| {
        let n = name(op);
        if n == COPY_ASYNC || n == WAIT {
            ops.push(op);
        }
        true
    });
    let mut helpers: BTreeMap<String, String> = BTreeMap::new();
    for op in &ops {
        let is_copy = name(*op) == COPY_ASYNC;
        let buffers: Vec<Value> = if is_copy {
            vec![op.operand(0).map_err(|e| e.to_string())?, op.operand(1).map_err(|e| e.to_string())?]
        } else {
            vec![op.operand(op.operand_count() - 1).map_err(|e| e.to_string())?]
        };
        let info = MemrefInfo::of(buffers[0].r#type())
            .ok_or_else(|| format!("{}: operand is not a ranked memref", name(*op)))?;
        let es = info.element_bytes.ok_or_else(|| format!("no byte size for {}", info.element))?;
        let dyn_text = info.dynamic_type();
        let dyn_ty = Type::parse(ctx, &dyn_text).ok_or_else(|| format!("cannot build type {dyn_text}"))?;
        let block = op.block().expect("in a block");
        let mut args = Vec::new();
        for b in &buffers {
            if b.r#type() == dyn_ty {
                args.push(*b);
                continue;
            }
            let cast = OperationBuilder::new("memref.cast", op.location())
                .add_operands(&[*b])
                .add_results(&[dyn_ty])
                .build()
                .map_err(|e| e.to_string())?;
            let cast = block.insert_operation_before(*op, cast);
            args.push(cast.result(0).map_err(|e| e.to_string())?.into());
        }
        let helper = if is_copy {
            let h = format!("__copiergen_copy_{}", info.mangled());
            helpers.entry(h.clone()).or_insert_with(|| copy_helper(&h, &info, es));
            h
        } else {
            let h = format!("__copiergen_wait_{}", info.mangled());
            helpers.entry(h.clone()).or_insert_with(|| wait_helper(&h, &info, es));
            h
        };
        let call = func::call(ctx, FlatSymbolRefAttribute::new(ctx, &helper), &args, &[], op.location());
        block.insert_operation_before(*op, call);
    }
    // Waits first: they use the copies' tokens.
    for op in ops.iter().filter(|o| name(**o) == WAIT) {
        // SAFETY: a wait has no results; it is not referenced again.
        unsafe { erase(*op) };
    }
    for op in ops.iter().filter(|o| name(**o) == COPY_ASYNC) {
        // SAFETY: its only uses, the waits, were erased above.
        unsafe { erase(*op) };
    }
    if ops.is_empty() {
        return Ok(0);
    }
    let mut text = String::from("module {\n");
    text.push_str(RUNTIME);
    for h in helpers.values() {
        text.push_str(h);
    }
    text.push_str("}\n");
    let extra = Module::parse(ctx, &text).ok_or("internal error: lowering helpers do not parse")?;
    let body = module.body();
    let mut next = extra.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        let sym = op.attribute("sym_name").map(|a| a.to_string()).unwrap_or_default();
        if !sym.is_empty() && has_symbol(module, &sym) {
            continue;
        }
        body.append_operation(clone_op(op));
    }
    Ok(ops.len())
}

fn has_symbol(module: &Module, quoted: &str) -> bool {
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        if op.attribute("sym_name").map(|a| a.to_string()).as_deref() == Ok(quoted) {
            return true;
        }
        next = op.next_in_block();
    }
    false
}

/// libcopier's entry points and the address helpers every lowering uses.
const RUNTIME: &str = r#"
  func.func private @amemcpy(!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
  func.func private @csync(!llvm.ptr, i64)
  func.func private @__copiergen_amemcpy(%d: index, %s: index, %n: index) {
    %di = arith.index_cast %d : index to i64
    %si = arith.index_cast %s : index to i64
    %ni = arith.index_cast %n : index to i64
    %dp = llvm.inttoptr %di : i64 to !llvm.ptr
    %sp = llvm.inttoptr %si : i64 to !llvm.ptr
    %r = func.call @amemcpy(%dp, %sp, %ni) : (!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
    return
  }
  func.func private @__copiergen_csync(%a: index, %n: index) {
    %ai = arith.index_cast %a : index to i64
    %ni = arith.index_cast %n : index to i64
    %ap = llvm.inttoptr %ai : i64 to !llvm.ptr
    func.call @csync(%ap, %ni) : (!llvm.ptr, i64) -> ()
    return
  }
"#;

/// Lines that unpack memref `%{p}` of `info`'s rank: `%{p}_sz{k}`,
/// `%{p}_st{k}`, and `%{p}_a`, the address of its first element.
fn unpack(out: &mut String, p: &str, info: &MemrefInfo, ty: &str) {
    let r = info.rank;
    let mut names = vec![format!("%{p}_base"), format!("%{p}_off")];
    names.extend((0..r).map(|k| format!("%{p}_sz{k}")));
    names.extend((0..r).map(|k| format!("%{p}_st{k}")));
    let mut tys = vec![format!("memref<{}>", info.element), "index".to_owned()];
    tys.extend((0..2 * r).map(|_| "index".to_owned()));
    let _ =
        writeln!(out, "    {} = memref.extract_strided_metadata %{p} : {ty} -> {}", names.join(", "), tys.join(", "));
    let _ = writeln!(out, "    %{p}_ptr = memref.extract_aligned_pointer_as_index %{p} : {ty} -> index");
    let _ = writeln!(out, "    %{p}_offb = arith.muli %{p}_off, %es : index");
    let _ = writeln!(out, "    %{p}_a = arith.addi %{p}_ptr, %{p}_offb : index");
}

/// `%{p}_contig`: whether memref `%{p}` is dense row-major.
fn contiguity(out: &mut String, p: &str, rank: usize) {
    let _ = writeln!(out, "    %{p}_c{rank} = arith.constant true");
    for k in (0..rank).rev() {
        if k == rank - 1 {
            let _ = writeln!(out, "    %{p}_e{k} = arith.cmpi eq, %{p}_st{k}, %c1 : index");
        } else {
            let _ = writeln!(out, "    %{p}_x{k} = arith.muli %{p}_st{}, %{p}_sz{} : index", k + 1, k + 1);
            let _ = writeln!(out, "    %{p}_e{k} = arith.cmpi eq, %{p}_st{k}, %{p}_x{k} : index");
        }
        let _ = writeln!(out, "    %{p}_c{k} = arith.andi %{p}_c{}, %{p}_e{k} : i1", k + 1);
    }
    let _ = writeln!(out, "    %{p}_contig = arith.andi %{p}_c0, %{p}_c0 : i1");
}

fn copy_helper(sym: &str, info: &MemrefInfo, es: u64) -> String {
    let ty = info.dynamic_type();
    let r = info.rank;
    let mut o = String::new();
    let _ = writeln!(o, "  func.func private @{sym}(%s: {ty}, %d: {ty}) {{");
    let _ = writeln!(o, "    %es = arith.constant {es} : index");
    let _ = writeln!(o, "    %c0 = arith.constant 0 : index");
    let _ = writeln!(o, "    %c1 = arith.constant 1 : index");
    unpack(&mut o, "s", info, &ty);
    unpack(&mut o, "d", info, &ty);
    // Bytes of the whole copy (the shapes are equal, as memref.copy requires).
    let _ = writeln!(o, "    %n0 = arith.constant {es} : index");
    for k in 0..r {
        let _ = writeln!(o, "    %n{} = arith.muli %n{k}, %s_sz{k} : index", k + 1);
    }
    if r == 0 {
        let _ = writeln!(o, "    func.call @__copiergen_amemcpy(%d_a, %s_a, %n0) : (index, index, index) -> ()");
        let _ = writeln!(o, "    return\n  }}");
        return o;
    }
    contiguity(&mut o, "s", r);
    contiguity(&mut o, "d", r);
    let _ = writeln!(o, "    %contig = arith.andi %s_contig, %d_contig : i1");
    let _ = writeln!(o, "    scf.if %contig {{");
    let _ = writeln!(o, "      func.call @__copiergen_amemcpy(%d_a, %s_a, %n{r}) : (index, index, index) -> ()");
    let _ = writeln!(o, "    }} else {{");
    let last = r - 1;
    let _ = writeln!(o, "      %s_in = arith.cmpi eq, %s_st{last}, %c1 : index");
    let _ = writeln!(o, "      %d_in = arith.cmpi eq, %d_st{last}, %c1 : index");
    let _ = writeln!(o, "      %rows = arith.andi %s_in, %d_in : i1");
    let _ = writeln!(o, "      scf.if %rows {{");
    let _ = writeln!(o, "        %row = arith.muli %s_sz{last}, %es : index");
    // One amemcpy per row: loops over the outer dimensions.
    let _ = writeln!(o, "        %so0 = arith.constant 0 : index");
    let _ = writeln!(o, "        %do0 = arith.constant 0 : index");
    for k in 0..last {
        let _ = writeln!(o, "        scf.for %i{k} = %c0 to %s_sz{k} step %c1 {{");
        let _ = writeln!(o, "        %sm{k} = arith.muli %i{k}, %s_st{k} : index");
        let _ = writeln!(o, "        %so{} = arith.addi %so{k}, %sm{k} : index", k + 1);
        let _ = writeln!(o, "        %dm{k} = arith.muli %i{k}, %d_st{k} : index");
        let _ = writeln!(o, "        %do{} = arith.addi %do{k}, %dm{k} : index", k + 1);
    }
    let _ = writeln!(o, "        %sob = arith.muli %so{last}, %es : index");
    let _ = writeln!(o, "        %dob = arith.muli %do{last}, %es : index");
    let _ = writeln!(o, "        %sra = arith.addi %s_a, %sob : index");
    let _ = writeln!(o, "        %dra = arith.addi %d_a, %dob : index");
    let _ = writeln!(o, "        func.call @__copiergen_amemcpy(%dra, %sra, %row) : (index, index, index) -> ()");
    for _ in 0..last {
        let _ = writeln!(o, "        }}");
    }
    let _ = writeln!(o, "      }} else {{");
    let _ = writeln!(o, "        memref.copy %s, %d : {ty} to {ty}");
    let _ = writeln!(o, "      }}");
    let _ = writeln!(o, "    }}");
    let _ = writeln!(o, "    return\n  }}");
    o
}

fn wait_helper(sym: &str, info: &MemrefInfo, es: u64) -> String {
    let ty = info.dynamic_type();
    let r = info.rank;
    let mut o = String::new();
    let _ = writeln!(o, "  func.func private @{sym}(%v: {ty}) {{");
    let _ = writeln!(o, "    %es = arith.constant {es} : index");
    let _ = writeln!(o, "    %c0 = arith.constant 0 : index");
    let _ = writeln!(o, "    %c1 = arith.constant 1 : index");
    unpack(&mut o, "v", info, &ty);
    // Element offsets of the lowest and highest element, relative to the
    // first one; any dimension of size 0 makes the view empty.
    let _ = writeln!(o, "    %lo0 = arith.constant 0 : index");
    let _ = writeln!(o, "    %hi0 = arith.constant 0 : index");
    let _ = writeln!(o, "    %z0 = arith.constant false");
    for k in 0..r {
        let n = k + 1;
        let _ = writeln!(o, "    %m{k} = arith.subi %v_sz{k}, %c1 : index");
        let _ = writeln!(o, "    %x{k} = arith.muli %m{k}, %v_st{k} : index");
        let _ = writeln!(o, "    %neg{k} = arith.cmpi slt, %x{k}, %c0 : index");
        let _ = writeln!(o, "    %xl{k} = arith.select %neg{k}, %x{k}, %c0 : index");
        let _ = writeln!(o, "    %xh{k} = arith.select %neg{k}, %c0, %x{k} : index");
        let _ = writeln!(o, "    %lo{n} = arith.addi %lo{k}, %xl{k} : index");
        let _ = writeln!(o, "    %hi{n} = arith.addi %hi{k}, %xh{k} : index");
        let _ = writeln!(o, "    %e{k} = arith.cmpi sle, %v_sz{k}, %c0 : index");
        let _ = writeln!(o, "    %z{n} = arith.ori %z{k}, %e{k} : i1");
    }
    let _ = writeln!(o, "    %span = arith.subi %hi{r}, %lo{r} : index");
    let _ = writeln!(o, "    %span1 = arith.addi %span, %c1 : index");
    let _ = writeln!(o, "    %bytes = arith.muli %span1, %es : index");
    let _ = writeln!(o, "    %len = arith.select %z{r}, %c0, %bytes : index");
    let _ = writeln!(o, "    %lob = arith.muli %lo{r}, %es : index");
    let _ = writeln!(o, "    %start = arith.addi %v_a, %lob : index");
    let _ = writeln!(o, "    func.call @__copiergen_csync(%start, %len) : (index, index) -> ()");
    let _ = writeln!(o, "    return\n  }}");
    o
}
