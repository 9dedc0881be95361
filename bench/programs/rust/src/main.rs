//! A Rust workload for `bench/programs/run.sh`: one figure of pure-Rust
//! compression on a fixed file, timed over ROUNDS rounds.
//!
//! Usage: `rust_workload FIGURE FILE ROUNDS`, FIGURE one of `lz4-compress`,
//! `lz4-decompress` (lz4_flex block format, size-prepended), `deflate`
//! (miniz_oxide level 6, zlib wrapper) and `inflate`. Prints
//! `ns_per_round=<n> checksum=<hex>`; the checksum (a hash of each round's
//! output length and sampled bytes) is the same for every build. Exits 2 on
//! bad arguments, 1 when the file cannot be read or a round trip fails.

use std::process::exit;
use std::time::Instant;

fn fold(sum: u64, out: &[u8]) -> u64 {
    let mut s = sum.wrapping_mul(31).wrapping_add(out.len() as u64);
    for b in out.iter().step_by(64) {
        s = s.wrapping_mul(31).wrapping_add(u64::from(*b));
    }
    s
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 4 {
        eprintln!("usage: rust_workload lz4-compress|lz4-decompress|deflate|inflate FILE ROUNDS");
        exit(2);
    }
    let Ok(rounds) = args[3].parse::<u32>() else {
        eprintln!("rust_workload: ROUNDS must be a number, not {}", args[3]);
        exit(2);
    };
    let data = std::fs::read(&args[2]).unwrap_or_else(|e| {
        eprintln!("rust_workload: {}: {e}", args[2]);
        exit(1);
    });
    // Decompression figures start from the compressed form, made once.
    let input = match args[1].as_str() {
        "lz4-compress" | "deflate" => data.clone(),
        "lz4-decompress" => lz4_flex::compress_prepend_size(&data),
        "inflate" => miniz_oxide::deflate::compress_to_vec_zlib(&data, 6),
        f => {
            eprintln!("rust_workload: unknown figure {f}");
            exit(2);
        }
    };
    let mut sum = 0u64;
    let start = Instant::now();
    for r in 0..rounds {
        let out = match args[1].as_str() {
            "lz4-compress" => lz4_flex::compress_prepend_size(&input),
            "deflate" => miniz_oxide::deflate::compress_to_vec_zlib(&input, 6),
            "lz4-decompress" => lz4_flex::decompress_size_prepended(&input).unwrap_or_else(|e| {
                eprintln!("rust_workload: lz4 round trip failed: {e}");
                exit(1);
            }),
            _ => miniz_oxide::inflate::decompress_to_vec_zlib(&input).unwrap_or_else(|e| {
                eprintln!("rust_workload: inflate failed: {e:?}");
                exit(1);
            }),
        };
        // One check, outside the steady state of the later rounds.
        if r == 0 && (args[1] == "lz4-decompress" || args[1] == "inflate") && out != data {
            eprintln!("rust_workload: round trip differs");
            exit(1);
        }
        sum = fold(sum, &out);
    }
    let ns = start.elapsed().as_nanos() / u128::from(rounds.max(1));
    println!("ns_per_round={ns} checksum={sum:016x}");
}
