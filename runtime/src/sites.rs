//! Per-site statistics and run-time adaptivity of CopierGen's copies.
//!
//! CopierGen gives every copy it rewrites a *site*: a `struct copier_site`
//! in the program's data ([`Site`], layout in `copier_abi::site`), passed to
//! [`__copier_amemcpy_site`]/[`__copier_amemmove_site`]. The runtime counts
//! per site the copies that call it (not those the compiled code copies
//! inline while nothing is pending), their bytes and asynchronous
//! submits, and observes each
//! asynchronous copy until a wait covers its whole destination (or
//! `csync_all`): the *window* from its submit to the end of the last wait
//! that touched it, and the time the program spent in those waits. What a
//! copy saved the program is `min(window, copy time) - waited`: at most
//! what the copy would have cost it synchronously ([`sync_copy_ns`]), less
//! the time it waited for it (or copied it itself while waiting). The copy
//! *paid* when that is at least `adapt_gain_ns` (the submission's fixed
//! cost). After `adapt_after` observations the site goes *inline* when its
//! copies saved less than `adapt_gain_ns` each on average (a site whose
//! copies usually pay a little but sometimes wait for the whole copy
//! loses), or when at least 90% did not pay: its copies run synchronously
//! from then on (the pass
//! tests the state inline, so such a copy costs two loads and a compare
//! more than `memcpy`). `COPIER_STATS=sites` prints one line per site at
//! exit; `copiergen report` sums them over a stats file.
//!
//! Observation is per thread: a small ring of the thread's open copies,
//! looked at only by the csync-family calls that reach the runtime (the
//! compiled guards call it only while something is pending). A signal
//! handler that interrupts this bookkeeping finds it busy and skips it.

use copier_adapter::config::{self, values as opt};
use copier_adapter::sys::now_ns;
use core::ffi::{c_char, c_void};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::cell::RefCell;
use std::sync::Mutex;

/// A copy site (`struct copier_site`, `copier_abi::site::SIZE` bytes): the
/// pass emits the header, zero-initialised counters, and passes its address
/// with every copy of that call site. Not part of `copier.h`.
/// cbindgen:ignore
#[repr(C)]
pub struct Site {
    /// Source file (NUL-terminated), or null.
    pub file: *const c_char,
    /// Source line and column (0: unknown).
    pub line: u32,
    /// Source column.
    pub col: u32,
    /// Enclosing function (NUL-terminated), or null.
    pub function: *const c_char,
    /// [`LEARNING`], [`ASYNC`] or [`INLINE`] (`copier_abi::site::STATE_OFFSET`).
    pub state: AtomicU32,
    /// 1 once the site is in the registry.
    registered: AtomicU32,
    copies: AtomicU64,
    bytes: AtomicU64,
    asynchronous: AtomicU64,
    observed: AtomicU64,
    unpaid: AtomicU64,
    window_ns: AtomicU64,
    wait_ns: AtomicU64,
    waits: AtomicU64,
}

/// The site still observes its copies.
pub const LEARNING: u32 = copier_abi::site::LEARNING;
/// The site's copies paid: they stay asynchronous.
pub const ASYNC: u32 = copier_abi::site::ASYNC;
/// The site's copies never paid: they run inline.
pub const INLINE: u32 = copier_abi::site::INLINE;

/// Per site still learning (by address): the sum of `min(window, copy
/// time)` over its observations, ns (see [`Site::observe`]).
static SAVED_NS: Mutex<std::collections::BTreeMap<usize, u64>> = Mutex::new(std::collections::BTreeMap::new());

/// Sites seen so far (addresses), for the exit report.
static REGISTRY: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// One open asynchronous copy of this thread.
#[derive(Clone, Copy)]
struct Open {
    site: *const Site,
    dst: usize,
    len: usize,
    submitted: u64,
    /// End of the last wait that touched it (0: none yet).
    last_wait: u64,
    waited: u64,
}

/// Open copies per thread; the oldest is closed when a new one needs room.
const RING: usize = 16;

thread_local! {
    static OPEN: RefCell<Vec<Open>> = const { RefCell::new(Vec::new()) };
}

impl Site {
    fn register(&'static self) {
        if self.registered.load(Ordering::Relaxed) == 0 && self.registered.swap(1, Ordering::AcqRel) == 0 {
            REGISTRY.lock().unwrap_or_else(|e| e.into_inner()).push(self as *const Site as usize);
        }
    }

