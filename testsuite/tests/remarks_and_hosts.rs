//! Remarks through clang (`-Rpass=copiergen`, `-Rpass-missed=copiergen`,
//! `-fsave-optimization-record`), pass parameters and options, and
//! robustness on generated huge functions.

use copier_testsuite::{inputs_dir, llvm_tool, plugin_path, run_opt};
use std::process::Command;

fn clang(args: &[&str], dir: &std::path::Path) -> std::process::Output {
    Command::new(llvm_tool("clang"))
        .arg(format!("-fpass-plugin={}", plugin_path().display()))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("clang-22 runs")
}

#[test]
fn rpass_lists_rewrites_and_csyncs_with_source_locations() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = inputs_dir().join("struct_copy_then_field_read.c");
    std::fs::copy(&src, dir.path().join("s.c")).expect("copy input");
    let out = clang(
        &["-O2", "-g", "-c", "s.c", "-o", "s.o", "-Rpass=copiergen", "-mllvm", "-copiergen-min-overlap=0"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let remarks: Vec<&str> = err.lines().filter(|l| l.contains("[-Rpass=copiergen]")).collect();
    assert!(
        remarks.iter().any(|l| l.starts_with("s.c:14:10: remark: llvm.memcpy of 40008 bytes rewritten to amemcpy")),
        "{err}"
    );
    // Each field read gets a csync remark at the read, naming the copy.
    let csyncs: Vec<&&str> = remarks.iter().filter(|l| l.contains("csync(ptr, 4 bytes) before load at s.c:15:")).collect();
    assert_eq!(csyncs.len(), 2, "{err}");
    assert!(csyncs.iter().all(|l| l.contains("destination of llvm.memcpy at s.c:14:10")), "{err}");
    assert!(remarks.iter().any(|l| l.contains("before return")), "{err}");
}

#[test]
fn rpass_missed_explains_synchronous_copies() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(inputs_dir().join("small_constant_copy_stays_sync.c"), dir.path().join("s.c")).expect("copy");
    let out = clang(&["-O0", "-g", "-c", "s.c", "-o", "s.o", "-Rpass-missed=copiergen"], dir.path());
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("remark: llvm.memcpy of 64 bytes stays synchronous: constant length 64 bytes is below the threshold (16384 bytes, -copiergen-threshold) [-Rpass-missed=copiergen]"),
        "{err}"
    );
    // -mllvm reaches the plugin's option (clang 22 loads pass plugins first).
    let out = clang(
        &["-O0", "-c", "s.c", "-o", "s.o", "-Rpass=copiergen", "-mllvm", "-copiergen-threshold=32", "-mllvm", "-copiergen-min-overlap=0"],
        dir.path(),
    );
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("llvm.memcpy of 64 bytes rewritten to amemcpy"));
}

