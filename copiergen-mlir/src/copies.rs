//! Which operations are plain memref copies: `memref.copy`, `linalg.copy` on
//! memrefs, and a `linalg.generic` whose body only yields its input through
//! identity maps on parallel loops.

use melior::ir::block::BlockLike;
use melior::ir::operation::OperationLike;
use melior::ir::{OperationRef, RegionLike, Value, ValueLike};

use crate::memref::MemrefInfo;

/// A copy of every element of `src` into `dst` (same shape).
#[derive(Clone, Copy, Debug)]
pub struct CopyOp<'c, 'a> {
    /// The operation that copies.
    pub op: OperationRef<'c, 'a>,
    /// Source memref.
    pub src: Value<'c, 'a>,
    /// Destination memref.
    pub dst: Value<'c, 'a>,
    /// The operation's name (`memref.copy`, `linalg.copy`, `linalg.generic`).
    pub form: &'static str,
}

/// `op` as a copy, when it is one of the forms above on memrefs.
pub fn as_copy<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<CopyOp<'c, 'a>> {
    let name = op.name();
    let name = name.as_string_ref().as_str().ok()?;
    let form = match name {
        "memref.copy" => "memref.copy",
        "linalg.copy" => "linalg.copy",
        "linalg.generic" if is_plain_copy_generic(op) => "linalg.generic",
        _ => return None,
    };
    if op.operand_count() != 2 || op.result_count() != 0 {
        return None;
    }
    let src = op.operand(0).ok()?;
    let dst = op.operand(1).ok()?;
    MemrefInfo::of(src.r#type())?;
    MemrefInfo::of(dst.r#type())?;
    Some(CopyOp { op, src, dst, form })
}

fn is_plain_copy_generic(op: OperationRef) -> bool {
    let Ok(maps) = op.attribute("indexing_maps") else { return false };
    let Ok(iters) = op.attribute("iterator_types") else { return false };
    let maps = maps.to_string();
    let iters = iters.to_string();
    // [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
    let Some(inner) = maps.strip_prefix('[').and_then(|s| s.strip_suffix(']')) else { return false };
    let parts: Vec<&str> = inner.split(">, ").collect();
    if parts.len() != 2 {
        return false;
    }
    let identity = |m: &str| {
        let m = m.trim_end_matches('>');
        let Some(body) = m.strip_prefix("affine_map<") else { return false };
        let Some((dims, results)) = body.split_once(" -> ") else { return false };
        dims == results && !dims.contains('[')
    };
    if !parts.iter().all(|p| identity(p)) {
        return false;
    }
    if iters.contains("reduction") || iters.contains("window") {
        return false;
    }
    let Ok(region) = op.region(0) else { return false };
    let Some(block) = region.first_block() else { return false };
    let Some(first) = block.first_operation() else { return false };
    if first.name().as_string_ref().as_str() != Ok("linalg.yield") || first.operand_count() != 1 {
        return false;
    }
    match (first.operand(0), block.argument(0)) {
        (Ok(v), Ok(a)) => v.to_raw().ptr == a.to_raw().ptr,
        _ => false,
    }
}
