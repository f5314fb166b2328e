//! Accuracy and special values of every path this machine runs (scalar,
//! AVX2 if present, AVX-512 if present, and the dispatched one), against
//! oracles of higher precision: f64 libm for the f32 functions, and for f64
//! a table of 40-digit mpmath values (`oracle_f64.txt`, made by
//! `oracle_f64.py`) plus a dense sweep against glibc (within 1 ulp itself).

use super::*;

fn isas() -> Vec<Isa> {
    [Isa::Scalar, Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|i| i.available())
        .collect()
}

fn oracle(f: MathFn) -> fn(f64) -> f64 {
    scalar_fn_f64(f)
}

/// |y - r| in units of f32's last place at r (subnormal spacing below).
fn ulp32(y: f32, r: f64) -> f64 {
    if y.is_nan() || r.is_nan() {
        return if y.is_nan() && r.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if r.is_infinite() || (r.abs() > f32::MAX as f64) {
        return if y as f64 == r || (y.is_infinite() && y.is_sign_positive() == (r > 0.0)) {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let e = if r == 0.0 {
        -149
    } else {
        (r.abs().log2().floor() as i32).max(-126) - 23
    };
    (y as f64 - r).abs() / 2f64.powi(e)
}

/// |y - r| in units of f64's last place at r.
fn ulp64(y: f64, r: f64) -> f64 {
    if y.is_nan() || r.is_nan() {
        return if y.is_nan() && r.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if r.is_infinite() {
        return if y == r { 0.0 } else { f64::INFINITY };
    }
    let e = if r == 0.0 {
        -1074
    } else {
        ((r.abs().log2().floor() as i32).max(-1022) - 52).max(-1074)
    };
    let d = y - r;
    // 2^e built from its bits: powi would round 2^-1074 through 1 / 2^1074 = 0
    let unit = if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    };
    if d.is_infinite() { f64::INFINITY } else { d.abs() / unit }
}

/// Every `step`-th finite f32 of both signs.
fn sweep_f32(step: u32) -> Vec<f32> {
    let mut v: Vec<f32> = (0..0x7f80_0000u32).step_by(step as usize).map(f32::from_bits).collect();
    let neg: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(neg);
    v
}

fn specials_f32() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        1e-45,
        -1e-45,
        f32::MAX,
        f32::MIN,
        88.72,
        88.73,
        -87.33,
        -103.9,
        -104.0,
        0.625,
        -0.625,
        9.0,
        1e6,
        1e30,
        std::f32::consts::PI,
        1.5707964,
    ]
}

/// A deterministic spread over [lo, hi] (no rand crate in the tree).
fn spread(n: usize, lo: f64, hi: f64, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

fn check_f32(isa: Isa, f: MathFn, xs: &[f32]) -> f64 {
    let mut y = xs.to_vec();
    apply_f32_on(isa, f, &mut y);
    let g = oracle(f);
    let mut worst = (0.0, 0.0f32);
    for (&x, &v) in xs.iter().zip(&y) {
        let e = ulp32(v, g(x as f64));
        if e > worst.0 {
            worst = (e, x);
        }
    }
    assert!(
        worst.0 <= f.max_ulp_f32() as f64,
        "{isa:?} {f:?} f32: {} ulp at x = {:e} (got {:e}, want {:e})",
        worst.0,
        worst.1,
        {
            let mut t = [worst.1];
            apply_f32_on(isa, f, &mut t);
            t[0]
        },
        g(worst.1 as f64)
    );
    worst.0
}

fn check_f64(isa: Isa, f: MathFn, xs: &[f64], want: &dyn Fn(usize, f64) -> f64, bound: f64) -> f64 {
    let mut y = xs.to_vec();
    apply_f64_on(isa, f, &mut y);
    let mut worst = (0.0, 0.0);
    for (i, (&x, &v)) in xs.iter().zip(&y).enumerate() {
        let e = ulp64(v, want(i, x));
        if e > worst.0 {
            worst = (e, x);
        }
    }
    assert!(
        worst.0 <= bound,
        "{isa:?} {f:?} f64: {} ulp at x = {:e}",
        worst.0,
        worst.1
    );
    worst.0
}

#[test]
fn f32_sweeps_and_specials_within_bound() {
    let mut xs = sweep_f32(997);
    xs.extend(specials_f32());
    xs.extend(spread(100_000, -20.0, 20.0, 1).into_iter().map(|v| v as f32));
    for isa in isas() {
        for f in MathFn::ALL {
            let e = check_f32(isa, f, &xs);
            eprintln!("{isa:?} {f:?} f32 max {e:.3} ulp");
        }
    }
}

fn mpmath_table() -> Vec<(MathFn, f64, f64)> {
    include_str!("oracle_f64.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut it = l.split_whitespace();
            let f = match it.next().unwrap() {
                "exp" => MathFn::Exp,
                "log" => MathFn::Log,
                "sin" => MathFn::Sin,
                "cos" => MathFn::Cos,
                "tan" => MathFn::Tan,
                "tanh" => MathFn::Tanh,
                "erf" => MathFn::Erf,
                other => panic!("unknown function {other}"),
            };
            let x = f64::from_bits(it.next().unwrap().parse().unwrap());
            let y = f64::from_bits(it.next().unwrap().parse().unwrap());
            (f, x, y)
        })
        .collect()
}

#[test]
fn f64_against_mpmath_within_bound() {
    let table = mpmath_table();
    for isa in isas() {
        for f in MathFn::ALL {
            let rows: Vec<_> = table.iter().filter(|r| r.0 == f).collect();
            assert!(rows.len() > 100);
            let xs: Vec<f64> = rows.iter().map(|r| r.1).collect();
            let e = check_f64(isa, f, &xs, &|i, _| rows[i].2, f.max_ulp_f64() as f64);
            eprintln!("{isa:?} {f:?} f64 vs mpmath max {e:.3} ulp");
        }
    }
}

#[test]
fn f64_sweeps_against_glibc() {
    // every step-th finite positive double, both signs, plus dense ranges
    let step = 0x7ff0_0000_0000_0000u64 / 400_000;
    let mut xs: Vec<f64> = (0..400_000u64).map(|i| f64::from_bits(i * step)).collect();
    let neg: Vec<f64> = xs.iter().map(|x| -x).collect();
    xs.extend(neg);
    xs.extend(spread(200_000, -10.0, 10.0, 2));
    xs.extend(spread(50_000, -800.0, 800.0, 3));
    xs.extend([
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        709.78,
        709.79,
        -745.13,
        -745.14,
        1e6,
        1e300,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::PI,
    ]);
    for isa in isas() {
        for f in MathFn::ALL {
            let g = oracle(f);
            // glibc is itself within 1 ulp of the exact value
            let e = check_f64(isa, f, &xs, &|_, x| g(x), f.max_ulp_f64() as f64 + 1.0);
            eprintln!("{isa:?} {f:?} f64 vs glibc max {e:.3} ulp");
        }
    }
}

#[test]
fn specials_are_ieee() {
    for isa in isas() {
        let mut x = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 100.0, -200.0, 0.0, -0.0];
        apply_f32_on(isa, MathFn::Exp, &mut x);
        assert!(x[0].is_nan());
        assert_eq!(&x[1..], &[f32::INFINITY, 0.0, f32::INFINITY, 0.0, 1.0, 1.0], "{isa:?}");
        let mut x = [0.0f64, -0.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0];
        apply_f64_on(isa, MathFn::Log, &mut x);
        assert_eq!(&x[..2], &[f64::NEG_INFINITY, f64::NEG_INFINITY]);
        assert!(x[2].is_nan() && x[4].is_nan() && x[5].is_nan());
        assert_eq!((x[3], x[6]), (f64::INFINITY, 0.0));
        for f in [MathFn::Tanh, MathFn::Erf] {
            let mut x = [f64::INFINITY, f64::NEG_INFINITY, 50.0, -50.0, -0.0];
            apply_f64_on(isa, f, &mut x);
            assert_eq!(&x[..4], &[1.0, -1.0, 1.0, -1.0], "{isa:?} {f:?}");
            assert!(x[4] == 0.0 && x[4].is_sign_negative(), "{isa:?} {f:?}: f(-0) = -0");
        }
        for f in [MathFn::Sin, MathFn::Cos, MathFn::Tan] {
            let mut x = [f64::INFINITY, f64::NAN, 1e22, -0.0];
            apply_f64_on(isa, f, &mut x);
            assert!(x[0].is_nan() && x[1].is_nan(), "{isa:?} {f:?}");
            assert_eq!(x[2], scalar_fn_f64(f)(1e22), "{isa:?} {f:?}: huge arguments go to libm");
        }
        let mut x = [-0.0f64];
        apply_f64_on(isa, MathFn::Sin, &mut x);
        assert!(x[0] == 0.0 && x[0].is_sign_negative());
    }
}

