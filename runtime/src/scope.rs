//! The safe Rust API: copies borrow their buffers until synced.
//!
//! Like `std::thread::scope`, a [`Scope`] lends buffers for its whole
//! lifetime `'scope`, and waits for every copy before it returns, so a
//! forgotten [`Pending`] cannot leave a copy running on freed or reborrowed
//! memory. The destination comes back through [`Pending::sync`], which
//! waits; until then the borrow checker rejects any use of the buffers:
//!
//! ```compile_fail
//! let src = vec![1u8; 1 << 20];
//! let mut dst = vec![0u8; 1 << 20];
//! copier::scope(|s| {
//!     let pending = s.copy(&mut dst, &src);
//!     let first = dst[0]; // error[E0503]/[E0502]: `dst` is borrowed by the pending copy
//!     pending.sync();
//!     first
//! });
//! ```
//!
//! The same program with the use after the sync compiles and runs:
//!
//! ```
//! let src = vec![1u8; 1 << 20];
//! let mut dst = vec![0u8; 1 << 20];
//! let first = copier::scope(|s| {
//!     let pending = s.copy(&mut dst, &src);
//!     let head = pending.ready(0..4096); // waits for the first segment only
//!     assert!(head.iter().all(|&b| b == 1));
//!     let dst = pending.sync();
//!     dst[0]
//! });
//! assert_eq!(first, 1);
//! assert_eq!(dst, src);
//! ```

use copier_adapter::backend;
use core::cell::RefCell;
use core::marker::PhantomData;
use core::ops::Range;

/// A region in which copies may borrow buffers; see [`scope`].
pub struct Scope<'scope, 'env: 'scope> {
    /// `(handle, len)` of every asynchronous copy started in the scope.
    handles: RefCell<Vec<(u64, usize)>>,
    scope: PhantomData<&'scope mut &'scope ()>,
    env: PhantomData<&'env mut &'env ()>,
}

/// A copy in flight. It holds the destination's exclusive borrow; get it
/// back with [`Pending::sync`].
#[must_use = "a pending copy's destination is only usable after sync()"]
pub struct Pending<'scope> {
    handle: u64,
    dst: *mut u8,
    len: usize,
    _borrow: PhantomData<&'scope mut [u8]>,
}

/// Run `f` with a [`Scope`]; return after every copy started in it completed
/// (also when `f` panics).
pub fn scope<'env, F, R>(f: F) -> R
where
    F: for<'scope> FnOnce(&'scope Scope<'scope, 'env>) -> R,
{
    crate::ensure_init();
    let s = Scope { handles: RefCell::new(Vec::new()), scope: PhantomData, env: PhantomData };
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&s)));
    for &(h, n) in s.handles.borrow().iter() {
        // (the copy's own length: a range past it is refused, unwaited)
        backend::wait_handle(h, 0, n);
    }
    match r {
        Ok(r) => r,
        Err(p) => std::panic::resume_unwind(p),
    }
}

impl<'scope> Scope<'scope, '_> {
    fn start(&'scope self, dst: &'scope mut [u8], src: &'scope [u8], flags: u32) -> Pending<'scope> {
        assert_eq!(dst.len(), src.len(), "copier: copy between slices of different lengths");
        let (d, n) = (dst.as_mut_ptr(), dst.len());
        // SAFETY: both slices are borrowed for 'scope, which outlasts the
        // copy (the scope waits for it), and `&mut`/`&` cannot overlap.
        let handle = unsafe { backend::submit_desc(d, src.as_ptr(), n, flags, 0, 0) };
        if handle != 0 {
            self.handles.borrow_mut().push((handle, n));
        }
        Pending { handle, dst: d, len: n, _borrow: PhantomData }
    }

    /// Start copying `src` into `dst` (equal lengths).
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn copy(&'scope self, dst: &'scope mut [u8], src: &'scope [u8]) -> Pending<'scope> {
        self.start(dst, src, 0)
    }

    /// Start a lazy copy (runs when synced or after the lazy window).
    ///
    /// # Panics
    /// If the lengths differ.
    pub fn copy_lazy(&'scope self, dst: &'scope mut [u8], src: &'scope [u8]) -> Pending<'scope> {
        self.start(dst, src, copier_abi::COPIER_LAZY)
    }
}

impl<'scope> Pending<'scope> {
    /// Wait for the whole copy and return the destination.
    pub fn sync(self) -> &'scope mut [u8] {
        backend::wait_handle(self.handle, 0, self.len);
        // SAFETY: the copy is complete and this borrow came from a `&'scope
        // mut [u8]` that `self` held exclusively.
        unsafe { core::slice::from_raw_parts_mut(self.dst, self.len) }
    }

    /// Wait for destination bytes `range` only (the segments covering it)
    /// and read them while the rest is still copying.
    ///
    /// # Panics
    /// If `range` is out of bounds.
    pub fn ready(&self, range: Range<usize>) -> &[u8] {
        assert!(range.start <= range.end && range.end <= self.len, "copier: range out of bounds");
        backend::wait_handle(self.handle, range.start, range.end - range.start);
        // SAFETY: those bytes are complete and nothing writes them again
        // while `self` (the only owner of the borrow) is borrowed shared.
        unsafe { core::slice::from_raw_parts(self.dst.add(range.start), range.end - range.start) }
    }

    /// True when the whole copy has completed (never blocks).
    pub fn is_complete(&self) -> bool {
        backend::query_handle(self.handle, 0, self.len) != 0
    }
}