#[test]
fn optimization_record_has_copiergen_entries() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(inputs_dir().join("parse_loop_windowed.c"), dir.path().join("p.c")).expect("copy");
    let out = clang(&["-O2", "-g", "-c", "p.c", "-o", "p.o", "-fsave-optimization-record"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let yaml = std::fs::read_to_string(dir.path().join("p.opt.yaml")).expect("p.opt.yaml written");
    let ours: Vec<&str> = yaml.split("\n---").filter(|doc| doc.contains("Pass:            copiergen")).collect();
    assert!(ours.iter().any(|d| d.starts_with("--- !Passed") || d.contains("Name:            AsyncCopy")), "{yaml}");
    assert!(ours.iter().any(|d| d.contains("Name:            AsyncCopy") && d.contains("Replacement:     amemcpy")));
    assert!(ours.iter().any(|d| d.contains("Name:            CsyncWindow") && d.contains("DebugLoc:")));
}

#[test]
fn bad_pass_parameters_are_rejected_with_a_message() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ll = dir.path().join("in.ll");
    std::fs::write(&ll, "define void @f() {\n  ret void\n}\n").expect("write");
    let out = Command::new(llvm_tool("opt"))
        .arg(format!("-load-pass-plugin={}", plugin_path().display()))
        .args(["-passes=copiergen<threshold=abc>", "-disable-output"])
        .arg(&ll)
        .output()
        .expect("opt runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("threshold 'abc' is not a size in bytes"), "{err}");
    let out = Command::new(llvm_tool("opt"))
        .arg(format!("-load-pass-plugin={}", plugin_path().display()))
        .args(["-passes=copiergen<threshold=8;no-window>", "-disable-output"])
        .arg(&ll)
        .output()
        .expect("opt runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Trial finding: `-copiergen-threshold=16k` (and the same in
/// `COPIERGEN_OPTIONS`) was refused although `copiergen cc
/// --copier-threshold=16k` takes it. The option takes every Copier size
/// (`copier_abi::parse_size`); a bad value is one clear message naming
/// the syntax.
#[test]
fn threshold_option_takes_size_suffixes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let ll = dir.path().join("in.ll");
    std::fs::write(
        &ll,
        "@a = global [20000 x i8] zeroinitializer\n@b = global [20000 x i8] zeroinitializer\n\
         define void @f() {\n  call void @llvm.memcpy.p0.p0.i64(ptr @b, ptr @a, i64 10000, i1 false)\n  ret void\n}\n",
    )
    .expect("write");
    let opt = |args: &[&str], env: Option<&str>| {
        let mut c = Command::new(llvm_tool("opt"));
        c.arg(format!("-load-pass-plugin={}", plugin_path().display()))
            .args(["-passes=copiergen", "-copiergen-min-overlap=0", "-pass-remarks=copiergen", "-pass-remarks-missed=copiergen"])
            .args(["-disable-output"])
            .args(args)
            .arg(&ll)
            .env_remove("COPIERGEN_OPTIONS");
        if let Some(v) = env {
            c.env("COPIERGEN_OPTIONS", v);
        }
        c.output().expect("opt runs")
    };
    let below = "below the threshold (16384 bytes, -copiergen-threshold)";
    for (args, env) in [(&["-copiergen-threshold=16k"][..], None), (&[][..], Some("-copiergen-threshold=16K"))] {
        let out = opt(args, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && err.contains(below), "{args:?} {env:?}: {err}");
        assert!(!err.contains("warning"), "{err}");
    }
    let out = opt(&["-copiergen-threshold=8k"], None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("llvm.memcpy of 10000 bytes rewritten to amemcpy"), "{err}");
    let syntax = "a size in bytes (digits with an optional k, m or g suffix)";
    for bad in ["16q", "-1", "18446744073709551616", "17179869184g", "0x10"] {
        let out = opt(&[&format!("-copiergen-threshold={bad}")], None);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad}: {err}");
        assert!(err.contains(&format!("for the --copiergen-threshold option: '{bad}' is not {syntax}")), "{bad}: {err}");
        let out = opt(&[], Some(&format!("-copiergen-threshold={bad}")));
        let err = String::from_utf8_lossy(&out.stderr);
        let want = format!("COPIERGEN_OPTIONS: bad value '{bad}' for option '-copiergen-threshold' (expected {syntax}); ignored");
        assert!(out.status.success() && err.contains(&want) && err.contains(below), "{bad}: {err}");
        assert_eq!(err.lines().filter(|l| l.contains(bad)).count(), 1, "one message: {err}");
    }
    let out = Command::new(llvm_tool("opt"))
        .arg(format!("-load-pass-plugin={}", plugin_path().display()))
        .args(["-passes=copiergen<threshold=8k;min-overlap=0>", "-pass-remarks=copiergen", "-disable-output"])
        .arg(&ll)
        .output()
        .expect("opt runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("rewritten to amemcpy"), "{err}");
}

/// A function with `copies` copies through loaded pointers, each followed
/// by `reads` reads that may alias every destination.
fn huge_function(copies: usize, reads: usize) -> String {
    let mut s = String::from("define i64 @huge(ptr %d, ptr %s, ptr %x, i64 %n) {\nentry:\n  %acc0 = add i64 0, 0\n");
    let mut acc = 0;
    for i in 0..copies {
        s += &format!("  %dp{i} = getelementptr ptr, ptr %d, i64 {i}\n  %dst{i} = load ptr, ptr %dp{i}\n");
        s += &format!("  %sp{i} = getelementptr ptr, ptr %s, i64 {i}\n  %src{i} = load ptr, ptr %sp{i}\n");
        s += &format!("  call void @llvm.memcpy.p0.p0.i64(ptr %dst{i}, ptr %src{i}, i64 %n, i1 false)\n");
        for j in 0..reads {
            let k = i * reads + j;
            s += &format!("  %xp{k} = getelementptr i64, ptr %x, i64 {k}\n  %v{k} = load i64, ptr %xp{k}\n");
            s += &format!("  %acc{} = add i64 %acc{acc}, %v{k}\n", acc + 1);
            acc += 1;
        }
    }
    s += &format!("  ret i64 %acc{acc}\n}}\ndeclare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n");
    s
}

#[test]
fn huge_function_is_rewritten_and_verifies() {
    let flags = ["-copiergen-min-overlap=0".to_owned(), "-copiergen-max-narrow=1000000".to_owned()];
    let out = run_opt(&huge_function(400, 30), "copiergen,verify", &flags);
    assert_eq!(out.ir.matches("call ptr @__copier_amemcpy_site").count(), 400);
    // Every read may alias every copy; the 30 adjacent 8-byte reads after
    // each copy share one csync over their 240-byte hull (no loop: plain
    // calls); 400 copies pending at the return: one csync_all.
    assert_eq!(out.ir.matches(", i64 240)").count(), 400);
    assert!(out.ir.contains("call void @__copier_csync_all()"));
}

#[test]
fn function_with_too_many_narrow_syncs_is_planned_coarsely() {
    // 40 copies, each followed by 10 reads that may alias it: 400 narrow
    // syncs > -copiergen-max-narrow=32, so each copy is synced whole at its
    // first conflicting read instead, and no guard is emitted.
    let out = run_opt(&huge_function(40, 10), "copiergen,verify", &["-copiergen-min-overlap=0".to_owned()]);
    assert_eq!(out.ir.matches("call ptr @__copier_amemcpy_site").count(), 40);
    // One whole-copy csync per copy (at its first read, from the copy's
    // slot: the size split joins the submitting and the inline path), none
    // per read.
    assert_eq!(out.ir.matches("call void @__copier_csync(ptr %xp").count(), 0);
    assert_eq!(out.ir.matches("call void @__copier_csync(ptr %copiergen.dst").count(), 40);
    let coarse = out.remarks.iter().filter(|r| r.contains("too many accesses to guard one by one (-copiergen-max-narrow)"));
    assert!(coarse.count() >= 40, "{:#?}", out.remarks);
}

#[test]
fn function_over_the_query_budget_keeps_its_copies_synchronous() {
    let flags = ["-copiergen-max-queries=100".to_owned(), "-copiergen-min-overlap=0".to_owned()];
    let out = run_opt(&huge_function(50, 10), "copiergen,verify", &flags);
    assert!(!out.ir.contains("amemcpy"), "nothing may be rewritten or declared");
    assert_eq!(out.remarks.iter().filter(|r| r.contains("function too large for the csync analysis")).count(), 50);
}

/// -O3 unrolls the loop below eight times and folds `n - 1` to -1 in the
/// copies it proved run only when n == 0: one remark per source location
/// and message (not one per unrolled copy), and no 2^64 - 1 byte lengths.
#[test]
fn unrolled_copies_give_one_remark_each_and_no_impossible_lengths() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv) {
  size_t n = argc > 1 ? strtoul(argv[1], 0, 10) : 100000;
  char *src = malloc(n + 1), *dst = malloc(n + 1);
  for (size_t i = 0; i < n; i++) src[i] = (char)i;
  long t = 0;
  for (int r = 0; r < 8; r++) {
    memcpy(dst, src, n);
    for (size_t i = 0; i < n; i++) t += dst[i];
    memmove(dst + 1, dst, n - 1);
    t += dst[n / 2];
  }
  printf("%ld\n", t);
  return 0;
}
"#;
    std::fs::write(dir.path().join("u.c"), src).expect("write");
    let out = clang(&["-O3", "-g", "-c", "u.c", "-o", "u.o", "-Rpass=copiergen", "-Rpass-missed=copiergen"], dir.path());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let remarks: Vec<&str> = err.lines().filter(|l| l.contains("remark: ")).collect();
    assert!(remarks.iter().any(|l| l.contains("u.c:10:5: remark: llvm.memcpy of variable length rewritten to amemcpy")), "{err}");
    let mut seen = std::collections::HashSet::new();
    for r in &remarks {
        assert!(seen.insert(*r), "repeated remark: {r}\n{err}");
        assert!(!r.contains(&u64::MAX.to_string()), "impossible length printed: {r}");
    }
}