#[test]
fn every_length_takes_the_tail() {
    for isa in isas() {
        for n in 0..70 {
            let xs: Vec<f32> = (0..n).map(|i| i as f32 * 0.37 - 5.0).collect();
            let mut y = xs.clone();
            apply_f32_on(isa, MathFn::Exp, &mut y);
            for (x, v) in xs.iter().zip(&y) {
                assert!(ulp32(*v, (*x as f64).exp()) <= 2.0, "{isa:?} n={n}");
            }
        }
    }
}

#[test]
fn pow_f32_within_bound_and_specials() {
    let a: Vec<f64> = spread(200_000, 0.0, 50.0, 4);
    let b: Vec<f64> = spread(200_000, -30.0, 30.0, 5);
    let mut a: Vec<f32> = a.into_iter().map(|v| v as f32).collect();
    let mut b: Vec<f32> = b.into_iter().map(|v| v as f32).collect();
    let sp = [
        0.0f32,
        -0.0,
        -2.0,
        -2.0,
        -8.0,
        1.0,
        f32::NAN,
        2.0,
        f32::INFINITY,
        0.5,
        1e-40,
        3.0,
        -1.0,
    ];
    let sq = [
        0.0f32,
        3.0,
        3.0,
        0.5,
        1.0 / 3.0,
        f32::NAN,
        0.0,
        f32::INFINITY,
        -1.0,
        200.0,
        2.0,
        -1e9,
        f32::INFINITY,
    ];
    a.extend(sp);
    b.extend(sq);
    for isa in isas() {
        let mut y = a.clone();
        pow_f32_on(isa, &mut y, &b);
        let mut worst = 0.0f64;
        for i in 0..a.len() {
            let r = (a[i] as f64).powf(b[i] as f64);
            let e = ulp32(y[i], r);
            assert!(
                e <= POW_F32_MAX_ULP as f64,
                "{isa:?} pow({:e}, {:e}) = {:e}, want {r:e}",
                a[i],
                b[i],
                y[i]
            );
            worst = worst.max(e);
        }
        eprintln!("{isa:?} pow f32 max {worst:.3} ulp");
    }
}

