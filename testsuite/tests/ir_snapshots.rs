//! IR snapshots: every input of `testsuite/ir/` goes through
//! `opt-22 -passes=copiergen,verify` (so the verifier accepts every result);
//! the snapshot holds the remarks and the functions that copy or sync.
//! Review changes with `cargo insta review`.

#[test]
fn ir_snapshots() {
    insta::glob!("../ir", "*.{c,cpp,ll}", |path| {
        insta::assert_snapshot!(copier_testsuite::snapshot(path));
    });
}
