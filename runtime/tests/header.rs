//! `runtime/include/copier.h` must be exactly what cbindgen generates from
//! `src/capi.rs`: a stale header fails here. `COPIER_BLESS=1` rewrites it.

#[test]
fn header_is_fresh() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let cfg = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new().with_crate(dir).with_config(cfg).generate().expect("cbindgen failed").write(&mut out);
    let path = format!("{dir}/include/copier.h");
    if std::env::var_os("COPIER_BLESS").is_some() {
        std::fs::write(&path, &out).expect("write header");
    }
    let have = std::fs::read(&path).unwrap_or_default();
    assert!(
        have == out,
        "runtime/include/copier.h is stale; regenerate with: COPIER_BLESS=1 cargo test -p copier --test header"
    );
    let text = String::from_utf8(out).unwrap();
    for sym in ["amemcpy", "amemmove", "csync", "csync_all", "csync_ready_end", "amemcpy_lazy", "amemcpy_handler", "copier_submit", "copier_wait", "copier_query", "copier_write", "copier_writev", "copier_pwrite", "copier_pwritev", "copier_send", "copier_sendto", "copier_sendmsg", "copier_fwrite", "copier_drop"] {
        assert!(text.contains(&format!(" {sym}(")) || text.contains(&format!("*{sym}(")), "{sym} missing from the header");
    }
}
