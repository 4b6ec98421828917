// tdkit test program: Rust (release, debug info, no frame pointers) for
// --call-graph dwarf recordings: generics, closures, iterators, inlining.
use std::collections::HashMap;

#[inline(never)]
fn collatz_len(mut n: u64) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

#[inline(never)]
fn histogram<F: Fn(u64) -> u32>(limit: u64, f: F) -> HashMap<u32, u64> {
    let mut h = HashMap::new();
    for n in 1..limit {
        *h.entry(f(n)).or_insert(0) += 1;
    }
    h
}

#[inline(never)]
fn sort_strings(n: usize) -> String {
    let mut v: Vec<String> = (0..n).map(|i| format!("s{}", (i * 7919) % 10007)).collect();
    v.sort();
    v[n / 2].clone()
}

fn main() {
    let rounds: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(6);
    let mut total = 0u64;
    for r in 0..rounds {
        let h = histogram(60000 + r, collatz_len);
        total += h.values().sum::<u64>();
        total += sort_strings(50000).len() as u64;
    }
    println!("{}", total);
}
