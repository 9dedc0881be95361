//! Every C/C++ input is also a program: built without the plugin, and with
//! it at each of its optimisation levels, linked with the deferred runtime
//! (`testsuite/support/copier_deferred.c`: a copy happens only when a sync
//! needs it, so a missing or misplaced csync changes the output), and with
//! the workspace's libcopier when it is built. Outputs must be identical;
//! positive cases must submit at least one asynchronous copy. The -O1 runs
//! use the deferred runtime's exact windows (`csync_ready_end(p, n)` returns
//! `p + n`), so the loops' cached windows miss on every new range.

use copier_testsuite::{
    build_program, deferred_submitted, inputs, libcopier, program_stderr, run_program, CopyRuntime, Input, Lang,
};
use std::sync::Mutex;

fn check(input: &Input, dir: &std::path::Path) -> Vec<String> {
    let mut failures = Vec::new();
    let name = input.name();
    let base_exe = dir.join(format!("{name}.base"));
    build_program(input, "-O1", false, &CopyRuntime::Deferred, &base_exe);
    let base = run_program(&base_exe, &[]);
    if base.code != Some(0) {
        failures.push(format!("{name}: plain build exited with {:?}: {}", base.code, base.stderr));
        return failures;
    }
    let mut runtimes = vec![("deferred", CopyRuntime::Deferred)];
    if let Some(lib) = libcopier() {
        runtimes.push(("libcopier", CopyRuntime::Libcopier(lib)));
    }
    for (rt_name, rt) in &runtimes {
        for level in &input.run_levels {
            let exe = dir.join(format!("{name}{level}.{rt_name}"));
            build_program(input, level, true, rt, &exe);
            let env: &[(&str, &str)] = if level == "-O1" { &[("COPIER_DEFERRED_WINDOW", "exact")] } else { &[] };
            let r = run_program(&exe, env);
            let what = format!("{name} {level} with the plugin and {rt_name}");
            if r.code != base.code || r.stdout != base.stdout {
                failures.push(format!(
                    "{what}: exit {:?}, output differs from the plain build\n--- plain\n{}--- plugin\n{}--- stderr\n{}",
                    r.code, base.stdout, r.stdout, r.stderr
                ));
                continue;
            }
            if program_stderr(&r.stderr) != program_stderr(&base.stderr) {
                failures.push(format!("{what}: stderr differs:\n{}", r.stderr));
            }
            if matches!(rt, CopyRuntime::Deferred) {
                let submitted = deferred_submitted(&r.stderr).unwrap_or(0);
                if input.expect_async && submitted == 0 {
                    failures.push(format!("{what}: no copy went asynchronous"));
                }
                if !input.expect_async && submitted != 0 {
                    failures.push(format!("{what}: {submitted} copies went asynchronous, expected none"));
                }
            }
        }
    }
    failures
}

#[test]
fn programs_match_plain_builds() {
    let all: Vec<Input> = inputs().iter().map(|p| Input::load(p)).filter(|i| i.run && i.lang != Lang::Ir).collect();
    assert!(!all.is_empty(), "no program inputs");
    let dir = tempfile::tempdir().expect("temp dir");
    let failures = Mutex::new(Vec::new());
    let next = Mutex::new(all.iter());
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get()).min(4);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let Some(input) = next.lock().expect("lock").next() else { break };
                let f = check(input, dir.path());
                failures.lock().expect("lock").extend(f);
            });
        }
    });
    let failures = failures.into_inner().expect("lock");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}

/// The oracle itself: the same programs with every sync the pass placed
/// removed must fail (different output, or copies pending at exit).
#[test]
fn deferred_runtime_catches_missing_syncs() {
    use copier_testsuite::{input_ir, llvm_tool, run_opt};
    let ready_end = regex::Regex::new(r"(%[\w.]+) = call ptr @__copier_csync_ready_end\(ptr ([^,]+), i64 ([^)]+)\)").expect("regex");
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["struct_copy_then_field_read.c", "parse_loop_windowed.c", "src_written_after_copy.c"] {
        let input = Input::load(&copier_testsuite::inputs_dir().join(name));
        let base_exe = dir.path().join(format!("{name}.base"));
        build_program(&input, "-O1", false, &CopyRuntime::Deferred, &base_exe);
        let base = run_program(&base_exe, &[]);
        let ir = run_opt(&input_ir(&input), "copiergen", &input.optflags).ir;
        assert!(ir.contains("@__copier_amemcpy("), "{name}: nothing rewritten");
        let stripped: String = ir
            .lines()
            .filter(|l| !l.trim_start().starts_with("call void @__copier_csync(") && !l.trim_start().starts_with("call void @__copier_csync_all("))
            .map(|l| ready_end.replace(l, "$1 = getelementptr i8, ptr $2, i64 $3").into_owned() + "\n")
            .collect();
        let ll = dir.path().join(format!("{name}.ll"));
        std::fs::write(&ll, stripped).expect("write IR");
        let exe = dir.path().join(format!("{name}.nosync"));
        let out = std::process::Command::new(llvm_tool("clang"))
            .arg("-O1")
            .arg(&ll)
            .arg(copier_testsuite::deferred_runtime_object())
            .arg("-o")
            .arg(&exe)
            .output()
            .expect("clang runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let r = run_program(&exe, &[]);
        assert!(
            r.code != Some(0) || r.stdout != base.stdout,
            "{name}: removing every sync went unnoticed (output {:?})",
            r.stdout
        );
    }
}
