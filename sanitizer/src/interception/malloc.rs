//! The heap: `malloc`, `calloc`, `realloc`, `reallocarray`, `memalign`,
//! `aligned_alloc`, `posix_memalign`, `valloc`, `pvalloc`,
//! `malloc_usable_size`, `free`, and `munmap`. Memory a pending copy still
//! reads or writes must not be released (`free-before-csync`).
//!
//! # Requested sizes
//! A report names the size the program asked for (`FREE of 1048577
//! bytes`), as ASan's do, not the usable size of glibc's chunk (1052656
//! for that request). ASan keeps the requested size in its chunk header;
//! here glibc's malloc does the allocating (the interceptors call its
//! exported `__libc_*` entries, never `dlsym`, so `dlsym`'s own allocations
//! cannot recurse), and a header would shift the pointer the program gets,
//! which breaks any block that reaches `free` without passing through these
//! interceptors. Instead every block is allocated [`FOOTER`] bytes larger
//! and its last 8 usable bytes (at `malloc_usable_size(p) - 8`, fixed for
//! the block's life) hold the requested size `n` in the low 48 bits and a
//! 16-bit tag hashed from `(p, n)` in the high 16. No table, no lock:
//! writing and reading it touches only the block, from any thread.
//!
//! A block whose footer does not check out (allocated before the
//! interceptors were reachable, by a direct `__libc_malloc` call, or whose
//! footer the program overwrote past its end) counts with its usable size,
//! as before. `malloc_usable_size` returns the requested size (as ASan's
//! does), so a program that fills the usable size does not overwrite the
//! footer.

use core::ffi::c_void;
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use crate::heap_footer::{decode, footer_word, FOOTER, MAX_REQUEST};
use crate::thread::RuntimeGuard;
use crate::{check_free, real};

extern "C" {
    fn __libc_malloc(n: usize) -> *mut c_void;
    fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    fn __libc_realloc(p: *mut c_void, n: usize) -> *mut c_void;
    fn __libc_free(p: *mut c_void);
    fn __libc_memalign(align: usize, n: usize) -> *mut c_void;
    fn __libc_valloc(n: usize) -> *mut c_void;
    fn __libc_pvalloc(n: usize) -> *mut c_void;
}

static REAL_USABLE: AtomicUsize = AtomicUsize::new(0);
static RESOLVING: AtomicBool = AtomicBool::new(false);

/// glibc's `malloc_usable_size(p)` for a non-null live block; `None` while
/// the first call resolves it (`dlsym` may allocate: those blocks get no
/// footer).
#[inline(always)]
fn real_usable(p: *mut c_void) -> Option<usize> {
    let mut f = REAL_USABLE.load(Relaxed);
    if f == 0 {
        if RESOLVING.swap(true, Relaxed) {
            return None;
        }
        f = super::resolve(b"malloc_usable_size\0");
        REAL_USABLE.store(f, Relaxed);
        RESOLVING.store(false, Relaxed);
    }
    // SAFETY: f is glibc's malloc_usable_size(void *) -> size_t.
    let f = unsafe { core::mem::transmute::<usize, unsafe extern "C" fn(*mut c_void) -> usize>(f) };
    // SAFETY: p is a live heap block (caller's contract).
    Some(unsafe { f(p) })
}

/// Resolve glibc's `malloc_usable_size` (from the runtime's init).
pub(crate) fn init() {
    let _ = real_usable(core::ptr::null_mut());
}

/// Writes the footer of `p` (null, or a block of at least `n + FOOTER`
/// bytes just returned by glibc) and returns `p`.
///
/// # Safety
/// As above.
#[inline(always)]
unsafe fn with_footer(p: *mut c_void, n: usize) -> *mut c_void {
    if !p.is_null() {
        if let Some(u) = real_usable(p) {
            if u >= n + FOOTER {
                // SAFETY: [p + u - 8, p + u) lies in the block's usable bytes,
                // past the n the program asked for.
                unsafe { ((p as usize + u - FOOTER) as *mut u64).write_unaligned(footer_word(p as usize, n)) };
            }
        }
    }
    p
}

/// The size the program requested for the live heap block `p` (non-null),
/// or its usable size if it has no footer.
pub fn requested_size(p: *mut c_void) -> usize {
    let Some(u) = real_usable(p) else { return 0 };
    if u < FOOTER {
        return u;
    }
    // SAFETY: the last 8 of the block's u usable bytes are readable.
    let w = unsafe { ((p as usize + u - FOOTER) as *const u64).read_unaligned() };
    decode(p as usize, u, w).unwrap_or(u)
}

/// Bytes of the heap block at `p` to check before it is freed (0 for null,
/// or when nothing is pending).
#[inline(always)]
fn block_len(p: *mut c_void) -> usize {
    if p.is_null() || crate::LIVE.load(Relaxed) == 0 {
        return 0; // nothing is pending: the check has nothing to find
    }
    requested_size(p)
}

/// Runs `f`, a call of glibc's allocator, marked as inside the sanitizer
/// ([`RuntimeGuard`]): glibc's malloc is not async-signal-safe, and a
/// signal handler that interrupts it finds the mark, so the sanitizer's
/// hooks it calls neither lock nor allocate (`crate::deferred`), and
/// libcopier serves its `amemcpy`/`csync` without locks or allocation
/// (`copier::hooks::enter_async_unsafe`).
#[inline(always)]
fn in_allocator<T>(f: impl FnOnce() -> T) -> T {
    let _g = RuntimeGuard::enter();
    let _c = copier::hooks::enter_async_unsafe();
    f()
}

/// Sets `errno = ENOMEM` and returns null.
#[cold]
fn enomem() -> *mut c_void {
    // SAFETY: errno is thread-local.
    unsafe { *libc::__errno_location() = libc::ENOMEM };
    core::ptr::null_mut()
}

