//! Copier's benchmark workloads, shared by the `copier-bench` command (ratios
//! measured in one run, interleaved A/B, medians) and the criterion suite.
//!
//! Baseline A is always glibc's `memcpy` (called through libc, as a C
//! program would); B is libcopier's `amemcpy` (+ `csync`).
//!
//! Three copy-then-parse walks, each over every byte and resumed segment by
//! segment: FNV-1a 64 (a byte-serial multiply chain, about 1 ns/byte here:
//! the cost class of a byte-at-a-time protocol parser), a table-driven
//! Fletcher-style checksum (a 256-entry byte-class table as a tokenizer
//! uses, two dependent adds per byte, about 0.25 ns/byte: a fast scanner)
//! and a vectorized newline count (a line splitter, about 0.1 ns/byte).

use copier::capi::{amemcpy, csync, csync_all};
use core::ffi::c_void;
use std::hint::black_box;
use std::time::Instant;

/// FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Continue an FNV-1a 64 hash over `bytes`.
#[inline(never)]
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h = (h ^ b as u64).wrapping_mul(FNV_PRIME);
    }
    h
}

/// Byte-class weights of the table-driven walk (deterministic pseudo-random).
static CLASS: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    let mut x: u32 = 0x9e37_79b9;
    while i < 256 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        t[i] = (x & 0x3ff) as u16;
        i += 1;
    }
    t
};

/// Continue the table-driven checksum (state: two 32-bit sums in a u64).
#[inline(never)]
pub fn table_sum(h: u64, bytes: &[u8]) -> u64 {
    let (mut a, mut b) = (h as u32, (h >> 32) as u32);
    for &x in bytes {
        a = a.wrapping_add(CLASS[x as usize] as u32);
        b = b.wrapping_add(a);
    }
    (b as u64) << 32 | a as u64
}

/// Continue a line count (state: newlines so far): the vectorized scan of
/// a line splitter (`memchr`-class, about as fast as memcpy here).
#[inline(never)]
pub fn line_count(h: u64, bytes: &[u8]) -> u64 {
    // Byte-wide counts per 64-byte chunk (at most 64, no overflow), summed
    // once per chunk: the shape LLVM vectorizes into byte compares.
    let mut chunks = bytes.chunks_exact(64);
    let mut n = h;
    for c in &mut chunks {
        n += c.iter().fold(0u8, |k, &b| k + (b == b'\n') as u8) as u64;
    }
    n + chunks.remainder().iter().filter(|&&b| b == b'\n').count() as u64
}

/// A walk over a message: `(name, initial state, step)`.
pub type Walk = (&'static str, u64, fn(u64, &[u8]) -> u64);
/// The three walks, slowest first.
pub const WALKS: [Walk; 3] = [("fnv1a", FNV_OFFSET, fnv1a), ("table", 1, table_sum), ("lines", 0, line_count)];

/// A page-aligned, pre-faulted byte buffer (mmap), freed on drop.
pub struct Buf {
    ptr: *mut u8,
    len: usize,
}

impl Buf {
    /// `len` bytes filled with a pattern (`seed`).
    pub fn new(len: usize, seed: u8) -> Buf {
        let b = Buf::fresh(len);
        // SAFETY: b owns len writable bytes.
        let s = unsafe { std::slice::from_raw_parts_mut(b.ptr, len) };
        for (i, x) in s.iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(31).wrapping_add(seed);
        }
        b
    }
    /// `len` bytes freshly mapped, never touched (first writes page-fault).
    pub fn fresh(len: usize) -> Buf {
        // SAFETY: anonymous private mapping.
        let p = unsafe {
            libc::mmap(core::ptr::null_mut(), len.max(1), libc::PROT_READ | libc::PROT_WRITE, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS, -1, 0)
        };
        assert_ne!(p, libc::MAP_FAILED, "mmap {len}");
        Buf { ptr: p as *mut u8, len }
    }
    /// Start address.
    pub fn ptr(&self) -> *mut u8 {
        self.ptr
    }
    /// Length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        // SAFETY: our own mapping.
        unsafe { libc::munmap(self.ptr as *mut c_void, self.len.max(1)) };
    }
}

/// glibc memcpy.
///
/// # Safety
/// As `memcpy`.
#[inline(always)]
pub unsafe fn memcpy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: forwarded caller contract.
    unsafe { libc::memcpy(dst as *mut c_void, src as *const c_void, n) };
}

/// libcopier amemcpy.
///
/// # Safety
/// As `amemcpy`: valid disjoint ranges, synced before use.
#[inline(always)]
pub unsafe fn acopy(dst: *mut u8, src: *const u8, n: usize) {
    // SAFETY: forwarded caller contract.
    unsafe { amemcpy(dst as *mut c_void, src as *const c_void, n) };
}

