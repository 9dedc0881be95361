//! Range operations on the shadow (two bits per application byte, see
//! [`crate::mapping`]).
//!
//! Writers hold the tracker's lock ([`crate::tracker`]), so a read-modify-
//! write is a relaxed load and a relaxed store, never a locked instruction.
//! Readers (the instrumented fast path, the interceptors) read without the
//! lock: a byte's bits change only at program events (submit, sync), so a
//! reader that races with one is itself racing with the program's own
//! ordering, exactly like an ASan shadow read racing with `free`.

use core::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use crate::mapping::{self, DST_BITS, SRC_BITS};

/// Both kinds of pending bits.
pub const ALL_BITS: u8 = DST_BITS | SRC_BITS;

/// Where the shadow byte of an application address lives. The shadow bytes
/// of a contiguous application range are contiguous.
pub trait ShadowMem {
    /// Pointer to the shadow byte of application address `addr`.
    fn shadow_of(&self, addr: usize) -> *const AtomicU8;
    /// True if `[addr, addr + len)` (`len > 0`) has shadow.
    fn covers(&self, addr: usize, len: usize) -> bool;
    /// Give back the memory of whole shadow pages in `[beg, end)` (shadow
    /// addresses, page-aligned); they read as zero afterwards. Returns false
    /// if the backend cannot, and the caller then writes zeros.
    fn release(&self, _beg: usize, _end: usize) -> bool {
        false
    }
}

/// The process's real shadow at the fixed mapping.
#[derive(Clone, Copy, Debug, Default)]
pub struct RealShadow;

impl ShadowMem for RealShadow {
    #[inline(always)]
    fn shadow_of(&self, addr: usize) -> *const AtomicU8 {
        mapping::mem_to_shadow(addr) as *const AtomicU8
    }
    #[inline(always)]
    fn covers(&self, addr: usize, len: usize) -> bool {
        mapping::is_app_range(addr, len)
    }
    fn release(&self, beg: usize, end: usize) -> bool {
        // SAFETY: 1. [beg, end) is whole pages of the shadow mapping, which
        // is private anonymous memory; 2. the caller holds the tracker lock
        // and is clearing every bit of these pages, so discarding them (they
        // read back as zero) loses no state.
        unsafe { libc::madvise(beg as *mut libc::c_void, end - beg, libc::MADV_DONTNEED) == 0 }
    }
}

/// Shadow bits of application bytes `i..j` (0 <= i < j <= 4) of one shadow
/// byte, restricted to `mask`.
#[inline(always)]
fn lane_mask(i: usize, j: usize, mask: u8) -> u8 {
    let hi: u16 = (1u16 << (2 * j)) - 1;
    let lo: u16 = (1u16 << (2 * i)) - 1;
    ((hi & !lo) as u8) & mask
}

/// Clearing more shadow than this (bytes) at once returns whole pages to the
/// kernel instead of writing zeros.
const RELEASE_THRESHOLD: usize = 64 * 1024;

/// Visit `[addr, addr + len)`: `edge(shadow byte, lane mask)` for shadow bytes
/// the range covers partly, `bulk(first shadow byte, count)` for the shadow
/// bytes it covers wholly.
#[inline(always)]
fn walk<S: ShadowMem>(
    s: &S,
    addr: usize,
    len: usize,
    mut edge: impl FnMut(&AtomicU8, u8) -> bool,
    mut bulk: impl FnMut(*const AtomicU8, usize) -> bool,
) -> bool {
    if len == 0 || !s.covers(addr, len) {
        return true;
    }
    let end = addr + len;
    let mut a = addr;
    let head = a & 3;
    if head != 0 {
        let j = if end - (a - head) < 4 { end - (a - head) } else { 4 };
        // SAFETY: `covers` vouched that the shadow byte of `a` is mapped.
        let b = unsafe { &*s.shadow_of(a) };
        if !edge(b, lane_mask(head, j, 0xFF)) {
            return false;
        }
        a = a - head + 4;
        if a >= end {
            return true;
        }
    }
    let whole = (end - a) >> 2;
    if whole > 0 {
        if !bulk(s.shadow_of(a), whole) {
            return false;
        }
        a += whole << 2;
    }
    if a < end {
        // SAFETY: as above, `a < end` is inside the covered range.
        let b = unsafe { &*s.shadow_of(a) };
        return edge(b, lane_mask(0, end - a, 0xFF));
    }
    true
}

