//! Lowering of the `copier` operations to calls into libcopier, before the
//! standard MLIR → LLVM pipeline: each memref is cast to the fully dynamic
//! strided type of its rank and element, and a helper function per (element,
//! rank), written here in MLIR, reads its strided metadata and calls
//!
//! - for `copier.copy_async` of dense row-major memrefs (checked at run time
//!   from the strides): the descriptor API, `copier_submit`, whose handle
//!   becomes the token; below the threshold a plain `llvm.memcpy` (glibc's)
//!   and token 0 (complete). Otherwise one `amemcpy` per row (innermost
//!   stride 1 on both sides), else a synchronous `memref.copy`, and token
//!   [`RANGE_TOKEN`]: a descriptor holds one contiguous range, so a
//!   strided copy has no handle of its own;
//! - for `copier.wait` with a token: `copier_wait(handle, offset, len)` on
//!   the bytes the view spans, as offsets into the copy (the view lies in its
//!   destination or its source); `csync` over them for [`RANGE_TOKEN`], a
//!   view outside the copy, or a handle `copier_wait` rejects; nothing for
//!   token 0 or an empty view;
//! - for the range form of `copier.wait` (no token): `csync` over the bytes
//!   the view spans. `csync` returns when no earlier copy of the thread
//!   touches the range.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use melior::dialect::func;
use melior::ir::attribute::FlatSymbolRefAttribute;
use melior::ir::block::BlockLike;
use melior::ir::operation::{OperationBuilder, OperationLike};
use melior::ir::{Module, OperationRef, Type, Value, ValueLike};
use melior::Context;
use mlir_sys::{mlirOpResultGetOwner, mlirValueIsAOpResult};

use crate::ir::{clone_op, erase, name, walk};
use crate::memref::MemrefInfo;
use crate::rewrite::{COPY_ASYNC, WAIT};

/// The token of a copy that has no descriptor (a strided copy, one
/// `amemcpy` per row, or its synchronous fallback): its waits are `csync`s
/// of their range. Never a handle: libcopier's handles keep a client index
/// below 255 in their low byte.
pub const RANGE_TOKEN: i64 = -1;