/// A copy followed by `work` dependent adds, then the return (where the
/// copy is waited for).
fn copy_then_straight_line(work: usize) -> String {
    let mut s = String::from("define i64 @f(ptr %dst, ptr %src, i64 %n) {\n");
    s += "  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 %n, i1 false)\n  %v0 = add i64 %n, 0\n";
    for i in 1..work {
        s += &format!("  %v{i} = add i64 %v{}, {i}\n", i - 1);
    }
    s += &format!("  ret i64 %v{}\n}}\ndeclare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n", work - 1);
    s
}

#[test]
fn cost_model_default_and_parameter_bound_the_straight_line_work() {
    // Default -copiergen-min-overlap=256: 255 instructions before the
    // return keep the copy synchronous, 256 do not.
    let kept = run_opt(&copy_then_straight_line(255), "copiergen,verify", &[]);
    assert!(!kept.ir.contains("amemcpy"), "{:#?}", kept.remarks);
    let remark = kept.remarks.iter().find(|r| r.contains("stays synchronous")).expect("a NoOverlap remark");
    assert!(
        remark.contains("before return after at most 255 instructions of work on every path (no call, no loop; fewer than 256, -copiergen-min-overlap)"),
        "{remark}"
    );
    let rewritten = run_opt(&copy_then_straight_line(256), "copiergen,verify", &[]);
    assert_eq!(rewritten.ir.matches("call ptr @__copier_amemcpy_site").count(), 1, "{:#?}", rewritten.remarks);
    // The pass parameter overrides the option; 0 turns the model off.
    let param = run_opt(&copy_then_straight_line(255), "copiergen<min-overlap=0>,verify", &[]);
    assert_eq!(param.ir.matches("call ptr @__copier_amemcpy_site").count(), 1);
    let option = run_opt(&copy_then_straight_line(20), "copiergen,verify", &["-copiergen-min-overlap=21".to_owned()]);
    assert!(!option.ir.contains("amemcpy"));
}

