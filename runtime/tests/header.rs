//! `runtime/include/copier.h` must be exactly what cbindgen generates from
//! `src/capi.rs`, with each reserved declaration renamed to its public name
//! ([`public_declarations`]): a stale header fails here. `COPIER_BLESS=1`
//! rewrites it.

use copier_abi::symbols::PUBLIC;

/// cbindgen names each function by its symbol (`__copier_csync`): the
/// header declares the public name with the reserved symbol as its asm
/// label instead, `void csync(const void *addr, size_t n)
/// COPIER_SYMBOL(__copier_csync);`.
fn public_declarations(generated: &str) -> String {
    let mut h = generated.to_owned();
    for (public, reserved) in PUBLIC {
        let call = format!("{reserved}(");
        let at = h
            .match_indices(&call)
            .map(|(i, _)| i)
            .find(|&i| i > 0 && matches!(h.as_bytes()[i - 1], b' ' | b'*'))
            .unwrap_or_else(|| panic!("cbindgen declared no {reserved}"));
        let end = at + h[at..].find(';').expect("a declaration ends with ';'");
        // Continuation lines stay aligned under the first parameter.
        let params = h[at + call.len()..end].replace(&format!("\n{}", " ".repeat(reserved.len() - public.len())), "\n");
        h = format!("{}{public}({params} COPIER_SYMBOL({reserved}){}", &h[..at], &h[end..]);
    }
    assert!(!h.contains("__copier_") || h.lines().all(|l| !l.contains("__copier_") || l.contains("COPIER_SYMBOL") || l.starts_with("//")), "{h}");
    h
}

#[test]
fn header_is_fresh() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let cfg = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).expect("cbindgen.toml");
    let mut out = Vec::new();
    cbindgen::Builder::new().with_crate(dir).with_config(cfg).generate().expect("cbindgen failed").write(&mut out);
    let out = public_declarations(&String::from_utf8(out).expect("cbindgen writes UTF-8")).into_bytes();
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
    for (sym, reserved) in PUBLIC {
        assert!(text.contains(&format!(" {sym}(")) || text.contains(&format!("*{sym}(")), "{sym} missing from the header");
        assert!(text.contains(&format!(" COPIER_SYMBOL({reserved});")), "{sym} is not mapped to {reserved}");
    }
}
