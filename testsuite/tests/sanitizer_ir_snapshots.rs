//! CopierSanitizer IR snapshots: every C and C++ input of `testsuite/ir/`
//! through `opt-22 -passes=copiergen,copier-sanitizer,verify`; the snapshot
//! holds the instrumented functions. Review changes with `cargo insta review`.

#[test]
fn sanitizer_ir_snapshots() {
    insta::glob!("../ir", "*.{c,cpp}", |path| {
        insta::assert_snapshot!(copier_testsuite::sanitizer_snapshot(path));
    });
}