#[test]
fn rem_has_the_divisor_sign() {
    // CPython's float % (the oracle: `python3 -c "print(-1.0 % 3.0)"` and so on)
    let a = [-1.0f64, 1.0, 5.5, -5.5, 0.0, -0.0, 1e300, -1e-20, 7.0];
    let b = [3.0f64, -3.0, 2.0, 2.0, 3.0, -3.0, 3.0, 1.0, 0.0];
    let want = [2.0f64, -2.0, 1.5, 0.5, 0.0, -0.0, 0.0, 1.0, f64::NAN];
    let mut y = a;
    rem_f64(&mut y, &b);
    for i in 0..a.len() {
        assert!(
            y[i].to_bits() == want[i].to_bits() || (y[i].is_nan() && want[i].is_nan()),
            "{} % {} = {}",
            a[i],
            b[i],
            y[i]
        );
    }
    let mut y32 = [-1.0f32, 1.0, 5.5];
    rem_f32(&mut y32, &[3.0, -3.0, 2.0]);
    assert_eq!(y32, [2.0, -2.0, 1.5]);
}

/// Throughput of each path on 1M values in blocks of 4096 (the executor's
/// block size): `cargo test --release --lib vmath::tests::throughput -- --ignored --nocapture`.
#[test]
#[ignore]
fn throughput() {
    use std::time::Instant;
    let n = 1 << 20;
    let src: Vec<f64> = spread(n, -3.0, 3.0, 9);
    let pos: Vec<f64> = src.iter().map(|v| v.abs() + 0.01).collect();
    let best = |run: &mut dyn FnMut()| {
        // the best of 15: the machine is shared, the minimum is the least disturbed
        (0..15)
            .map(|_| {
                let t = Instant::now();
                run();
                t.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min)
    };
    for f in MathFn::ALL {
        let s = if f == MathFn::Log { &pos } else { &src };
        let s32: Vec<f32> = s.iter().map(|&v| v as f32).collect();
        let mut line = format!("{f:?}:");
        for isa in isas() {
            let mut y = s32.clone();
            let t32 = best(&mut || {
                y.copy_from_slice(&s32);
                y.chunks_mut(4096).for_each(|c| apply_f32_on(isa, f, c));
            });
            let mut y = s.clone();
            let t64 = best(&mut || {
                y.copy_from_slice(s);
                y.chunks_mut(4096).for_each(|c| apply_f64_on(isa, f, c));
            });
            line += &format!(" {isa:?} f32 {t32:.2} ms, f64 {t64:.2} ms;");
        }
        eprintln!("{line}");
    }
    let a: Vec<f32> = pos.iter().map(|&v| v as f32).collect();
    let b: Vec<f32> = src.iter().map(|&v| v as f32).collect();
    for isa in isas() {
        let mut y = a.clone();
        let t = best(&mut || {
            y.copy_from_slice(&a);
            pow_f32_on(isa, &mut y, &b);
        });
        eprintln!("pow {isa:?} f32 {t:.2} ms");
    }
}