/// Copy-then-parse, baseline: memcpy, then walk the message in `seg`-byte
/// steps. Returns the hash.
///
/// # Safety
/// `dst` and `src` valid for `n` bytes and disjoint.
pub unsafe fn copy_parse_memcpy(dst: *mut u8, src: *const u8, n: usize, seg: usize, walk: Walk) -> u64 {
    // SAFETY: caller contract.
    unsafe { memcpy(dst, src, n) };
    let (_, mut h, step) = walk;
    let mut off = 0;
    while off < n {
        let l = seg.min(n - off);
        // SAFETY: inside dst, copied above.
        h = step(h, unsafe { std::slice::from_raw_parts(dst.add(off), l) });
        off += l;
    }
    h
}

/// Copy-then-parse with Copier: amemcpy, then walk segment by segment with a
/// csync before each segment.
///
/// # Safety
/// `dst` and `src` valid for `n` bytes and disjoint.
pub unsafe fn copy_parse_amemcpy(dst: *mut u8, src: *const u8, n: usize, seg: usize, walk: Walk) -> u64 {
    // SAFETY: caller contract; every segment is synced before it is read.
    unsafe { acopy(dst, src, n) };
    let (_, mut h, step) = walk;
    let mut off = 0;
    while off < n {
        let l = seg.min(n - off);
        csync(dst.wrapping_add(off) as *const c_void, l);
        // SAFETY: synced above.
        h = step(h, unsafe { std::slice::from_raw_parts(dst.add(off), l) });
        off += l;
    }
    h
}

/// Median of a sample (sorts it).
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Interleaved A/B: `rounds` times run A then B (alternating which goes
/// first), each returning its own elapsed ns; returns (median A, median B).
pub fn ab(rounds: usize, mut a: impl FnMut() -> f64, mut b: impl FnMut() -> f64) -> (f64, f64) {
    let (mut va, mut vb) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for r in 0..rounds {
        if r % 2 == 0 {
            va.push(a());
            vb.push(b());
        } else {
            vb.push(b());
            va.push(a());
        }
    }
    (median(&mut va), median(&mut vb))
}

/// Time `f` in ns.
#[inline(always)]
pub fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_nanos() as f64
}

/// `void *(*)(void *, const void *, size_t)`: `memcpy` or `amemcpy`.
pub type CopyFn = unsafe extern "C" fn(*mut c_void, *const c_void, usize) -> *mut c_void;

/// glibc's `memcpy` as a [`CopyFn`].
pub fn libc_memcpy() -> CopyFn {
    libc::memcpy
}

/// libcopier's `amemcpy` as a [`CopyFn`].
pub fn copier_amemcpy() -> CopyFn {
    amemcpy
}

/// ns for `k` calls of `f` copying `n` bytes from `src` to `dst + (i %
/// slots) * stride`. Never inlined, and both sides of an A/B pass their
/// routine as a pointer: the loop is the same machine code, with the same
/// kind of call (through a register), whichever routine it calls.
///
/// # Safety
/// `dst` holds `slots * stride` bytes, `src` `n`, `n <= stride`; the
/// routine's contract (copies below the threshold complete at once).
#[inline(never)]
pub unsafe fn copy_batch(f: CopyFn, dst: *mut u8, src: *const u8, n: usize, k: usize, stride: usize, slots: usize) -> f64 {
    let f = black_box(f);
    time(|| {
        for i in 0..k {
            // SAFETY: caller contract.
            unsafe { f(dst.wrapping_add((i % slots) * stride).cast(), src.cast(), n) };
        }
    })
}

/// Per-call ns of `amemcpy` submits of `n` bytes (batches of `k` distinct
/// destinations; the copies are synced outside the timed region).
pub fn submit_ns(dst: &Buf, src: &Buf, n: usize, k: usize) -> f64 {
    assert!(k * n <= dst.len() && n <= src.len());
    let t = time(|| {
        for i in 0..k {
            // SAFETY: inside the buffers (asserted above); synced below.
            unsafe { acopy(dst.ptr().add(i * n), src.ptr(), n) };
        }
    });
    csync_all();
    t / k as f64
}

/// Per-call ns of `csync` on a finished `n`-byte range (`k` calls).
pub fn csync_done_ns(dst: &Buf, k: usize) -> f64 {
    let p = dst.ptr() as *const c_void;
    let t = time(|| {
        for i in 0..k {
            csync(black_box(p.wrapping_add((i & 15) * 4096)), 4096);
        }
    });
    t / k as f64
}

/// Keep a value alive for the optimizer.
pub fn sink<T>(x: T) -> T {
    black_box(x)
}