/// Apply `f` to `n` shadow bytes from `p`, eight at a time where aligned.
/// `f` maps an old word to a new one (words are stored only if changed).
#[inline(always)]
fn bulk_update(p: *const AtomicU8, n: usize, f: impl Fn(u64) -> u64) {
    let mut i = 0;
    let fb = |v: u8| -> u8 { f(u64::from_ne_bytes([v; 8])).to_ne_bytes()[0] };
    while i < n && !(p as usize + i).is_multiple_of(8) {
        // SAFETY: p + i < p + n, inside the shadow the caller checked.
        let b = unsafe { &*p.add(i) };
        b.store(fb(b.load(Relaxed)), Relaxed);
        i += 1;
    }
    while i + 8 <= n {
        // SAFETY: 8-byte aligned (loop above) and inside the shadow.
        let w = unsafe { &*(p.add(i) as *const AtomicU64) };
        let old = w.load(Relaxed);
        let new = f(old);
        if new != old {
            w.store(new, Relaxed);
        }
        i += 8;
    }
    while i < n {
        // SAFETY: as in the first loop.
        let b = unsafe { &*p.add(i) };
        b.store(fb(b.load(Relaxed)), Relaxed);
        i += 1;
    }
}

/// Set the `mask` bits (DST_BITS, SRC_BITS or both) of every byte of
/// `[addr, addr + len)`. Caller holds the tracker lock.
pub fn set<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) {
    let m64 = u64::from_ne_bytes([mask; 8]);
    walk(
        s,
        addr,
        len,
        |b, lanes| {
            b.store(b.load(Relaxed) | (lanes & mask), Relaxed);
            true
        },
        |p, n| {
            bulk_update(p, n, |w| w | m64);
            true
        },
    );
}

/// As [`set`], without the tracker lock: each shadow byte or word is
/// or-ed in one atomic instruction, so a thread that holds the lock and
/// rewrites the same word at once may drop these bits (never add others).
/// Used by [`crate::deferred`], which sets them again when the tracker
/// takes the copy.
pub fn mark<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) {
    let m64 = u64::from_ne_bytes([mask; 8]);
    walk(
        s,
        addr,
        len,
        |b, lanes| {
            b.fetch_or(lanes & mask, Relaxed);
            true
        },
        |p, n| {
            let mut i = 0;
            while i < n && !(p as usize + i).is_multiple_of(8) {
                // SAFETY: p + i < p + n, inside the walked shadow.
                unsafe { &*p.add(i) }.fetch_or(mask, Relaxed);
                i += 1;
            }
            while i + 8 <= n {
                // SAFETY: 8-byte aligned (loop above) and inside the walked shadow.
                unsafe { &*(p.add(i) as *const AtomicU64) }.fetch_or(m64, Relaxed);
                i += 8;
            }
            while i < n {
                // SAFETY: as in the first loop.
                unsafe { &*p.add(i) }.fetch_or(mask, Relaxed);
                i += 1;
            }
            true
        },
    );
}