#[test]
fn copies_a_coarse_plan_waits_for_at_once_name_the_coarse_plan() {
    // As above, at the default -copiergen-min-overlap: the coarse plan waits
    // for each copy at the read right after it, so none overlaps anything,
    // and the remark says the coarse plan is why (e.g. a loop that -flto
    // unrolled fully).
    let out = run_opt(&huge_function(40, 10), "copiergen,verify", &[]);
    assert!(!out.ir.contains("@__copier_amemcpy_site("), "every copy stays memcpy");
    let coarse = out.remarks.iter().filter(|r| {
        r.contains("stays synchronous: the whole copy would be waited for before load")
            && r.contains("(planned coarsely: the function needs more than 32 narrow syncs, -copiergen-max-narrow)")
    });
    assert_eq!(coarse.count(), 40, "{:#?}", out.remarks);
}

#[test]
fn size_profiles_are_ignored_under_the_option() {
    let ir = std::fs::read_to_string(inputs_dir().join("size_profile_short.ll")).expect("input");
    let on = run_opt(&ir, "copiergen,verify", &["-copiergen-min-overlap=0".to_owned()]);
    assert_eq!(on.ir.matches("call ptr @__copier_amemcpy_site(").count(), 3);
    let flags = ["-copiergen-min-overlap=0".to_owned(), "-copiergen-size-profile=false".to_owned()];
    let off = run_opt(&ir, "copiergen,verify", &flags);
    assert_eq!(off.ir.matches("call ptr @__copier_amemcpy_site(").count(), 5);
    assert!(!off.remarks.iter().any(|r| r.contains("size profile")), "{:#?}", off.remarks);
}
