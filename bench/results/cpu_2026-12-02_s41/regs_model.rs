use std::time::Instant;
#[inline(never)]
fn op(kind: u8, a: &[f32], b: &[f32], o: &mut [f32]) {
    match kind {
        0 => for ((o, x), y) in o.iter_mut().zip(a).zip(b) { *o = x + y },
        1 => for ((o, x), y) in o.iter_mut().zip(a).zip(b) { *o = x * y },
        _ => for ((o, x), y) in o.iter_mut().zip(a).zip(b) { *o = x - y },
    }
}
fn run(nregs: usize, len: usize, steps: usize, total: usize) -> f64 {
    let mut regs: Vec<Vec<f32>> = (0..nregs).map(|i| vec![1.0 + i as f32 * 1e-3; len]).collect();
    let blocks = total / len;
    let t = Instant::now();
    for _rep in 0..20 {
        for _b in 0..blocks {
            for s in 0..steps {
                let d = (s + 2) % nregs; let a = (s + 1) % nregs; let b = s % nregs;
                let (a, b) = (regs[a].as_ptr(), regs[b].as_ptr());
                let sa = unsafe { std::slice::from_raw_parts(a, len) };
                let sb = unsafe { std::slice::from_raw_parts(b, len) };
                op((s % 3) as u8, sa, sb, unsafe { std::slice::from_raw_parts_mut(regs[d].as_mut_ptr(), len) });
            }
        }
    }
    let el = t.elapsed().as_secs_f64();
    std::hint::black_box(&regs);
    el / 20.0 / (blocks * steps * len) as f64 * 1e9 * 16.0 // ns per 16-lane op
}
fn main() {
    let total = 1 << 20;
    for &(nregs, len) in &[(30, 2048), (30, 1024), (30, 256), (8, 2048), (6, 2048), (6, 1024), (8, 1024), (8, 512), (30, 512)] {
        let ns = run(nregs, len, 30, total);
        println!("regs {nregs:3} len {len:5} ws {:4} KB : {:.3} ns per 16-lane op", nregs * len * 4 / 1024, ns);
    }
}
