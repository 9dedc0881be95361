//! Criterion suite (`cargo bench -p copier-bench`): the same workloads as the
//! `copier-bench` command, with criterion's statistics. Baselines (memcpy)
//! sit in the same group as the Copier variant.

use copier_bench::*;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::time::Duration;

// SAFETY (every `unsafe` block below): the buffers hold at least n bytes and
// do not overlap; Copier copies are synced before the next iteration.

fn copy_parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("copy_parse");
    for &n in &[16usize << 10, 64 << 10, 1 << 20, 8 << 20] {
        let (src, dst) = (Buf::new(n, 1), Buf::new(n, 0));
        g.throughput(Throughput::Bytes(n as u64));
        // SAFETY: see the note at the top.
        g.bench_with_input(BenchmarkId::new("memcpy", n), &n, |b, &n| b.iter(|| unsafe { copy_parse_memcpy(dst.ptr(), src.ptr(), n, 4096, WALKS[0]) }));
        // SAFETY: see the note at the top.
        g.bench_with_input(BenchmarkId::new("amemcpy", n), &n, |b, &n| b.iter(|| unsafe { copy_parse_amemcpy(dst.ptr(), src.ptr(), n, 4096, WALKS[0]) }));
    }
    g.finish();
}

fn submit_and_csync(c: &mut Criterion) {
    let mut g = c.benchmark_group("service");
    let n = 64 << 10;
    let (src, dst) = (Buf::new(n, 1), Buf::new(n * 64, 0));
    g.bench_function("submit_64KiB_x64", |b| b.iter(|| submit_ns(&dst, &src, n, 64)));
    g.bench_function("csync_done_x1000", |b| b.iter(|| csync_done_ns(&dst, 1000)));
    g.finish();
}

fn small_and_large(c: &mut Criterion) {
    let mut g = c.benchmark_group("copy");
    let big = 64 << 20;
    let (src, dst) = (Buf::new(big, 1), Buf::new(big, 0));
    for &n in &[256usize, 4096, big] {
        g.throughput(Throughput::Bytes(n as u64));
        // SAFETY: see the note at the top.
        g.bench_with_input(BenchmarkId::new("memcpy", n), &n, |b, &n| b.iter(|| unsafe { memcpy(dst.ptr(), src.ptr(), n) }));
        g.bench_with_input(BenchmarkId::new("amemcpy_csync", n), &n, |b, &n| {
            b.iter(|| {
                // SAFETY: n-byte buffers, synced right after.
                unsafe { acopy(dst.ptr(), src.ptr(), n) };
                copier::capi::csync(dst.ptr() as *const _, n);
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(2)).warm_up_time(Duration::from_millis(500)).sample_size(20);
    targets = copy_parse, submit_and_csync, small_and_large
}
criterion_main!(benches);