    /// Closes one observation of a copy of `len` bytes (see the module
    /// docs); `window` and `waited` in ns.
    fn observe(&self, len: usize, window: u64, waited: u64) {
        self.window_ns.fetch_add(window, Ordering::Relaxed);
        self.wait_ns.fetch_add(waited, Ordering::Relaxed);
        if waited > 0 {
            self.waits.fetch_add(1, Ordering::Relaxed);
        }
        let saved = window.min(sync_copy_ns(len));
        let min_gain = config::get(&opt::adapt_gain_ns) as u64;
        let unpaid = if saved.saturating_sub(waited) < min_gain {
            self.unpaid.fetch_add(1, Ordering::Relaxed) + 1
        } else {
            self.unpaid.load(Ordering::Relaxed)
        };
        let observed = self.observed.fetch_add(1, Ordering::Relaxed) + 1;
        if self.state.load(Ordering::Relaxed) != LEARNING {
            return;
        }
        // (try_lock: a fork child whose parent had another thread inside
        // finds it held forever, and decides by the unpaid count alone; an
        // observation that meets another thread's holds is not added, which
        // errs towards inline, memcpy's speed)
        let key = self as *const Site as usize;
        let saved_sum = SAVED_NS.try_lock().ok().map(|mut m| {
            let v = m.entry(key).or_insert(0);
            *v += saved;
            *v
        });
        let after = config::get(&opt::adapt_after) as u64;
        if after != 0 && observed >= after {
            // (wait_ns: every observation's waits so far, this one included)
            let waited_sum = self.wait_ns.load(Ordering::Relaxed);
            let loses = saved_sum.is_some_and(|v| v < waited_sum.saturating_add(min_gain.saturating_mul(observed)));
            let next = if loses || unpaid * 10 >= observed * 9 { INLINE } else { ASYNC };
            self.state.store(next, Ordering::Relaxed);
            if let Ok(mut m) = SAVED_NS.try_lock() {
                m.remove(&key);
            }
        }
    }

    /// A string of the site as one word of the report line: `%` and
    /// whitespace are %-escaped (`copiergen report` decodes them).
    fn text(p: *const c_char) -> String {
        if p.is_null() {
            return "?".to_owned();
        }
        // SAFETY: the pass emits NUL-terminated constant strings.
        let t = unsafe { std::ffi::CStr::from_ptr(p) }.to_string_lossy().into_owned();
        let mut out = String::with_capacity(t.len());
        for ch in t.chars() {
            match ch {
                '%' | ' ' | '\t' | '\n' | '\r' => out.push_str(&format!("%{:02X}", ch as u32)),
                c => out.push(c),
            }
        }
        out
    }

    /// The report line: `copier: site FILE:LINE:COL fn=F runtime_copies=N
    /// runtime_bytes=N async=N observed=N unpaid=N window_ns=N wait_ns=N
    /// waits=N state=S`. `runtime_copies`/`runtime_bytes` count the copies
    /// that called the runtime: while nothing is pending the compiled code
    /// copies inline, without calling it, a run-time length below the
    /// threshold and every copy of a site in [`INLINE`] (that fast path
    /// stays free of counting).
    fn line(&self) -> String {
        let state = match self.state.load(Ordering::Relaxed) {
            INLINE => "inline",
            ASYNC => "async",
            _ => "learning",
        };
        let l = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "copier: site {}:{}:{} fn={} runtime_copies={} runtime_bytes={} async={} observed={} unpaid={} window_ns={} wait_ns={} waits={} state={}",
            Self::text(self.file),
            self.line,
            self.col,
            Self::text(self.function),
            l(&self.copies),
            l(&self.bytes),
            l(&self.asynchronous),
            l(&self.observed),
            l(&self.unpaid),
            l(&self.window_ns),
            l(&self.wait_ns),
            l(&self.waits),
            state
        )
    }
}

/// A lower bound on what a synchronous copy of `len` bytes costs the
/// program, ns: at 20 GB/s (0.05 ns per byte), a single core's `memcpy` in
/// cache on current x86-64 (from DRAM it is 2-4x slower). An asynchronous
/// copy saves at most this, so a site whose waits eat it is found not to
/// pay.
fn sync_copy_ns(len: usize) -> u64 {
    (len as u64) / 20
}

/// Closes `o` at time `now`: a copy nobody waited for overlapped all that
/// ran until `now`.
fn close(o: &Open, now: u64) {
    // SAFETY: sites are the program's static data.
    let site = unsafe { &*o.site };
    let end = if o.last_wait == 0 { now } else { o.last_wait };
    site.observe(o.len, end.saturating_sub(o.submitted), o.waited);
}