/// Defines interceptors of allocators `fn(n) -> p`: glibc's `__libc_*`
/// entry allocates `n + FOOTER` bytes and the footer records `n`.
macro_rules! sized_alloc {
    ($($name:ident = $libc:ident;)*) => {$(
        #[doc = concat!("Interceptor of `", stringify!($name), "`.")]
        ///
        /// # Safety
        /// As the C function.
        #[no_mangle]
        pub unsafe extern "C" fn $name(n: usize) -> *mut c_void {
            if n > MAX_REQUEST {
                return enomem();
            }
            // SAFETY: forwarded contract; the block has n + FOOTER bytes.
            in_allocator(|| unsafe { with_footer($libc(n + FOOTER), n) })
        }
    )*};
}

sized_alloc! {
    malloc = __libc_malloc;
    valloc = __libc_valloc;
    pvalloc = __libc_pvalloc;
}

/// Interceptor of `calloc`.
///
/// # Safety
/// As `calloc`.
#[no_mangle]
pub unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
    let n = match count.checked_mul(size) {
        Some(n) if n <= MAX_REQUEST => n,
        _ => return enomem(),
    };
    // SAFETY: forwarded contract; the block has n + FOOTER bytes.
    in_allocator(|| unsafe { with_footer(__libc_calloc(1, n + FOOTER), n) })
}

/// Interceptor of `free`.
///
/// # Safety
/// As `free`.
#[no_mangle]
pub unsafe extern "C" fn free(p: *mut c_void) {
    if !p.is_null() && !crate::thread::in_runtime() {
        check_free!("free", p, block_len(p));
    }
    // SAFETY: forwarded contract.
    in_allocator(|| unsafe { __libc_free(p) })
}

/// Interceptor of `realloc`: the old block is read and may be freed.
///
/// # Safety
/// As `realloc`.
#[no_mangle]
pub unsafe extern "C" fn realloc(p: *mut c_void, n: usize) -> *mut c_void {
    if !p.is_null() && !crate::thread::in_runtime() {
        check_free!("realloc", p, block_len(p));
    }
    if !p.is_null() && n == 0 {
        // glibc frees the block and returns null (REALLOC_ZERO_BYTES_FREES).
        // SAFETY: forwarded contract.
        return in_allocator(|| unsafe { __libc_realloc(p, 0) });
    }
    if n > MAX_REQUEST {
        return enomem(); // the old block is left as it was
    }
    // SAFETY: forwarded contract; the new block has n + FOOTER bytes (the
    // old footer, if copied, lies inside the new usable bytes and is
    // rewritten at the new end).
    in_allocator(|| unsafe { with_footer(__libc_realloc(p, n + FOOTER), n) })
}

/// Interceptor of `reallocarray`.
///
/// # Safety
/// As `reallocarray`.
#[no_mangle]
pub unsafe extern "C" fn reallocarray(p: *mut c_void, n: usize, size: usize) -> *mut c_void {
    let Some(total) = n.checked_mul(size) else {
        return enomem();
    };
    // SAFETY: forwarded contract.
    unsafe { realloc(p, total) }
}

/// Interceptor of `memalign` (glibc's `aligned_alloc` is the same function).
///
/// # Safety
/// As `memalign`.
#[no_mangle]
pub unsafe extern "C" fn memalign(align: usize, n: usize) -> *mut c_void {
    if n > MAX_REQUEST {
        return enomem();
    }
    // SAFETY: forwarded contract; the block has n + FOOTER bytes.
    in_allocator(|| unsafe { with_footer(__libc_memalign(align, n + FOOTER), n) })
}

/// Interceptor of `aligned_alloc` (glibc 2.36: an alias of `memalign`).
///
/// # Safety
/// As `aligned_alloc`.
#[no_mangle]
pub unsafe extern "C" fn aligned_alloc(align: usize, n: usize) -> *mut c_void {
    // SAFETY: forwarded contract.
    unsafe { memalign(align, n) }
}

/// Interceptor of `posix_memalign`: `EINVAL` unless `align` is a power of
/// two multiple of `sizeof(void *)` (POSIX), `ENOMEM` if out of memory;
/// `*memptr` is set only on success.
///
/// # Safety
/// As `posix_memalign`.
#[no_mangle]
pub unsafe extern "C" fn posix_memalign(memptr: *mut *mut c_void, align: usize, n: usize) -> i32 {
    let word = core::mem::size_of::<*mut c_void>();
    if !align.is_multiple_of(word) || !(align / word).is_power_of_two() {
        return libc::EINVAL;
    }
    if n > MAX_REQUEST {
        return libc::ENOMEM;
    }
    // SAFETY: forwarded contract; the block has n + FOOTER bytes.
    let p = in_allocator(|| unsafe { with_footer(__libc_memalign(align, n + FOOTER), n) });
    if p.is_null() {
        return libc::ENOMEM;
    }
    // SAFETY: memptr is writable (caller's contract).
    unsafe { *memptr = p };
    0
}

/// Interceptor of `malloc_usable_size`: the requested size (0 for null).
///
/// # Safety
/// As `malloc_usable_size`.
#[no_mangle]
pub unsafe extern "C" fn malloc_usable_size(p: *mut c_void) -> usize {
    if p.is_null() {
        0
    } else {
        requested_size(p)
    }
}

/// Interceptor of `munmap`.
///
/// # Safety
/// As `munmap`.
#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: usize) -> i32 {
    check_free!("munmap", addr, len);
    // SAFETY: forwarded contract.
    unsafe { real!(munmap: fn(*mut c_void, usize) -> i32)(addr, len) }
}
