//! Thin OS layer: futex wait/wake, a futex mutex, monotonic time.

use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicU32, Ordering};

/// Sleep while `*word == expected` (or until woken / `timeout_ns` elapses).
pub fn futex_wait(word: &AtomicU32, expected: u32, timeout_ns: Option<u64>) {
    let ts;
    let tsp = match timeout_ns {
        Some(ns) => {
            ts = libc::timespec { tv_sec: (ns / 1_000_000_000) as _, tv_nsec: (ns % 1_000_000_000) as _ };
            &ts as *const libc::timespec
        }
        None => core::ptr::null(),
    };
    // SAFETY: FUTEX_WAIT_PRIVATE on a valid aligned u32 we borrow; the kernel
    // only reads it.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAIT | libc::FUTEX_PRIVATE_FLAG, expected, tsp);
    }
}

/// Wake up to `n` threads sleeping on `word`.
pub fn futex_wake(word: &AtomicU32, n: i32) {
    // SAFETY: FUTEX_WAKE_PRIVATE on a valid aligned u32.
    unsafe {
        libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, n);
    }
}

/// Monotonic clock in nanoseconds.
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: valid out pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// A futex mutex (Drepper, "Futexes Are Tricky", mutex #2: 0 free, 1 locked,
/// 2 locked with waiters) whose lock can be held across `pthread_atfork`
/// callbacks and reset in a fork child, which `std::sync::Mutex` cannot.
pub struct FutexMutex<T> {
    state: AtomicU32,
    data: UnsafeCell<T>,
}

// SAFETY: access to `data` is serialized by `state` (lock/unlock below).
unsafe impl<T: Send> Sync for FutexMutex<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for FutexMutex<T> {}

/// Guard of a locked [`FutexMutex`].
pub struct Guard<'a, T> {
    m: &'a FutexMutex<T>,
}

impl<T> FutexMutex<T> {
    /// A new unlocked mutex.
    pub const fn new(v: T) -> Self {
        FutexMutex { state: AtomicU32::new(0), data: UnsafeCell::new(v) }
    }

    /// Lock (spin briefly, then sleep).
    pub fn lock(&self) -> Guard<'_, T> {
        self.raw_lock();
        Guard { m: self }
    }

    /// Lock without a guard (fork `prepare`); pair with [`FutexMutex::raw_unlock`].
    pub fn raw_lock(&self) {
        if self.state.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok() {
            return;
        }
        for _ in 0..100 {
            core::hint::spin_loop();
            if self.state.load(Ordering::Relaxed) == 0
                && self.state.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok()
            {
                return;
            }
        }
        while self.state.swap(2, Ordering::Acquire) != 0 {
            futex_wait(&self.state, 2, None);
        }
    }

    /// Try to lock without waiting.
    pub fn try_lock(&self) -> Option<Guard<'_, T>> {
        self.state.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).ok().map(|_| Guard { m: self })
    }

    /// Unlock a lock taken with [`FutexMutex::raw_lock`].
    pub fn raw_unlock(&self) {
        if self.state.swap(0, Ordering::Release) == 2 {
            futex_wake(&self.state, 1);
        }
    }

    /// Fork child: the only thread left holds or abandons the lock; make it
    /// free.
    pub fn reset_in_child(&self) {
        self.state.store(0, Ordering::Relaxed);
    }

    /// Access without locking.
    ///
    /// # Safety
    /// The caller holds the lock (taken with `raw_lock`).
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn get_unchecked(&self) -> &mut T {
        // SAFETY: caller holds the lock.
        unsafe { &mut *self.data.get() }
    }
}

impl<T> core::ops::Deref for Guard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the guard proves the lock is held.
        unsafe { &*self.m.data.get() }
    }
}
impl<T> core::ops::DerefMut for Guard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: the guard proves the lock is held, exclusively.
        unsafe { &mut *self.m.data.get() }
    }
}
impl<T> Drop for Guard<'_, T> {
    fn drop(&mut self) {
        self.m.raw_unlock();
    }
}