/// Clear the `mask` bits of every byte of `[addr, addr + len)`. Caller holds
/// the tracker lock. Clearing both kinds over many whole pages releases them.
pub fn clear<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) {
    let keep64 = u64::from_ne_bytes([!mask; 8]);
    walk(
        s,
        addr,
        len,
        |b, lanes| {
            b.store(b.load(Relaxed) & !(lanes & mask), Relaxed);
            true
        },
        |p, n| {
            if mask == ALL_BITS && n >= RELEASE_THRESHOLD {
                let beg = p as usize;
                let pb = beg.next_multiple_of(mapping::PAGE);
                let pe = (beg + n) & !(mapping::PAGE - 1);
                bulk_update(p, pb - beg, |w| w & keep64);
                if !s.release(pb, pe) {
                    // SAFETY: [pb, pe) is inside the walked shadow.
                    bulk_update(unsafe { p.add(pb - beg) }, pe - pb, |w| w & keep64);
                }
                // SAFETY: pe <= beg + n, inside the walked shadow.
                bulk_update(unsafe { p.add(pe - beg) }, beg + n - pe, |w| w & keep64);
            } else {
                bulk_update(p, n, |w| w & keep64);
            }
            true
        },
    );
}

/// Longest range (bytes) [`any`] tests with at most two aligned word loads.
const SHORT: usize = 16;

/// True if any byte of `[addr, addr + len)` has a `mask` bit set. Lock-free.
#[inline]
pub fn any<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) -> bool {
    if len == 0 || len > SHORT {
        return any_walk(s, addr, len, mask);
    }
    if !s.covers(addr, len) {
        return false;
    }
    // The range's 2 * len shadow bits start `off` bits into the aligned
    // word holding the first shadow byte and may run into the next one (a
    // word holding a mapped shadow byte is mapped: pages are whole words).
    let sp = s.shadow_of(addr) as usize;
    let word = sp & !7;
    let off = (sp - word) * 8 + 2 * (addr & 3);
    let lanes = ((1u128 << (2 * len)) - 1) << off;
    let m = u128::from_ne_bytes([mask; 16]);
    // SAFETY: 1. `word` is the 8-aligned word of a shadow byte `covers`
    // vouched for; 2. the next word is read only when the range's last
    // shadow byte (also vouched for) is in it.
    let (lo, hi) = unsafe {
        let lo = (*(word as *const AtomicU64)).load(Relaxed);
        (lo, if off + 2 * len > 64 { (*((word + 8) as *const AtomicU64)).load(Relaxed) } else { 0 })
    };
    (u128::from(lo) | u128::from(hi) << 64) & lanes & m != 0
}

/// [`any`] by [`walk`]: any length.
fn any_walk<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) -> bool {
    let m64 = u64::from_ne_bytes([mask; 8]);
    !walk(
        s,
        addr,
        len,
        |b, lanes| b.load(Relaxed) & lanes & mask == 0,
        |p, n| {
            let mut i = 0;
            while i < n && !(p as usize + i).is_multiple_of(8) {
                // SAFETY: inside the walked shadow.
                if unsafe { &*p.add(i) }.load(Relaxed) & mask != 0 {
                    return false;
                }
                i += 1;
            }
            while i + 8 <= n {
                // SAFETY: aligned and inside the walked shadow.
                if unsafe { &*(p.add(i) as *const AtomicU64) }.load(Relaxed) & m64 != 0 {
                    return false;
                }
                i += 8;
            }
            while i < n {
                // SAFETY: inside the walked shadow.
                if unsafe { &*p.add(i) }.load(Relaxed) & mask != 0 {
                    return false;
                }
                i += 1;
            }
            true
        },
    )
}

/// First byte of `[addr, addr + len)` with a `mask` bit set. Lock-free.
pub fn first<S: ShadowMem>(s: &S, addr: usize, len: usize, mask: u8) -> Option<usize> {
    if !any(s, addr, len, mask) {
        return None;
    }
    (addr..addr + len).find(|&a| state(s, a) & mask != 0)
}