/// One-way latency (ns) of handing one cache line between threads pinned
/// to CPUs 0 and 1 (a ping-pong of up to `rounds` round trips or ~20 ms,
/// halved), or `None` with fewer than two CPUs or when pinning fails. It
/// tells how far apart the two cores are: on the KVM guests here ~40-55 ns
/// within one L3 domain of the host, ~200 ns across two, and which of the
/// two a run got changes every figure where the service thread and the
/// caller share data (see docs/benchmarks.md). On a loaded machine it
/// measures the scheduler instead (hundreds of ns and more).
pub fn line_transfer_ns(rounds: u32) -> Option<f64> {
    use std::sync::atomic::{AtomicU32, Ordering};
    const PING: u32 = 1;
    const STOP: u32 = 2;
    fn pin(cpu: usize) -> bool {
        // SAFETY: a zeroed cpu_set_t is a valid empty set; CPU_SET stays in
        // bounds for cpu < CPU_SETSIZE.
        unsafe {
            let mut set: libc::cpu_set_t = core::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &set) == 0
        }
    }
    #[repr(align(128))]
    struct Line(AtomicU32);
    if std::thread::available_parallelism().map_or(0, |n| n.get()) < 2 {
        return None;
    }
    // SAFETY: a zeroed cpu_set_t is valid; the kernel fills it.
    let saved = unsafe {
        let mut set: libc::cpu_set_t = core::mem::zeroed();
        (libc::sched_getaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0).then_some(set)
    }?;
    let flag = Line(AtomicU32::new(0));
    let flag = &flag.0;
    let result = std::thread::scope(|s| {
        let peer = s.spawn(|| {
            if !pin(1) {
                return;
            }
            loop {
                match flag.load(Ordering::Acquire) {
                    PING => flag.store(0, Ordering::Release),
                    STOP => return,
                    _ => core::hint::spin_loop(),
                }
            }
        });
        let mut out = None;
        if pin(0) {
            let start = std::time::Instant::now();
            let mut done = 0u32;
            while done < rounds && !peer.is_finished() {
                for _ in 0..1000 {
                    flag.store(PING, Ordering::Release);
                    while flag.load(Ordering::Acquire) == PING && !peer.is_finished() {
                        core::hint::spin_loop();
                    }
                }
                done += 1000;
                if start.elapsed().as_millis() >= 20 {
                    break;
                }
            }
            if !peer.is_finished() {
                out = Some(start.elapsed().as_nanos() as f64 / done as f64 / 2.0);
            }
        }
        flag.store(STOP, Ordering::Release);
        let _ = peer.join();
        out
    });
    // the calling thread's affinity back as it was
    // SAFETY: `saved` came from sched_getaffinity.
    unsafe { libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &saved) };
    result
}

/// Buffers a stream benchmark rotates through.
pub const STREAM_BUFFERS: usize = 512;
const _: () = assert!(STREAM_BUFFERS.is_multiple_of(2), "stream_two_ns gives a slot to one thread");

/// A stream of `count` copies of `n` bytes through [`STREAM_BUFFERS`] slots
/// of `dst` (from the same slots of `src`), with up to `depth` copies in
/// flight: before copy `i` reuses a slot, copy `i - depth` is csynced (a
/// producer that keeps a bounded window of copies pending). `depth == 0`
/// is the baseline: plain `memcpy`, nothing pending. Returns ns.
///
/// # Safety
/// `dst` and `src` hold `STREAM_BUFFERS * n` bytes each and are disjoint.
#[inline(never)]
pub unsafe fn stream_ns(dst: *mut u8, src: *const u8, n: usize, depth: usize, count: usize) -> f64 {
    let slot = |i: usize| (i % STREAM_BUFFERS) * n;
    time(|| {
        for i in 0..count {
            let o = slot(i);
            if depth == 0 {
                // SAFETY: inside the buffers (caller contract).
                unsafe { memcpy(dst.add(o), src.add(o), n) };
                continue;
            }
            if i >= depth {
                csync(dst.wrapping_add(slot(i - depth)) as *const c_void, n);
            }
            // SAFETY: inside the buffers; synced before reuse or below.
            unsafe { acopy(dst.add(o), src.add(o), n) };
        }
        if depth != 0 {
            for i in count.saturating_sub(depth)..count {
                csync(dst.wrapping_add(slot(i)) as *const c_void, n);
            }
        }
    })
}

