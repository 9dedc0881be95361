//! Large copies in plain Rust: `Vec::clone`, `to_vec`, `copy_from_slice`,
//! `extend_from_slice` and `copy_within`, each followed by a read of the
//! destination. Prints a checksum that must not change when the program is
//! built through CopierGen.

fn fold(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1 << 20);
    let src: Vec<u8> = (0..n).map(|i| (i.wrapping_mul(31) ^ (i >> 7)) as u8).collect();
    let cloned = src.clone();
    let mut dst = vec![0u8; n];
    dst.copy_from_slice(&src);
    dst[7] ^= 0x5a;
    let half = src[..n / 2].to_vec();
    let mut grown = Vec::with_capacity(n * 2);
    grown.extend_from_slice(&src);
    grown.extend_from_slice(&half);
    let mut moved = dst.clone();
    moved.copy_within(1000..n - 1000, 0);
    let mut h = fold(&cloned) ^ fold(&dst).rotate_left(7) ^ fold(&half).rotate_left(13);
    h ^= fold(&grown).rotate_left(19) ^ fold(&moved).rotate_left(29);
    // A chain of copies whose sources are written right after.
    let mut a = vec![1u8; 256 * 1024];
    let mut b = vec![0u8; 256 * 1024];
    for round in 0..16u8 {
        b.copy_from_slice(&a);
        a.fill(round);
        h = h.rotate_left(3) ^ fold(&b[..4096]) ^ u64::from(b[200_000]);
    }
    println!("rust n={n} hash={h:016x}");
}