/// Submit through the site (the body of the two entry points).
///
/// # Safety
/// As `amemcpy` (`memmove` when `overlap`); `site` null or a site the pass
/// emitted.
unsafe fn submit(dst: *mut c_void, src: *const c_void, n: usize, site: *const Site, overlap: bool) -> *mut c_void {
    let entry = if overlap { crate::capi::amemmove } else { crate::capi::amemcpy };
    if site.is_null() {
        // SAFETY: forwarded caller contract.
        return unsafe { entry(dst, src, n) };
    }
    // SAFETY: a site the pass emitted lives as long as the program.
    let s: &'static Site = unsafe { &*site };
    s.register();
    s.copies.fetch_add(1, Ordering::Relaxed);
    s.bytes.fetch_add(n as u64, Ordering::Relaxed);
    // SAFETY: forwarded caller contract.
    unsafe { entry(dst, src, n) };
    if s.state.load(Ordering::Relaxed) == INLINE {
        // Synchronous from here on (the pass only calls in for such a site
        // while something else is pending: order after it).
        crate::capi::csync(dst, n);
        return dst;
    }
    if n >= config::get(&opt::threshold) && config::get(&opt::service) != 0 {
        s.asynchronous.fetch_add(1, Ordering::Relaxed);
        let o = Open { site, dst: dst as usize, len: n, submitted: now_ns(), last_wait: 0, waited: 0 };
        let _ = OPEN.try_with(|v| {
            // (busy: a signal handler interrupted this thread's bookkeeping;
            // the copy goes unobserved)
            let Ok(mut v) = v.try_borrow_mut() else { return };
            // An open copy whose destination this one overwrites or reads
            // is done with: later waits on these bytes are this copy's.
            let (d, s) = (dst as usize, src as usize);
            v.retain(|p| {
                let hit = (d < p.dst + p.len && p.dst < d + n) || (s < p.dst + p.len && p.dst < s + n);
                if hit {
                    close(p, o.submitted);
                }
                !hit
            });
            if v.len() == RING {
                close(&v.remove(0), o.submitted);
            }
            v.push(o);
        });
    }
    dst
}

/// `amemcpy` of a CopierGen site: counts the copy for `site` and observes
/// it (module docs). A null `site` is plain `amemcpy`.
///
/// # Safety
/// As `amemcpy`; `site` null or the site the pass emitted for this call.
/// cbindgen:ignore
#[no_mangle]
pub unsafe extern "C" fn __copier_amemcpy_site(dst: *mut c_void, src: *const c_void, n: usize, site: *const Site) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { submit(dst, src, n, site, false) }
}

/// `amemmove` of a CopierGen site (see [`__copier_amemcpy_site`]).
///
/// # Safety
/// As `amemmove`; `site` null or the site the pass emitted for this call.
/// cbindgen:ignore
#[no_mangle]
pub unsafe extern "C" fn __copier_amemmove_site(dst: *mut c_void, src: *const c_void, n: usize, site: *const Site) -> *mut c_void {
    // SAFETY: forwarded caller contract.
    unsafe { submit(dst, src, n, site, true) }
}

/// Fork child: every site's counters start from zero, as the process
/// counters do (`stats::reset`), so a stats file shared by both processes
/// holds each copy once; the sites' adaptation state stays. The forking
/// thread's open copies are the parent's. (A registry another thread held
/// at the fork is left alone: its counts then repeat the parent's.)
pub fn fork_child() {
    let _ = OPEN.try_with(|v| {
        if let Ok(mut v) = v.try_borrow_mut() {
            v.clear();
        }
    });
    if let Ok(mut m) = SAVED_NS.try_lock() {
        m.clear();
    }
    let Ok(sites) = REGISTRY.try_lock() else { return };
    for &p in sites.iter() {
        // SAFETY: registered addresses are sites the pass emitted (static).
        let s = unsafe { &*(p as *const Site) };
        for c in [&s.copies, &s.bytes, &s.asynchronous, &s.observed, &s.unpaid, &s.window_ns, &s.wait_ns, &s.waits] {
            c.store(0, Ordering::Relaxed);
        }
    }
}

/// True when this thread has open site copies (the csync entry points
/// time their waits only then).
#[inline]
pub fn observing() -> bool {
    OPEN.try_with(|v| v.try_borrow().is_ok_and(|v| !v.is_empty())).unwrap_or(false)
}

