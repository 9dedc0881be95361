//! Facts about a memref type that the rewrite and the lowering need: rank,
//! static shape, element size in bytes, memory space.

use melior::ir::r#type::DimSize;
use melior::ir::r#type::{MemRefType, ShapedTypeLike};
use melior::ir::Type;

/// A ranked memref's shape and element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemrefInfo {
    /// Number of dimensions (0 for `memref<f32>`).
    pub rank: usize,
    /// Each dimension's size, `None` where dynamic (`?`).
    pub shape: Vec<Option<u64>>,
    /// The element type as MLIR prints it (`f64`, `i32`, `complex<f32>`).
    pub element: String,
    /// Bytes of one element in memory, when the lowering knows it.
    pub element_bytes: Option<u64>,
    /// Whether the memref lives in a non-default memory space.
    pub memory_space: bool,
}

impl MemrefInfo {
    /// The facts of `ty`, or `None` when it is not a ranked memref.
    pub fn of(ty: Type) -> Option<Self> {
        let m = MemRefType::try_from(ty).ok()?;
        let rank = m.rank();
        let shape = (0..rank)
            .map(|i| match m.dim_size(i) {
                Ok(DimSize::Static(n)) => Some(n),
                _ => None,
            })
            .collect();
        let element = m.element().to_string();
        let element_bytes = element_bytes(&element);
        Some(Self { rank, shape, element, element_bytes, memory_space: m.memory_space().is_some() })
    }

    /// Bytes of the whole memref when every dimension and the element size
    /// are static.
    pub fn static_bytes(&self) -> Option<u64> {
        let mut n = self.element_bytes?;
        for d in &self.shape {
            n = n.checked_mul((*d)?)?;
        }
        Some(n)
    }

    /// Whether some static dimension is 0 (the memref holds no element).
    pub fn statically_empty(&self) -> bool {
        self.shape.contains(&Some(0))
    }

    /// The fully dynamic strided type of this rank and element
    /// (`memref<?x?xf64, strided<[?, ?], offset: ?>>`): every memref of the
    /// rank casts to it, so one lowering helper serves them all.
    pub fn dynamic_type(&self) -> String {
        let dims: String = (0..self.rank).map(|_| "?x").collect();
        let strides = vec!["?"; self.rank].join(", ");
        format!("memref<{dims}{}, strided<[{strides}], offset: ?>>", self.element)
    }

    /// A symbol-safe name of the element and rank (`f64_2`).
    pub fn mangled(&self) -> String {
        let e: String = self.element.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        format!("{e}_{}", self.rank)
    }
}

/// Bytes of one element of a memref of `element` (as MLIR's LLVM lowering
/// lays it out), for the integer, index, float and complex types whose
/// layout is a whole number of bytes; `None` for the others (i1, vectors, …).
pub fn element_bytes(element: &str) -> Option<u64> {
    if let Some(inner) = element.strip_prefix("complex<").and_then(|s| s.strip_suffix('>')) {
        return element_bytes(inner).map(|n| 2 * n);
    }
    match element {
        "index" => Some(8),
        "f16" | "bf16" => Some(2),
        "f32" => Some(4),
        "f64" => Some(8),
        "f128" => Some(16),
        _ => {
            let bits: u64 = element
                .strip_prefix('i')
                .or_else(|| element.strip_prefix("si"))
                .or_else(|| element.strip_prefix("ui"))?
                .parse()
                .ok()?;
            (bits >= 8 && bits.is_power_of_two()).then_some(bits / 8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::element_bytes;

    #[test]
    fn element_sizes() {
        assert_eq!(element_bytes("f64"), Some(8));
        assert_eq!(element_bytes("i8"), Some(1));
        assert_eq!(element_bytes("complex<f32>"), Some(8));
        assert_eq!(element_bytes("index"), Some(8));
        assert_eq!(element_bytes("i1"), None);
        assert_eq!(element_bytes("vector<4xf32>"), None);
    }
}