/// The two bits of byte `addr`, in the positions of byte 0 (bit 0 =
/// pending destination, bit 1 = pending source).
pub fn state<S: ShadowMem>(s: &S, addr: usize) -> u8 {
    if !s.covers(addr, 1) {
        return 0;
    }
    // SAFETY: `covers` vouched for the shadow byte.
    let v = unsafe { &*s.shadow_of(addr) }.load(Relaxed);
    let bits = (v >> (2 * (addr & 3))) & 3;
    // Spread to the mask positions used by callers (DST_BITS / SRC_BITS).
    (if bits & 1 != 0 { DST_BITS } else { 0 }) | (if bits & 2 != 0 { SRC_BITS } else { 0 })
}

/// A shadow in a heap buffer for tests: application addresses
/// `[base, base + 4 * bytes)` map to shadow byte `(addr - base) / 4`,
/// which lives `base % 32 / 4` bytes into an 8-aligned buffer (so every
/// alignment of the shadow's words is tested) with a word of slack at
/// each end.
#[cfg(test)]
pub struct TestShadow {
    /// First application address covered (multiple of 4).
    pub base: usize,
    bytes: usize,
    mem: Box<[AtomicU64]>,
}

#[cfg(test)]
impl TestShadow {
    /// A clean shadow for `app_len` application bytes from `base`.
    pub fn new(base: usize, app_len: usize) -> Self {
        assert_eq!(base % 4, 0);
        let bytes = app_len.div_ceil(4);
        let words = (8 + base % 32 / 4 + bytes).div_ceil(8) + 1;
        Self { base, bytes, mem: (0..words).map(|_| AtomicU64::new(0)).collect() }
    }
}

#[cfg(test)]
impl ShadowMem for TestShadow {
    fn shadow_of(&self, addr: usize) -> *const AtomicU8 {
        let i = (addr - self.base) >> 2;
        assert!(i < self.bytes);
        // SAFETY: byte 8 + base % 32 / 4 + i is inside the buffer (see `new`).
        unsafe { (self.mem.as_ptr() as *const AtomicU8).add(8 + self.base % 32 / 4 + i) }
    }
    fn covers(&self, addr: usize, len: usize) -> bool {
        addr >= self.base && addr + len <= self.base + 4 * self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn lane_masks() {
        assert_eq!(lane_mask(0, 4, 0xFF), 0xFF);
        assert_eq!(lane_mask(1, 2, 0xFF), 0x0C);
        assert_eq!(lane_mask(3, 4, DST_BITS), 0x40);
        assert_eq!(lane_mask(0, 1, SRC_BITS), 0x02);
    }

    proptest! {
        /// Random set/mark/clear sequences on every alignment agree with a
        /// byte-per-byte model, and `any`/`first` agree with the model.
        #[test]
        fn ops_match_byte_model(ops in prop::collection::vec((0usize..4, 0usize..300, 0usize..120, 0usize..3), 1..40),
                                q in (0usize..300, 1usize..64), shift in 0usize..8) {
            let base = 0x1000 + 4 * shift;
            let s = TestShadow::new(base, 512);
            let mut model = [0u8; 512];
            for (op, off, len, m) in ops {
                let mask = [DST_BITS, SRC_BITS, ALL_BITS][m];
                let len = len.min(512 - off);
                match op {
                    0 => { set(&s, base + off, len, mask); for b in &mut model[off..off + len] { *b |= mask; } }
                    1 => { mark(&s, base + off, len, mask); for b in &mut model[off..off + len] { *b |= mask; } }
                    _ => { clear(&s, base + off, len, mask); for b in &mut model[off..off + len] { *b &= !mask; } }
                }
            }
            for (i, m) in model.iter().enumerate() {
                prop_assert_eq!(state(&s, base + i), *m, "byte {}", i);
            }
            let (qo, ql) = q;
            for mask in [DST_BITS, SRC_BITS, ALL_BITS] {
                let expect = (qo..qo + ql).find(|&i| model[i] & mask != 0).map(|i| base + i);
                prop_assert_eq!(first(&s, base + qo, ql, mask), expect);
                prop_assert_eq!(super::any(&s, base + qo, ql, mask), expect.is_some());
            }
        }
    }
}
