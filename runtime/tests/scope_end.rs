//! A scope waits, when it ends, for the copies whose `Pending` was dropped
//! unsynced (regression: it asked `copier_wait` for a range past the copy,
//! which is refused without waiting, so the buffers were released to the
//! caller with the copy still to run). Own test binary: it sets the lazy
//! window.

#[test]
fn scope_end_waits_for_a_dropped_pending_copy() {
    copier::ensure_init();
    // a lazy copy runs only when waited for (or after this window: 60 s)
    copier::options::set("lazy_window_us", "60000000").unwrap();
    let n = 1 << 20;
    let src = vec![9u8; n];
    let mut dst = vec![0u8; n];
    copier::scope(|s| {
        let _dropped = s.copy_lazy(&mut dst, &src);
    });
    let missing = dst.iter().filter(|&&b| b != 9).count();
    assert_eq!(missing, 0, "{missing} bytes not copied when the scope returned");
}