/// Lowers every `copier` operation of `module` to calls; adds the helpers
/// and the libcopier declarations. Dense copies of fewer than `small` bytes
/// (known at run time) become `llvm.memcpy`. Returns the number lowered.
pub fn run(ctx: &Context, module: &Module, small: u64) -> Result<usize, String> {
    let mut ops: Vec<OperationRef> = Vec::new();
    walk(module.as_operation(), &mut |op| {
        let n = name(op);
        if n == COPY_ASYNC || n == WAIT {
            ops.push(op);
        }
        true
    });
    let mut helpers: BTreeMap<String, String> = BTreeMap::new();
    let i64_ty = Type::parse(ctx, "i64").ok_or("cannot build i64")?;
    let index_ty = Type::index(ctx);
    // Per copy_async: the results of its call (handle, destination and
    // source address, bytes), which its waits take.
    let mut copies: HashMap<usize, Vec<Value>> = HashMap::new();
    // Copies first: a wait takes its copy's results.
    let (copy_ops, wait_ops): (Vec<OperationRef>, Vec<OperationRef>) =
        ops.iter().partition(|o| name(**o) == COPY_ASYNC);
    for op in copy_ops.iter().chain(&wait_ops) {
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
        if !is_copy && op.operand_count() == 2 {
            let token = op.operand(0).map_err(|e| e.to_string())?;
            let results = defining_op(token)
                .and_then(|c| copies.get(&c))
                .ok_or("internal error: a copier.wait whose token is not a lowered copier.copy_async")?;
            args.extend(results.iter().copied());
        }
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
        let m = info.mangled();
        let (helper, text, results) = if is_copy {
            let h = format!("__copiergen_copy_{m}");
            let text = copy_helper(&h, &info, es);
            (h, text, vec![i64_ty, index_ty, index_ty, index_ty])
        } else if op.operand_count() == 2 {
            let h = format!("__copiergen_wait_{m}");
            let text = wait_helper(&h, &info, es, true);
            (h, text, vec![])
        } else {
            let h = format!("__copiergen_range_wait_{m}");
            let text = wait_helper(&h, &info, es, false);
            (h, text, vec![])
        };
        helpers.entry(helper.clone()).or_insert(text);
        let call = func::call(ctx, FlatSymbolRefAttribute::new(ctx, &helper), &args, &results, op.location());
        let call = block.insert_operation_before(*op, call);
        if is_copy {
            let values = (0..results.len()).map(|k| call.result(k).map(Into::into)).collect::<Result<Vec<Value>, _>>();
            copies.insert(op.to_raw().ptr as usize, values.map_err(|e| e.to_string())?);
        }
    }
    drop(copies);
    // Waits first: they use the copies' tokens.
    for op in &wait_ops {
        // SAFETY: a wait has no results; it is not referenced again.
        unsafe { erase(*op) };
    }
    for op in &copy_ops {
        // SAFETY: its only uses, the waits, were erased above.
        unsafe { erase(*op) };
    }
    if ops.is_empty() {
        return Ok(0);
    }
    let mut text = String::from("module {\n");
    text.push_str(RUNTIME);
    let _ = write!(text, "{}", submit_helper(small));
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

/// The operation whose result `v` is (its address), if any.
fn defining_op(v: Value) -> Option<usize> {
    // SAFETY: v is a live value; the accessors only read IR links.
    unsafe { mlirValueIsAOpResult(v.to_raw()).then(|| mlirOpResultGetOwner(v.to_raw()).ptr as usize) }
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

/// libcopier's entry points, by their reserved symbols
/// (`copier_abi::symbols::PUBLIC`: a program's own `csync` never takes
/// these calls), and the address helpers every lowering uses.
/// `__copiergen_wait_handle(h, dst, src, n, start, len)`: the wait of token
/// `h` of a copy of `n` bytes from `src` to `dst` (addresses) on the bytes
/// `[start, start + len)`.
const RUNTIME: &str = r#"
  func.func private @__copier_amemcpy(!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
  func.func private @__copier_submit(!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, !llvm.ptr) -> i64
  func.func private @__copier_wait(i64, i64, i64) -> i32
  func.func private @__copier_csync(!llvm.ptr, i64)
  func.func private @__copiergen_amemcpy(%d: index, %s: index, %n: index) {
    %di = arith.index_cast %d : index to i64
    %si = arith.index_cast %s : index to i64
    %ni = arith.index_cast %n : index to i64
    %dp = llvm.inttoptr %di : i64 to !llvm.ptr
    %sp = llvm.inttoptr %si : i64 to !llvm.ptr
    %r = func.call @__copier_amemcpy(%dp, %sp, %ni) : (!llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
    return
  }
  func.func private @__copiergen_csync(%a: index, %n: index) {
    %ai = arith.index_cast %a : index to i64
    %ni = arith.index_cast %n : index to i64
    %ap = llvm.inttoptr %ai : i64 to !llvm.ptr
    func.call @__copier_csync(%ap, %ni) : (!llvm.ptr, i64) -> ()
    return
  }
  func.func private @__copiergen_wait_handle(%h: i64, %d: index, %s: index, %n: index, %a: index, %len: index) {
    %c0 = arith.constant 0 : i64
    %range = arith.constant -1 : i64
    %z = arith.constant 0 : index
    %live = arith.cmpi ne, %h, %c0 : i64
    %some = arith.cmpi ne, %len, %z : index
    %go = arith.andi %live, %some : i1
    scf.if %go {
      %end = arith.addi %a, %len : index
      %de = arith.addi %d, %n : index
      %se = arith.addi %s, %n : index
      %d0 = arith.cmpi uge, %a, %d : index
      %d1 = arith.cmpi ule, %end, %de : index
      %in_d = arith.andi %d0, %d1 : i1
      %s0 = arith.cmpi uge, %a, %s : index
      %s1 = arith.cmpi ule, %end, %se : index
      %in_s = arith.andi %s0, %s1 : i1
      %inside = arith.ori %in_d, %in_s : i1
      %handle = arith.cmpi ne, %h, %range : i64
      %use = arith.andi %inside, %handle : i1
      %base = arith.select %in_d, %d, %s : index
      %off = arith.subi %a, %base : index
      %offi = arith.index_cast %off : index to i64
      %leni = arith.index_cast %len : index to i64
      %ok = scf.if %use -> (i1) {
        %r = func.call @__copier_wait(%h, %offi, %leni) : (i64, i64, i64) -> i32
        %r0 = arith.constant 0 : i32
        %waited = arith.cmpi eq, %r, %r0 : i32
        scf.yield %waited : i1
      } else {
        %no = arith.constant false
        scf.yield %no : i1
      }
      %true = arith.constant true
      %fallback = arith.xori %ok, %true : i1
      scf.if %fallback {
        func.call @__copiergen_csync(%a, %len) : (index, index) -> ()
      }
    }
    return
  }
"#;

/// `__copiergen_submit(dst, src, n) -> handle`: a dense copy of `n` bytes,
/// through the descriptor API from `small` bytes on, else `llvm.memcpy`
/// (handle 0: complete). libcopier's own inline path for short copies does
/// not reach glibc's `memcpy` from `copier_submit` (only `amemcpy`'s gate
/// does), and a copy that short does not pay for its submission.
fn submit_helper(small: u64) -> String {
    format!(
        r#"  func.func private @__copiergen_submit(%d: index, %s: index, %n: index) -> i64 {{
    %di = arith.index_cast %d : index to i64
    %si = arith.index_cast %s : index to i64
    %ni = arith.index_cast %n : index to i64
    %dp = llvm.inttoptr %di : i64 to !llvm.ptr
    %sp = llvm.inttoptr %si : i64 to !llvm.ptr
    %small = arith.constant {small} : i64
    %short = arith.cmpi ult, %ni, %small : i64
    %h = scf.if %short -> (i64) {{
      "llvm.intr.memcpy"(%dp, %sp, %ni) <{{isVolatile = false}}> : (!llvm.ptr, !llvm.ptr, i64) -> ()
      %c0 = arith.constant 0 : i64
      scf.yield %c0 : i64
    }} else {{
      %f = arith.constant 0 : i32
      %null = llvm.mlir.zero : !llvm.ptr
      %r = func.call @__copier_submit(%dp, %sp, %ni, %f, %null, %null) : (!llvm.ptr, !llvm.ptr, i64, i32, !llvm.ptr, !llvm.ptr) -> i64
      scf.yield %r : i64
    }}
    return %h : i64
  }}
"#
    )
}

/// The start of a helper `@{sym}({params})`: the constants `%es` (element
/// bytes), `%c0`, `%c1`, and memref `%{p}` unpacked for each `p` of `unpacked`.
fn prologue(sym: &str, params: &str, results: &str, info: &MemrefInfo, es: u64, unpacked: &[&str]) -> String {
    let ty = info.dynamic_type();
    let mut o = String::new();
    let _ = writeln!(o, "  func.func private @{sym}({params}){results} {{");
    let _ = writeln!(o, "    %es = arith.constant {es} : index");
    let _ = writeln!(o, "    %c0 = arith.constant 0 : index");
    let _ = writeln!(o, "    %c1 = arith.constant 1 : index");
    for p in unpacked {
        unpack(&mut o, p, info, &ty);
    }
    o
}

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

/// `%{p}_c0`: whether memref `%{p}` is dense row-major.
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
}

/// `@{sym}(%s, %d) -> (handle, destination address, source address, bytes)`.
fn copy_helper(sym: &str, info: &MemrefInfo, es: u64) -> String {
    let ty = info.dynamic_type();
    let r = info.rank;
    let mut o = prologue(sym, &format!("%s: {ty}, %d: {ty}"), " -> (i64, index, index, index)", info, es, &["s", "d"]);
    // Bytes of the whole copy (the shapes are equal, as memref.copy requires).
    let _ = writeln!(o, "    %n0 = arith.constant {es} : index");
    for k in 0..r {
        let _ = writeln!(o, "    %n{} = arith.muli %n{k}, %s_sz{k} : index", k + 1);
    }
    let done = format!("    return %h, %d_a, %s_a, %n{r} : i64, index, index, index\n  }}\n");
    let submit = format!("func.call @__copiergen_submit(%d_a, %s_a, %n{r}) : (index, index, index) -> i64");
    if r == 0 {
        let _ = writeln!(o, "    %h = {submit}");
        o.push_str(&done);
        return o;
    }
    contiguity(&mut o, "s", r);
    contiguity(&mut o, "d", r);
    let _ = writeln!(o, "    %contig = arith.andi %s_c0, %d_c0 : i1");
    let _ = writeln!(o, "    %h = scf.if %contig -> (i64) {{");
    let _ = writeln!(o, "      %hd = {submit}");
    let _ = writeln!(o, "      scf.yield %hd : i64");
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
    let _ = writeln!(o, "      %hr = arith.constant {RANGE_TOKEN} : i64");
    let _ = writeln!(o, "      scf.yield %hr : i64");
    let _ = writeln!(o, "    }}");
    o.push_str(&done);
    o
}

/// A wait on view `%v`: `@{sym}(%h, %da, %sa, %n, %v)` with the results of
/// its copy's helper when `token`, else the range wait `@{sym}(%v)`.
fn wait_helper(sym: &str, info: &MemrefInfo, es: u64, token: bool) -> String {
    let ty = info.dynamic_type();
    let r = info.rank;
    let params = if token { format!("%h: i64, %da: index, %sa: index, %n: index, %v: {ty}") } else { format!("%v: {ty}") };
    let mut o = prologue(sym, &params, "", info, es, &["v"]);
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
    if token {
        let _ = writeln!(
            o,
            "    func.call @__copiergen_wait_handle(%h, %da, %sa, %n, %start, %len) : (i64, index, index, index, index, index) -> ()"
        );
    } else {
        let _ = writeln!(o, "    func.call @__copiergen_csync(%start, %len) : (index, index) -> ()");
    }
    let _ = writeln!(o, "    return\n  }}");
    o
}