/// The stream of [`stream_ns`]'s baseline split between two threads that
/// `memcpy` at once (even copies on the calling thread, odd ones on a
/// helper, started together by a spin handshake): what two cores copy with
/// no task overhead at all, so `A / this` bounds the ratio B can reach on
/// two cores (on a machine whose cores share the memory bandwidth, close
/// to 1). Returns ns, from the start to the end of both halves.
///
/// # Safety
/// As [`stream_ns`].
#[inline(never)]
pub unsafe fn stream_two_ns(dst: *mut u8, src: *const u8, n: usize, count: usize) -> f64 {
    use std::sync::atomic::{AtomicU32, Ordering};
    let (d, s) = (dst as usize, src as usize);
    let half = |first: usize| {
        for i in (first..count).step_by(2) {
            let o = (i % STREAM_BUFFERS) * n;
            // SAFETY: inside the buffers (caller contract); the threads
            // write disjoint slots (STREAM_BUFFERS is even, so a slot's
            // copies are all even or all odd).
            unsafe { memcpy((d + o) as *mut u8, (s + o) as *const u8, n) };
        }
    };
    // 0: helper starting, 1: helper ready, 2: go, 3: helper done
    let state = AtomicU32::new(0);
    std::thread::scope(|sc| {
        sc.spawn(|| {
            state.store(1, Ordering::Release);
            while state.load(Ordering::Acquire) != 2 {
                std::hint::spin_loop();
            }
            half(1);
            state.store(3, Ordering::Release);
        });
        while state.load(Ordering::Acquire) != 1 {
            std::hint::spin_loop();
        }
        time(|| {
            state.store(2, Ordering::Release);
            half(0);
            while state.load(Ordering::Acquire) != 3 {
                std::hint::spin_loop();
            }
        })
    })
}

/// Round trip of one cache line between the calling thread and a helper
/// thread, ns: the two bounce a counter `rounds` times (each side waits for
/// the other's increment). A task handed to the service thread moves a few
/// lines between the two cores (its slot, descriptor words, the ring's
/// head and tail), so this is what a handoff costs at the least; guests
/// whose vCPUs sit on different dies or sockets measure several times more
/// than cores that share a cache.
#[inline(never)]
pub fn line_round_trip_ns(rounds: u32) -> f64 {
    use std::sync::atomic::{AtomicU32, Ordering};
    #[repr(align(128))]
    struct Line(AtomicU32);
    let flag = Line(AtomicU32::new(0));
    let flag = &flag.0;
    std::thread::scope(|sc| {
        sc.spawn(|| {
            for i in 0..rounds {
                while flag.load(Ordering::Acquire) != 2 * i + 1 {
                    std::hint::spin_loop();
                }
                flag.store(2 * i + 2, Ordering::Release);
            }
        });
        time(|| {
            for i in 0..rounds {
                flag.store(2 * i + 1, Ordering::Release);
                while flag.load(Ordering::Acquire) != 2 * i + 2 {
                    std::hint::spin_loop();
                }
            }
        }) / rounds as f64
    })
}

/// The parse of [`window_parse_memcpy`]/[`window_parse_amemcpy`]: a walk
/// over `n` bytes at `p`, in a function of its own that the compiler
/// cannot inline into the copy's caller (as in a program whose parser is
/// another function). With `guarded`, it reads only inside ready windows:
/// whenever it reaches the end of the current one it calls
/// `csync_ready_end` for the next byte, as CopierGen's guarded callees do
/// (the check hoisted out of the byte loop).
///
/// # Safety
/// `p` valid for `n` bytes; with `guarded`, any pending copy into them is
/// synced through `csync_ready_end`.
#[inline(never)]
pub unsafe fn window_parse(p: *const u8, n: usize, walk: Walk, guarded: bool) -> u64 {
    let (_, mut h, step) = walk;
    let mut off = 0;
    let mut ready = if guarded { 0 } else { n };
    while off < n {
        if off >= ready {
            let end = copier::capi::csync_ready_end(p.wrapping_add(off).cast(), 1) as usize;
            ready = end.saturating_sub(p as usize).min(n);
        }
        // (in steps of at most 4 KiB, so the walk itself is the same
        // machine code with and without the guard)
        let l = (ready - off).min(4096);
        // SAFETY: inside the buffer, inside a ready window when guarded.
        h = step(h, unsafe { std::slice::from_raw_parts(p.add(off), l) });
        off += l;
    }
    h
}

/// Copy, then parse in another function, baseline: memcpy, then
/// [`window_parse`] unguarded.
///
/// # Safety
/// `dst` and `src` valid for `n` bytes and disjoint.
pub unsafe fn window_parse_memcpy(dst: *mut u8, src: *const u8, n: usize, walk: Walk) -> u64 {
    // SAFETY: caller contract.
    unsafe {
        memcpy(dst, src, n);
        window_parse(dst, n, walk, false)
    }
}

/// Copy, then parse in another function, with Copier: amemcpy, then
/// [`window_parse`] guarded by ready windows.
///
/// # Safety
/// `dst` and `src` valid for `n` bytes and disjoint.
pub unsafe fn window_parse_amemcpy(dst: *mut u8, src: *const u8, n: usize, walk: Walk) -> u64 {
    // SAFETY: caller contract; the parse reads inside ready windows only.
    unsafe {
        acopy(dst, src, n);
        window_parse(dst, n, walk, true)
    }
}