/// A wait over `[addr, addr + n)` (every open copy when `all`) ran from
/// `t0` to `t1`: charge it to the open copies it touched, and close those
/// it covered whole.
pub fn waited(addr: usize, n: usize, all: bool, t0: u64, t1: u64) {
    let _ = OPEN.try_with(|v| {
        let Ok(mut v) = v.try_borrow_mut() else { return };
        let mut charged = false;
        v.retain_mut(|o| {
            let touches = all || (addr < o.dst + o.len && o.dst < addr.saturating_add(n));
            if !touches {
                return true;
            }
            if !charged {
                o.waited += t1 - t0;
                charged = true;
            }
            o.last_wait = t1;
            let covers = all || (addr <= o.dst && addr.saturating_add(n) >= o.dst + o.len);
            if covers {
                close(o, t1);
            }
            !covers
        });
    });
}

/// The calling thread has nothing pending at `now`: close its open
/// observations (each ends at its last wait, or `now` if it had none).
pub fn settled(now: u64) {
    let _ = OPEN.try_with(|v| {
        if let Ok(mut v) = v.try_borrow_mut() {
            v.drain(..).for_each(|o| close(&o, now));
        }
    });
}

/// Close the calling thread's open observations and return every site's
/// line (empty without sites); also print them to stderr when `to_stderr`
/// (`COPIER_STATS=sites`). The caller appends them to the stats file.
pub fn report(to_stderr: bool) -> Vec<String> {
    settled(now_ns());
    let sites = REGISTRY.lock().unwrap_or_else(|e| e.into_inner()).clone();
    if sites.is_empty() {
        return Vec::new();
    }
    // SAFETY: registered addresses are sites the pass emitted (static).
    let lines: Vec<String> = sites.iter().map(|&p| unsafe { &*(p as *const Site) }.line()).collect();
    if to_stderr {
        let mut s = lines.join("\n");
        s.push('\n');
        // SAFETY: writing our own buffer to fd 2.
        unsafe { libc::write(2, s.as_ptr().cast(), s.len()) };
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trial finding: `copies=` read as every copy of the site (seen:
    /// copies=162 of 2000 calls), but the copies a site in the inline state
    /// makes while nothing is pending never call the runtime. The fields
    /// say what they count.
    #[test]
    fn the_line_names_what_it_counts() {
        let s = site();
        s.copies.store(162, Ordering::Relaxed);
        s.bytes.store(4096, Ordering::Relaxed);
        s.state.store(INLINE, Ordering::Relaxed);
        let line = s.line();
        assert!(line.starts_with("copier: site ?:0:0 fn=? runtime_copies=162 runtime_bytes=4096 async=0 "), "{line}");
        assert!(line.ends_with(" state=inline"), "{line}");
    }

    #[test]
    fn layout_matches_the_abi() {
        assert_eq!(core::mem::size_of::<Site>(), copier_abi::site::SIZE);
        assert_eq!(core::mem::offset_of!(Site, state), copier_abi::site::STATE_OFFSET);
        assert_eq!(core::mem::align_of::<Site>(), 8);
    }

    fn site() -> &'static Site {
        // SAFETY: a Site is plain data; all-zero is a site in LEARNING with
        // no file (the pass emits it so).
        Box::leak(Box::new(unsafe { core::mem::zeroed::<Site>() }))
    }

    /// 64 observations of 256 KiB copies (13 us synchronously, at the
    /// estimate) with long windows: `waits(i)` ns waited in the i-th.
    fn decide(waits: impl Fn(u64) -> u64) -> u32 {
        let s = site();
        for i in 0..64 {
            s.observe(256 << 10, 500_000, waits(i));
        }
        s.state.load(Ordering::Relaxed)
    }

    #[test]
    fn a_site_whose_waits_eat_the_copy_goes_inline() {
        // (the defaults: adapt_after 64, adapt_gain_ns 2000)
        assert_eq!(decide(|_| 0), ASYNC, "never waited: the copy is saved");
        assert_eq!(decide(|_| 20_000), INLINE, "every copy waited longer than a memcpy takes");
        // two in three copies pay a little, every third waits for the
        // whole copy and more (the service was parked): a loss on average,
        // although far fewer than 90% of the copies were unpaid
        assert_eq!(decide(|i| if i % 3 == 0 { 40_000 } else { 5_000 }), INLINE);
        // the same with short waits only: a gain on average
        assert_eq!(decide(|i| if i % 3 == 0 { 12_000 } else { 5_000 }), ASYNC);
    }
}
