//! Copies a buffer with `copy_from_slice` (an `llvm.memcpy` of variable
//! length), then parses it: built with the plugin the copy becomes
//! `amemcpy` and the loop waits per window; the output must not change.
use std::hint::black_box;

#[inline(never)]
fn copy_then_parse(dst: &mut [u8], src: &[u8]) -> u64 {
    dst.copy_from_slice(src);
    let mut value = 0u64;
    let mut total = 0u64;
    for &b in dst.iter() {
        if b == b',' {
            total += value;
            value = 0;
        } else {
            value = value * 10 + u64::from(b - b'0');
        }
    }
    total + value
}

fn main() {
    let n = black_box(200_000usize);
    let src: Vec<u8> = (0..n).map(|i| if i % 6 == 5 { b',' } else { b'0' + (i % 10) as u8 }).collect();
    let mut dst = vec![0u8; n];
    println!("{}", copy_then_parse(&mut dst, &src));
}
