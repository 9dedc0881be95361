//! Snapshots of the rewrite, one per pattern in `patterns/*.mlir` (each
//! named for what it proves): the remarks, then the rewritten module.
//! `INSTA_UPDATE=always` (or `cargo insta review`) accepts new output.

use copiergen_mlir::pipeline::DEFAULT_LOWERING;
use copiergen_mlir::{lower_copier_text, lower_text, rewrite_text, Placement};

#[test]
fn patterns() {
    insta::glob!("patterns/*.mlir", |path| {
        let text = std::fs::read_to_string(path).expect("readable pattern");
        let (out, remarks, counts) = rewrite_text(&text, Placement { threshold: copier_abi::DEFAULT_THRESHOLD as u64 })
            .unwrap_or_else(|f| panic!("{}: {}: {:?}", path.display(), f.what, f.diags));
        let mut snap = String::new();
        for r in &remarks {
            snap.push_str(&format!("{}: {}\n", r.severity, r.message));
        }
        snap.push_str(&format!(
            "// asynchronous={} synchronous={} waits={}\n{out}",
            counts.asynchronous, counts.synchronous, counts.waits
        ));
        insta::assert_snapshot!(snap);
    });
}

#[test]
fn malformed_input_gets_mlir_diagnostics() {
    let err = rewrite_text("func.func @f() {\n  %x = memref.alloc() : memref<4xf64\n}\n", Placement { threshold: 0 })
        .expect_err("malformed");
    assert!(err.diags.iter().any(|d| d.severity == "error"), "{:?}", err.diags);
    let err = rewrite_text("func.func @f(%a: memref<4xf64>) {\n  %c = arith.constant 1 : i32\n  memref.store %c, %a[%c] : memref<4xf64>\n  return\n}\n", Placement { threshold: 0 })
        .expect_err("does not verify");
    assert!(!err.diags.is_empty());
}

#[test]
fn every_async_copy_has_a_wait_before_its_block_ends() {
    // Each pattern: every copier.copy_async is followed, in its block, by a
    // copier.wait with its token, or by a range wait after an scf.if.
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/patterns")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (out, _, counts) =
            rewrite_text(&text, Placement { threshold: copier_abi::DEFAULT_THRESHOLD as u64 }).unwrap();
        let tokens: Vec<&str> = out
            .lines()
            .filter(|l| l.contains("\"copier.copy_async\""))
            .map(|l| l.trim().split(' ').next().unwrap())
            .collect();
        assert_eq!(tokens.len(), counts.asynchronous, "{}", path.display());
        let range_waits =
            out.lines().filter(|l| l.contains("\"copier.wait\"(%") && !l.contains("!copier.token,")).count();
        for t in tokens {
            assert!(
                out.contains(&format!("\"copier.wait\"({t},")) || range_waits > 0,
                "{}: no wait for {t}",
                path.display()
            );
        }
    }
}

#[test]
fn every_pattern_lowers_to_llvm_ir_with_libcopier_calls() {
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/patterns")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let placement = Placement { threshold: copier_abi::DEFAULT_THRESHOLD as u64 };
        let (_, _, counts) = rewrite_text(&text, placement).unwrap();
        let ll = lower_text(&text, placement, DEFAULT_LOWERING)
            .unwrap_or_else(|f| panic!("{}: {}: {:?}", path.display(), f.what, f.diags));
        assert_eq!(ll.contains("call i64 @__copier_submit"), counts.asynchronous > 0, "{}", path.display());
        assert_eq!(ll.contains("call void @__copier_csync") || ll.contains("call i32 @__copier_wait"), counts.waits > 0, "{}", path.display());
    }
}

/// Snapshots of the copier lowering (before the LLVM dialect) of the
/// patterns that show its three forms: a dense copy through the descriptor
/// API (`copier_submit`, per-tile `copier_wait`), a strided copy row by row
/// (`amemcpy` per row, token -1: its waits are `csync`s), and range waits
/// after an `scf.if` (`csync`).
#[test]
fn lowering() {
    for pattern in [
        "reduce_after_copy_waits_per_tile_inside_the_loop",
        "strided_layout_copy_is_asynchronous",
        "copies_in_both_branches_of_scf_if_wait_once_after_it",
    ] {
        let path = format!("{}/tests/patterns/{pattern}.mlir", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("readable pattern");
        let out = lower_copier_text(&text, Placement { threshold: copier_abi::DEFAULT_THRESHOLD as u64 })
            .unwrap_or_else(|f| panic!("{path}: {}: {:?}", f.what, f.diags));
        insta::assert_snapshot!(format!("lowering@{pattern}"), out);
    }
}
