//! Unit tests of the reference kernels against hand-derived values and naive
//! oracles (nested loops over `View::offset_of`, never the kernels themselves).

use super::*;
use crate::graph::op::{BinaryOp as B, Distribution, ReduceOp as R, ScanOp as S, UnaryOp as U};
use crate::graph::random;

fn cv(shape: &[usize]) -> View {
    View::contiguous(shape)
}

fn run(op: Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> Result<HostData, Diagnostic> {
    eval(&op, dtype, shape, inputs)
}

fn ok(op: Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> HostData {
    match run(op.clone(), dtype, shape, inputs) {
        Ok(d) => d,
        Err(e) => panic!("{op:?} failed: {e}"),
    }
}

fn err_code(op: Op, dtype: DType, shape: &[usize], inputs: &[(&HostData, &View)]) -> &'static str {
    match run(op.clone(), dtype, shape, inputs) {
        Ok(d) => panic!("{op:?} should have failed, gave {d:?}"),
        Err(e) => e.code,
    }
}

fn as_f64(d: &HostData) -> Vec<f64> {
    (0..d.len()).map(|i| d.get_f64(i)).collect()
}

/// Equal up to `tol` (relative), with NaN equal to NaN and zeros' signs ignored.
fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "lengths differ: {got:?} vs {want:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let same = (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * w.abs().max(1.0);
        assert!(same, "element {i}: got {g}, want {w}\n got {got:?}\nwant {want:?}");
    }
}

fn unary(op: U, data: HostData, view: &View) -> HostData {
    let dtype = if matches!(op, U::IsNan | U::Not) {
        DType::Bool
    } else {
        data.dtype()
    };
    ok(Op::Unary(op), dtype, &view.shape.clone(), &[(&data, view)])
}

fn binary(op: B, a: &HostData, b: &HostData) -> Result<HostData, Diagnostic> {
    let n = a.len();
    let dtype = if op.is_comparison() || op.is_logical() {
        DType::Bool
    } else {
        a.dtype()
    };
    run(Op::Binary(op), dtype, &[n], &[(a, &cv(&[n])), (b, &cv(&[n]))])
}

fn bin_ok(op: B, a: &HostData, b: &HostData) -> HostData {
    match binary(op, a, b) {
        Ok(d) => d,
        Err(e) => panic!("{op:?} failed: {e}"),
    }
}

/// Every multi-index of `shape` in row-major order.
fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let mut out = vec![vec![]];
    for &d in shape {
        out = out
            .into_iter()
            .flat_map(|p| (0..d).map(move |i| [p.clone(), vec![i]].concat()))
            .collect();
    }
    out
}

/// The view's elements read one multi-index at a time.
fn read(data: &[f64], view: &View) -> Vec<f64> {
    indices(&view.shape).iter().map(|ix| data[view.offset_of(ix)]).collect()
}

/// Naive reduction: for each kept multi-index, fold every input element that projects onto it.
fn oracle_reduce(data: &[f64], view: &View, axes: &[usize], init: f64, f: fn(f64, f64) -> f64) -> Vec<f64> {
    let kept: Vec<usize> = (0..view.rank()).filter(|k| !axes.contains(k)).collect();
    let out_shape: Vec<usize> = kept.iter().map(|&k| view.shape[k]).collect();
    let all = indices(&view.shape);
    indices(&out_shape)
        .iter()
        .map(|out| {
            all.iter()
                .filter(|ix| kept.iter().zip(out).all(|(&k, &o)| ix[k] == o))
                .fold(init, |acc, ix| f(acc, data[view.offset_of(ix)]))
        })
        .collect()
}

type Fold = fn(f64, f64) -> f64;

fn nan_min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.min(b) }
}

fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() { f64::NAN } else { a.max(b) }
}

// ---------------------------------------------------------------- unary

#[test]
fn float_unary_ops() {
    let x = HostData::F64(vec![0.5, 1.5, 2.5, -0.5, -1.5, -2.7, 0.0, f64::NAN]);
    let v = cv(&[8]);
    let nan = f64::NAN;
    let cases: [(U, [f64; 8]); 6] = [
        (U::Neg, [-0.5, -1.5, -2.5, 0.5, 1.5, 2.7, 0.0, nan]),
        (U::Abs, [0.5, 1.5, 2.5, 0.5, 1.5, 2.7, 0.0, nan]),
        (U::Sign, [1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.0, nan]),
        (U::Floor, [0.0, 1.0, 2.0, -1.0, -2.0, -3.0, 0.0, nan]),
        (U::Ceil, [1.0, 2.0, 3.0, -0.0, -1.0, -2.0, 0.0, nan]),
        // half to even, like np.round
        (U::Round, [0.0, 2.0, 2.0, -0.0, -2.0, -3.0, 0.0, nan]),
    ];
    for (op, want) in cases {
        assert_close(&as_f64(&unary(op, x.clone(), &v)), &want, 0.0);
    }
    assert_eq!(
        unary(U::IsNan, x.clone(), &v),
        HostData::Bool(vec![false, false, false, false, false, false, false, true])
    );
    // np.sign(-0.0) is +0.0
    assert_eq!(
        unary(U::Sign, HostData::F32(vec![-0.0]), &cv(&[1])),
        HostData::F32(vec![0.0])
    );
    let Ok(HostData::F32(s)) = run(
        Op::Unary(U::Sign),
        DType::F32,
        &[1],
        &[(&HostData::F32(vec![-0.0]), &cv(&[1]))],
    ) else {
        panic!("sign failed")
    };
    assert!(s[0].is_sign_positive());
}

#[test]
fn transcendental_ops_in_both_float_widths() {
    let v = cv(&[3]);
    let cases: [(U, [f64; 3], [f64; 3]); 8] = [
        (
            U::Exp,
            [0.0, 1.0, -1.0],
            [1.0, std::f64::consts::E, 1.0 / std::f64::consts::E],
        ),
        (U::Log, [1.0, std::f64::consts::E, 0.0], [0.0, 1.0, f64::NEG_INFINITY]),
        (U::Sqrt, [4.0, 2.0, -1.0], [2.0, std::f64::consts::SQRT_2, f64::NAN]),
        (
            U::Sin,
            [0.0, std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_6],
            [0.0, 1.0, -0.5],
        ),
        (
            U::Cos,
            [0.0, std::f64::consts::PI, std::f64::consts::FRAC_PI_3],
            [1.0, -1.0, 0.5],
        ),
        (
            U::Tan,
            [0.0, std::f64::consts::FRAC_PI_4, -std::f64::consts::FRAC_PI_4],
            [0.0, 1.0, -1.0],
        ),
        // tanh(ln 2) = 3/5
        (U::Tanh, [0.0, std::f64::consts::LN_2, 40.0], [0.0, 0.6, 1.0]),
        // erf(0.5), erf(1) from tables (A&S 7.1)
        (
            U::Erf,
            [0.0, 0.5, -1.0],
            [0.0, 0.520_499_877_813_046_5, -0.842_700_792_949_714_9],
        ),
    ];
    for (op, x, want) in cases {
        let got64 = as_f64(&unary(op, HostData::F64(x.to_vec()), &v));
        assert_close(&got64, &want, 1e-14);
        let got32 = unary(op, HostData::F32(x.iter().map(|&x| x as f32).collect()), &v);
        assert_eq!(got32.dtype(), DType::F32);
        assert_close(&as_f64(&got32), &want, 1e-6);
    }
}

#[test]
fn integer_unary_ops_wrap() {
    let x = HostData::I32(vec![i32::MIN, -3, 0, 7]);
    let v = cv(&[4]);
    assert_eq!(unary(U::Neg, x.clone(), &v), HostData::I32(vec![i32::MIN, 3, 0, -7]));
    assert_eq!(unary(U::Abs, x.clone(), &v), HostData::I32(vec![i32::MIN, 3, 0, 7]));
    assert_eq!(unary(U::Sign, x.clone(), &v), HostData::I32(vec![-1, -1, 0, 1]));
    assert_eq!(unary(U::Square, x.clone(), &v), HostData::I32(vec![0, 9, 0, 49]));
    // rounding and the float predicates of integers never reach a kernel: the
    // builder returns the input or a constant (check::prim::unary_sig)
    for op in [U::Floor, U::Ceil, U::Round, U::Trunc, U::IsNan, U::IsInf] {
        assert_eq!(err_code(Op::Unary(op), DType::I32, &[4], &[(&x, &v)]), "E0499");
    }
    let y = HostData::I64(vec![i64::MIN, -5]);
    assert_eq!(unary(U::Neg, y.clone(), &cv(&[2])), HostData::I64(vec![i64::MIN, 5]));
    for op in [U::Exp, U::Log, U::Sqrt, U::Erf, U::Not] {
        assert_eq!(err_code(Op::Unary(op), DType::I32, &[4], &[(&x, &v)]), "E0499");
    }
}

#[test]
fn bool_unary_ops() {
    let x = HostData::Bool(vec![true, false]);
    let v = cv(&[2]);
    assert_eq!(unary(U::Not, x.clone(), &v), HostData::Bool(vec![false, true]));
    for op in [U::Neg, U::Abs, U::IsNan, U::Floor] {
        assert_eq!(err_code(Op::Unary(op), DType::Bool, &[2], &[(&x, &v)]), "E0499");
    }
    assert_eq!(err_code(Op::Unary(U::Exp), DType::Bool, &[2], &[(&x, &v)]), "E0499");
}

// ---------------------------------------------------------------- binary

#[test]
fn integer_arithmetic_wraps() {
    let a = HostData::I32(vec![i32::MAX, i32::MIN, 6, -7]);
    let b = HostData::I32(vec![1, 1, -4, 3]);
    assert_eq!(
        bin_ok(B::Add, &a, &b),
        HostData::I32(vec![i32::MIN, i32::MIN + 1, 2, -4])
    );
    assert_eq!(
        bin_ok(B::Sub, &a, &b),
        HostData::I32(vec![i32::MAX - 1, i32::MAX, 10, -10])
    );
    assert_eq!(
        bin_ok(B::Mul, &a, &b),
        HostData::I32(vec![i32::MAX, i32::MIN, -24, -21])
    );
    assert_eq!(bin_ok(B::Min, &a, &b), HostData::I32(vec![1, i32::MIN, -4, -7]));
    assert_eq!(bin_ok(B::Max, &a, &b), HostData::I32(vec![i32::MAX, 1, 6, 3]));
    let big = HostData::I64(vec![i64::MAX]);
    assert_eq!(bin_ok(B::Mul, &big, &HostData::I64(vec![2])), HostData::I64(vec![-2]));
    assert_eq!(binary(B::Div, &a, &b).map_err(|e| e.code), Err("E0499"));
    assert_eq!(binary(B::And, &a, &b).map_err(|e| e.code), Err("E0499"));
}

#[test]
fn remainder_takes_the_sign_of_the_divisor() {
    let a = HostData::I64(vec![7, -7, 7, -7, 6, i64::MIN, 0]);
    let b = HostData::I64(vec![3, 3, -3, -3, -3, -1, 5]);
    assert_eq!(bin_ok(B::Rem, &a, &b), HostData::I64(vec![1, 2, -2, -1, 0, 0, 0]));
    let a32 = HostData::I32(vec![-1, 5]);
    let b32 = HostData::I32(vec![4, -2]);
    assert_eq!(bin_ok(B::Rem, &a32, &b32), HostData::I32(vec![3, -1]));
    // np.remainder on floats (values checked against NumPy by hand)
    let x = HostData::F64(vec![5.5, -5.5, 5.5, -0.0, 0.0, 1.0, -1.0, f64::NAN]);
    let y = HostData::F64(vec![-2.0, 2.0, 2.0, 3.0, -3.0, 0.0, f64::INFINITY, 1.0]);
    let HostData::F64(r) = bin_ok(B::Rem, &x, &y) else {
        panic!("dtype")
    };
    assert_close(&r, &[-0.5, 0.5, 1.5, 0.0, 0.0, f64::NAN, f64::INFINITY, f64::NAN], 0.0);
    assert!(
        r[3].is_sign_positive() && r[4].is_sign_negative(),
        "zero takes the divisor's sign: {r:?}"
    );
    let HostData::F32(r32) = bin_ok(B::Rem, &HostData::F32(vec![-7.5]), &HostData::F32(vec![2.0])) else {
        panic!("dtype")
    };
    assert_eq!(r32, vec![0.5]);
}

/// A fixed xorshift64 sequence: reproducible pseudo-random bits for tests.
pub(super) fn xorshift() -> impl FnMut() -> u64 {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// Operand pairs that stress the fast `fmod` path: quotients that round onto
/// an integer, quotients at the edge of the mantissa, subnormals, signed
/// zeros, infinities and NaN, and random bit patterns across exponents.
fn remainder_operands() -> Vec<(f64, f64)> {
    let mut pairs = vec![];
    let mut next = xorshift();
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        3.0,
        0.1,
        -0.7,
        1e-310,
        -5e-324,
        1e300,
        f64::INFINITY,
        f64::NAN,
    ];
    for &a in &specials {
        for &b in &specials {
            pairs.push((a, b));
        }
    }
    for _ in 0..20_000 {
        let b =
            f64::from_bits(next() & 0x3fff_ffff_ffff_ffff | 0x3000_0000_0000_0000) * [1.0, -1.0][(next() % 2) as usize];
        let n = (next() % (1 << 20)) as f64 * [1.0, -1.0][(next() % 2) as usize];
        let ulps = (next() % 5) as i64 - 2;
        // a near n * b, nudged by a few ulps either way: a / b rounds onto n
        let near = n * b;
        pairs.push((f64::from_bits((near.to_bits() as i64 + ulps) as u64), b));
        // a anywhere, b anywhere: wide quotients, some beyond the mantissa
        pairs.push((f64::from_bits(next() & !(0x7ffu64 << 52) | (next() % 0x7ff) << 52), b));
        pairs.push((2f64.powi(52) * b + (next() % 7) as f64, b));
    }
    pairs
}

#[test]
fn float_remainder_and_floor_division_equal_libm_fmod_bit_for_bit() {
    // the oracle: npy_divmod written over Rust's `%` (the exact soft fmod)
    let npy_rem = |a: f64, b: f64| {
        let m = a % b;
        if b == 0.0 {
            m
        } else if m != 0.0 {
            if (b < 0.0) != (m < 0.0) { m + b } else { m }
        } else {
            0.0f64.copysign(b)
        }
    };
    let pairs = remainder_operands();
    let a = HostData::F64(pairs.iter().map(|p| p.0).collect());
    let b = HostData::F64(pairs.iter().map(|p| p.1).collect());
    let HostData::F64(r) = bin_ok(B::Rem, &a, &b) else {
        panic!("dtype")
    };
    for (&(x, y), &got) in pairs.iter().zip(&r) {
        let want = npy_rem(x, y);
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{x:e} % {y:e}: {got:e}, libm gives {want:e}"
        );
    }
    // f32 through the same path, against the f32 soft fmod
    let p32: Vec<(f32, f32)> = pairs.iter().map(|&(x, y)| (x as f32, y as f32)).collect();
    let a = HostData::F32(p32.iter().map(|p| p.0).collect());
    let b = HostData::F32(p32.iter().map(|p| p.1).collect());
    let HostData::F32(r) = bin_ok(B::Rem, &a, &b) else {
        panic!("dtype")
    };
    for (&(x, y), &got) in p32.iter().zip(&r) {
        let m = x % y;
        let want = if y == 0.0 {
            m
        } else if m != 0.0 {
            if (y < 0.0) != (m < 0.0) { m + y } else { m }
        } else {
            0.0f32.copysign(y)
        };
        assert!(
            got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
            "{x:e} % {y:e}: {got:e}, libm gives {want:e}"
        );
    }
}

#[test]
fn integer_modulo_by_zero_is_an_error() {
    let a = HostData::I32(vec![1, 2]);
    let b = HostData::I32(vec![1, 0]);
    let e = binary(B::Rem, &a, &b).expect_err("modulo by zero");
    assert_eq!(e.code, "E0400");
    assert_eq!(e.message, "integer modulo by zero");
    assert!(e.hint.is_some());
    // the same through the parallel path
    let n = 40_000;
    let mut divisors = vec![3i64; n];
    divisors[n - 7] = 0;
    let e = binary(B::Rem, &HostData::I64(vec![5; n]), &HostData::I64(divisors)).expect_err("modulo by zero");
    assert_eq!(e.code, "E0400");
}

#[test]
fn integer_power_by_squaring() {
    let a = HostData::I64(vec![3, -2, 0, 5, 1, -1, 2]);
    let b = HostData::I64(vec![4, 3, 0, 1, 1000, 7, 63]);
    assert_eq!(
        bin_ok(B::Pow, &a, &b),
        HostData::I64(vec![81, -8, 1, 5, 1, -1, i64::MIN])
    );
    // 2**31 wraps in i32, 3**21 = 10460353203 wraps to 10460353203 - 2 * 2**32
    let a32 = HostData::I32(vec![2, 3]);
    let b32 = HostData::I32(vec![31, 21]);
    assert_eq!(
        bin_ok(B::Pow, &a32, &b32),
        HostData::I32(vec![i32::MIN, (10_460_353_203i64 - (1i64 << 33)) as i32])
    );
    let e = binary(B::Pow, &HostData::I64(vec![2, 2]), &HostData::I64(vec![1, -1])).expect_err("negative power");
    assert_eq!(e.code, "E0401");
    assert_eq!(e.message, "integers cannot be raised to negative integer powers");
    assert!(e.hint.is_some_and(|h| h.contains("float")));
}

#[test]
fn float_binary_ops_and_nan() {
    let nan = f64::NAN;
    let a = HostData::F64(vec![1.0, nan, 2.0, -1.0, 9.0]);
    let b = HostData::F64(vec![2.0, 1.0, nan, -1.0, 0.5]);
    assert_close(&as_f64(&bin_ok(B::Add, &a, &b)), &[3.0, nan, nan, -2.0, 9.5], 0.0);
    assert_close(&as_f64(&bin_ok(B::Div, &a, &b)), &[0.5, nan, nan, 1.0, 18.0], 0.0);
    assert_close(&as_f64(&bin_ok(B::Pow, &a, &b)), &[1.0, nan, nan, -1.0, 3.0], 1e-15);
    assert_close(&as_f64(&bin_ok(B::Min, &a, &b)), &[1.0, nan, nan, -1.0, 0.5], 0.0);
    assert_close(&as_f64(&bin_ok(B::Max, &a, &b)), &[2.0, nan, nan, -1.0, 9.0], 0.0);
    let at = bin_ok(
        B::Atan2,
        &HostData::F32(vec![1.0, 0.0, -1.0]),
        &HostData::F32(vec![-1.0, -1.0, 0.0]),
    );
    let pi = std::f64::consts::PI;
    assert_close(&as_f64(&at), &[0.75 * pi, pi, -0.5 * pi], 1e-7);
    // comparisons with NaN are false except `!=`
    let t = |v: [bool; 5]| HostData::Bool(v.to_vec());
    assert_eq!(bin_ok(B::Eq, &a, &b), t([false, false, false, true, false]));
    assert_eq!(bin_ok(B::Ne, &a, &b), t([true, true, true, false, true]));
    assert_eq!(bin_ok(B::Lt, &a, &b), t([true, false, false, false, false]));
    assert_eq!(bin_ok(B::Le, &a, &b), t([true, false, false, true, false]));
    assert_eq!(bin_ok(B::Gt, &a, &b), t([false, false, false, false, true]));
    assert_eq!(bin_ok(B::Ge, &a, &b), t([false, false, false, true, true]));
}

#[test]
fn comparisons_and_logic_on_ints_and_bools() {
    let a = HostData::I32(vec![1, 2, 3]);
    let b = HostData::I32(vec![2, 2, 2]);
    assert_eq!(bin_ok(B::Lt, &a, &b), HostData::Bool(vec![true, false, false]));
    assert_eq!(bin_ok(B::Ge, &a, &b), HostData::Bool(vec![false, true, true]));
    let p = HostData::Bool(vec![false, false, true, true]);
    let q = HostData::Bool(vec![false, true, false, true]);
    assert_eq!(bin_ok(B::And, &p, &q), HostData::Bool(vec![false, false, false, true]));
    assert_eq!(bin_ok(B::Or, &p, &q), HostData::Bool(vec![false, true, true, true]));
    assert_eq!(bin_ok(B::Min, &p, &q), HostData::Bool(vec![false, false, false, true]));
    assert_eq!(bin_ok(B::Max, &p, &q), HostData::Bool(vec![false, true, true, true]));
    assert_eq!(bin_ok(B::Lt, &p, &q), HostData::Bool(vec![false, true, false, false]));
    assert_eq!(bin_ok(B::Ne, &p, &q), HostData::Bool(vec![false, true, true, false]));
    assert_eq!(binary(B::Sub, &p, &q).map_err(|e| e.code), Err("E0499"));
    assert_eq!(
        binary(B::Add, &a, &HostData::I64(vec![1, 2, 3])).map_err(|e| e.code),
        Err("E0499")
    );
}

// ---------------------------------------------------------------- views

#[test]
fn broadcast_and_reversed_views() {
    // outer sum: column [10, 20] (stride 0 along columns) + row [0, 1, 2] (stride 0 along rows)
    let row = HostData::I64(vec![0, 1, 2]);
    let col = HostData::I64(vec![10, 20]);
    let vr = cv(&[3]).broadcast_to(&[2, 3]);
    let vc = cv(&[2, 1]).broadcast_to(&[2, 3]);
    assert_eq!(vc.strides[..], [1, 0]);
    let out = ok(Op::Binary(B::Add), DType::I64, &[2, 3], &[(&col, &vc), (&row, &vr)]);
    assert_eq!(out, HostData::I64(vec![10, 11, 12, 20, 21, 22]));
    // reversed, strided slice of 0..10: indices 9, 6, 3, 0
    let x = HostData::F32((0..10).map(|i| i as f32).collect());
    let v = cv(&[10]).slice_axis(0, 9, 4, -3);
    assert_eq!(
        unary(U::Neg, x.clone(), &v),
        HostData::F32(vec![-9.0, -6.0, -3.0, -0.0])
    );
    // transposed, column-sliced 3x4: rows 0..3, columns 1, 3
    let m = HostData::I32((0..12).collect());
    let v = cv(&[3, 4]).slice_axis(1, 1, 2, 2).permute(&[1, 0]);
    assert_eq!(
        ok(Op::Copy, DType::I32, &[2, 3], &[(&m, &v)]),
        HostData::I32(vec![1, 5, 9, 3, 7, 11])
    );
    // a scalar broadcast to every element, through `where`
    let cond = HostData::Bool(vec![true, false, true, false]);
    let a = HostData::F64(vec![1.0, 2.0, 3.0, 4.0]);
    let zero = HostData::F64(vec![-1.0]);
    let vz = cv(&[]).broadcast_to(&[4]);
    let out = ok(
        Op::Where,
        DType::F64,
        &[4],
        &[(&cond, &cv(&[4])), (&a, &cv(&[4])), (&zero, &vz)],
    );
    assert_eq!(out, HostData::F64(vec![1.0, -1.0, 3.0, -1.0]));
}

#[test]
fn rank_zero_and_empty_inputs() {
    let s = HostData::F64(vec![0.0, 4.0]);
    let v0 = View {
        shape: smallvec::smallvec![],
        strides: smallvec::smallvec![],
        offset: 1,
    };
    assert_eq!(
        ok(Op::Unary(U::Sqrt), DType::F64, &[], &[(&s, &v0)]),
        HostData::F64(vec![2.0])
    );
    assert_eq!(
        ok(
            Op::Reduce {
                op: R::Sum,
                axes: vec![]
            },
            DType::F64,
            &[],
            &[(&s, &v0)]
        ),
        HostData::F64(vec![4.0])
    );
    let e = HostData::I64(vec![]);
    let ve = cv(&[0, 3]);
    assert_eq!(
        ok(Op::Unary(U::Neg), DType::I64, &[0, 3], &[(&e, &ve)]),
        HostData::I64(vec![])
    );
    assert_eq!(
        ok(Op::Binary(B::Lt), DType::Bool, &[0, 3], &[(&e, &ve), (&e, &ve)]),
        HostData::Bool(vec![])
    );
    assert_eq!(ok(Op::Cast, DType::F32, &[0, 3], &[(&e, &ve)]), HostData::F32(vec![]));
    assert_eq!(gather(&e, &ve), HostData::I64(vec![]));
}

#[test]
fn bad_inputs_are_internal_errors() {
    let x = HostData::F32(vec![1.0, 2.0]);
    let outside = View {
        shape: smallvec::smallvec![3],
        strides: smallvec::smallvec![1],
        offset: 0,
    };
    assert_eq!(err_code(Op::Copy, DType::F32, &[3], &[(&x, &outside)]), "E0499");
    let backwards = View {
        shape: smallvec::smallvec![2],
        strides: smallvec::smallvec![-1],
        offset: 0,
    };
    assert_eq!(err_code(Op::Copy, DType::F32, &[2], &[(&x, &backwards)]), "E0499");
    assert_eq!(err_code(Op::Copy, DType::F32, &[1], &[(&x, &cv(&[2]))]), "E0499");
    assert_eq!(err_code(Op::Unary(U::Exp), DType::F32, &[2], &[]), "E0499");
    assert_eq!(err_code(Op::Buffer, DType::F32, &[2], &[]), "E0499");
}

#[test]
fn casts_follow_numpy() {
    let f = HostData::F32(vec![-2.7, 2.7, -0.5, f32::NAN, 1e20, 0.0]);
    let v = cv(&[6]);
    assert_eq!(
        ok(Op::Cast, DType::I32, &[6], &[(&f, &v)]),
        HostData::I32(vec![-2, 2, 0, 0, i32::MAX, 0])
    );
    assert_eq!(
        ok(Op::Cast, DType::Bool, &[6], &[(&f, &v)]),
        HostData::Bool(vec![true, true, true, true, true, false])
    );
    let big = HostData::I64(vec![(1i64 << 32) + 5, -1, 1 << 53]);
    let v3 = cv(&[3]);
    assert_eq!(
        ok(Op::Cast, DType::I32, &[3], &[(&big, &v3)]),
        HostData::I32(vec![5, -1, 0])
    );
    assert_eq!(
        ok(Op::Cast, DType::F64, &[3], &[(&big, &v3)]),
        HostData::F64(vec![4_294_967_301.0, -1.0, 9_007_199_254_740_992.0])
    );
    let b = HostData::Bool(vec![true, false]);
    assert_eq!(
        ok(Op::Cast, DType::F64, &[2], &[(&b, &cv(&[2]))]),
        HostData::F64(vec![1.0, 0.0])
    );
    assert_eq!(
        ok(Op::Cast, DType::I64, &[2], &[(&b, &cv(&[2]))]),
        HostData::I64(vec![1, 0])
    );
    let i = HostData::I32(vec![0, -3]);
    assert_eq!(
        ok(Op::Cast, DType::Bool, &[2], &[(&i, &cv(&[2]))]),
        HostData::Bool(vec![false, true])
    );
    let d = HostData::F64(vec![0.1, 16_777_217.0]);
    assert_eq!(
        ok(Op::Cast, DType::F32, &[2], &[(&d, &cv(&[2]))]),
        HostData::F32(vec![0.1f32, 16_777_216.0])
    );
}

#[test]
fn large_elementwise_matches_sequential_oracle() {
    // 300 x 200 buffer, read transposed and reversed along one axis: > 32768 elements
    let (r, c) = (300usize, 200usize);
    let data: Vec<f64> = (0..r * c).map(|i| ((i * 37) % 1001) as f64 - 500.0).collect();
    let other: Vec<f64> = (0..c).map(|i| i as f64 * 0.5 + 1.0).collect();
    let va = cv(&[r, c]).permute(&[1, 0]).slice_axis(1, r - 1, r, -1);
    let vb = cv(&[c, 1]).broadcast_to(&[c, r]);
    let out = ok(
        Op::Binary(B::Mul),
        DType::F64,
        &[c, r],
        &[
            (&HostData::F64(data.clone()), &va),
            (&HostData::F64(other.clone()), &vb),
        ],
    );
    let want: Vec<f64> = read(&data, &va)
        .iter()
        .zip(read(&other, &vb))
        .map(|(x, y)| x * y)
        .collect();
    assert_eq!(as_f64(&out), want);
    let sq = ok(
        Op::Unary(U::Abs),
        DType::F64,
        &[c, r],
        &[(&HostData::F64(data.clone()), &va)],
    );
    assert_eq!(
        as_f64(&sq),
        read(&data, &va).iter().map(|x| x.abs()).collect::<Vec<_>>()
    );
}

// ---------------------------------------------------------------- reductions

/// A rank-3 view with a permutation and a reversed axis over a 24-element buffer.
fn rank3() -> (Vec<f64>, View) {
    let data: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    // buffer (4, 3, 2) -> view (3, 2, 4) with the middle (old last) axis reversed
    let v = cv(&[4, 3, 2]).permute(&[1, 2, 0]).slice_axis(1, 1, 2, -1);
    (data, v)
}

#[test]
fn reductions_over_every_axis_subset_match_nested_loops() {
    let (data, v) = rank3();
    let subsets: Vec<Vec<usize>> = (0..8u32)
        .map(|m| (0..3).filter(|k| m & (1 << k) != 0).collect())
        .collect();
    for axes in &subsets {
        let out_shape: Vec<usize> = (0..3).filter(|k| !axes.contains(k)).map(|k| v.shape[k]).collect();
        for dtype in [DType::F64, DType::F32, DType::I64, DType::I32] {
            let buf = elementwise::cast(dtype, &HostData::F64(data.clone()), &cv(&[24]));
            let cases: [(R, f64, Fold); 4] = [
                (R::Sum, 0.0, |a, b| a + b),
                (R::Prod, 1.0, |a, b| a * b),
                (R::Min, f64::INFINITY, nan_min),
                (R::Max, f64::NEG_INFINITY, nan_max),
            ];
            for (op, init, f) in cases {
                let got = ok(Op::Reduce { op, axes: axes.clone() }, dtype, &out_shape, &[(&buf, &v)]);
                let want = oracle_reduce(&data, &v, axes, init, f);
                assert_close(&as_f64(&got), &want, 1e-6);
            }
            let nonzero: fn(f64, f64) -> f64 = |a, b| if b != 0.0 { 1.0 } else { a };
            let allnz: fn(f64, f64) -> f64 = |a, b| if b == 0.0 { 0.0 } else { a };
            let any = ok(
                Op::Reduce {
                    op: R::Any,
                    axes: axes.clone(),
                },
                DType::Bool,
                &out_shape,
                &[(&buf, &v)],
            );
            assert_close(&as_f64(&any), &oracle_reduce(&data, &v, axes, 0.0, nonzero), 0.0);
            let all = ok(
                Op::Reduce {
                    op: R::All,
                    axes: axes.clone(),
                },
                DType::Bool,
                &out_shape,
                &[(&buf, &v)],
            );
            assert_close(&as_f64(&all), &oracle_reduce(&data, &v, axes, 1.0, allnz), 0.0);
        }
    }
}

#[test]
fn bool_reductions_are_logic() {
    let b = HostData::Bool(vec![true, false, true, true, true, true]);
    let v = cv(&[2, 3]);
    let any = ok(
        Op::Reduce {
            op: R::Any,
            axes: vec![0],
        },
        DType::Bool,
        &[3],
        &[(&b, &v)],
    );
    assert_eq!(any, HostData::Bool(vec![true, true, true]));
    let all = ok(
        Op::Reduce {
            op: R::All,
            axes: vec![1],
        },
        DType::Bool,
        &[2],
        &[(&b, &v)],
    );
    assert_eq!(all, HostData::Bool(vec![false, true]));
    let am = ok(
        Op::Reduce {
            op: R::ArgMin,
            axes: vec![1],
        },
        DType::I64,
        &[2],
        &[(&b, &v)],
    );
    assert_eq!(am, HostData::I64(vec![1, 0]));
}

#[test]
fn argmin_argmax_first_occurrence_and_nan() {
    let v = cv(&[5]);
    let arg = |op, x: HostData| ok(Op::Reduce { op, axes: vec![0] }, DType::I64, &[], &[(&x, &v)]);
    assert_eq!(
        arg(R::ArgMax, HostData::I32(vec![1, 3, 3, 2, 3])),
        HostData::I64(vec![1])
    );
    assert_eq!(
        arg(R::ArgMin, HostData::I64(vec![2, 1, 1, 5, 1])),
        HostData::I64(vec![1])
    );
    let nan = f64::NAN;
    assert_eq!(
        arg(R::ArgMax, HostData::F64(vec![1.0, nan, 9.0, nan, 0.0])),
        HostData::I64(vec![1])
    );
    assert_eq!(
        arg(R::ArgMin, HostData::F32(vec![1.0, -5.0, f32::NAN, -9.0, f32::NAN])),
        HostData::I64(vec![2])
    );
    // along the middle axis of the rank-3 view
    let (data, v3) = rank3();
    let got = ok(
        Op::Reduce {
            op: R::ArgMax,
            axes: vec![1],
        },
        DType::I64,
        &[3, 4],
        &[(&HostData::F64(data.clone()), &v3)],
    );
    let want: Vec<f64> = indices(&[3, 4])
        .iter()
        .map(|o| {
            let col: Vec<f64> = (0..2).map(|j| data[v3.offset_of(&[o[0], j, o[1]])]).collect();
            if col[1] > col[0] { 1.0 } else { 0.0 }
        })
        .collect();
    assert_eq!(as_f64(&got), want);
    // min/max propagate NaN
    let x = HostData::F64(vec![3.0, nan, -1.0, 2.0]);
    let vm = cv(&[2, 2]);
    let mn = ok(
        Op::Reduce {
            op: R::Min,
            axes: vec![1],
        },
        DType::F64,
        &[2],
        &[(&x, &vm)],
    );
    assert_close(&as_f64(&mn), &[nan, -1.0], 0.0);
    let mx = ok(
        Op::Reduce {
            op: R::Max,
            axes: vec![0],
        },
        DType::F64,
        &[2],
        &[(&x, &vm)],
    );
    assert_close(&as_f64(&mx), &[3.0, nan], 0.0);
}

#[test]
fn empty_reductions() {
    let e = HostData::F32(vec![]);
    let v = cv(&[2, 0]);
    let red = |op, dtype| ok(Op::Reduce { op, axes: vec![1] }, dtype, &[2], &[(&e, &v)]);
    assert_eq!(red(R::Sum, DType::F32), HostData::F32(vec![0.0, 0.0]));
    assert_eq!(red(R::Prod, DType::F32), HostData::F32(vec![1.0, 1.0]));
    assert_eq!(red(R::Any, DType::Bool), HostData::Bool(vec![false, false]));
    assert_eq!(red(R::All, DType::Bool), HostData::Bool(vec![true, true]));
    // reducing the non-empty axis gives an empty result
    assert_eq!(
        ok(
            Op::Reduce {
                op: R::Max,
                axes: vec![0]
            },
            DType::F32,
            &[0],
            &[(&e, &v)]
        ),
        HostData::F32(vec![])
    );
    for (op, name) in [
        (R::Min, "min"),
        (R::Max, "max"),
        (R::ArgMin, "argmin"),
        (R::ArgMax, "argmax"),
    ] {
        let dtype = if matches!(op, R::ArgMin | R::ArgMax) {
            DType::I64
        } else {
            DType::F32
        };
        let err = run(Op::Reduce { op, axes: vec![1] }, dtype, &[2], &[(&e, &v)]).expect_err("no identity");
        assert_eq!(err.code, "E0402");
        assert_eq!(
            err.message,
            format!("zero-size array to reduction operation {name}, which has no identity")
        );
    }
    let full = ok(
        Op::Reduce {
            op: R::Sum,
            axes: vec![0, 1],
        },
        DType::F32,
        &[],
        &[(&e, &v)],
    );
    assert_eq!(full, HostData::F32(vec![0.0]));
    // reducing no axes copies
    let x = HostData::I32(vec![1, 2, 3, 4, 5, 6]);
    let t = cv(&[2, 3]).permute(&[1, 0]);
    let copy = ok(
        Op::Reduce {
            op: R::Prod,
            axes: vec![],
        },
        DType::I32,
        &[3, 2],
        &[(&x, &t)],
    );
    assert_eq!(copy, HostData::I32(vec![1, 4, 2, 5, 3, 6]));
}

#[test]
fn f32_sums_accumulate_in_f64() {
    // in f32, 1e8 + 1 == 1e8; in f64 the ones survive
    let x = HostData::F32(vec![1e8, 1.0, -1e8, 1.0]);
    let got = ok(
        Op::Reduce {
            op: R::Sum,
            axes: vec![0],
        },
        DType::F32,
        &[],
        &[(&x, &cv(&[4]))],
    );
    assert_eq!(got, HostData::F32(vec![2.0]));
    let cs = ok(Op::Scan { op: S::Sum, axis: 0 }, DType::F32, &[4], &[(&x, &cv(&[4]))]);
    assert_eq!(cs, HostData::F32(vec![1e8, 1e8, 1.0, 2.0]));
}

#[test]
fn large_reductions_match_oracles() {
    // a full reduction over 100_000 elements (parallel chunks of the reduced range)
    let n = 100_000usize;
    let ints = HostData::I64((0..n as i64).collect());
    let s = ok(
        Op::Reduce {
            op: R::Sum,
            axes: vec![0],
        },
        DType::I64,
        &[],
        &[(&ints, &cv(&[n]))],
    );
    assert_eq!(s, HostData::I64(vec![(n as i64 - 1) * n as i64 / 2]));
    let floats: Vec<f64> = (0..n).map(|i| ((i * 7919) % 1000) as f64 * 0.25).collect();
    let fs = ok(
        Op::Reduce {
            op: R::Sum,
            axes: vec![0],
        },
        DType::F64,
        &[],
        &[(&HostData::F64(floats.clone()), &cv(&[n]))],
    );
    assert_close(&as_f64(&fs), &[floats.iter().sum()], 1e-12);
    // argmax: the maximum first appears in a later chunk, then again later
    let mut a = vec![0.0f32; n];
    a[70_001] = 5.0;
    a[99_999] = 5.0;
    a[3] = 4.0;
    let am = ok(
        Op::Reduce {
            op: R::ArgMax,
            axes: vec![0],
        },
        DType::I64,
        &[],
        &[(&HostData::F32(a.clone()), &cv(&[n]))],
    );
    assert_eq!(am, HostData::I64(vec![70_001]));
    a[50_000] = f32::NAN;
    a[60_000] = f32::NAN;
    let am = ok(
        Op::Reduce {
            op: R::ArgMin,
            axes: vec![0],
        },
        DType::I64,
        &[],
        &[(&HostData::F32(a), &cv(&[n]))],
    );
    assert_eq!(am, HostData::I64(vec![50_000]));
    // many outputs: reduce axis 0 of a transposed 300 x 200 view (parallel over outputs)
    let (r, c) = (300usize, 200usize);
    let data: Vec<f64> = (0..r * c).map(|i| ((i * 31) % 97) as f64 - 48.0).collect();
    let v = cv(&[r, c]).permute(&[1, 0]);
    let got = ok(
        Op::Reduce {
            op: R::Max,
            axes: vec![0],
        },
        DType::F64,
        &[r],
        &[(&HostData::F64(data.clone()), &v)],
    );
    let want: Vec<f64> = (0..r)
        .map(|i| (0..c).map(|j| data[i * c + j]).fold(f64::NEG_INFINITY, f64::max))
        .collect();
    assert_eq!(as_f64(&got), want);
    let got = ok(
        Op::Reduce {
            op: R::Sum,
            axes: vec![1],
        },
        DType::F64,
        &[c],
        &[(&HostData::F64(data.clone()), &v)],
    );
    let want: Vec<f64> = (0..c).map(|j| (0..r).map(|i| data[i * c + j]).sum()).collect();
    assert_close(&as_f64(&got), &want, 1e-12);
}

// ---------------------------------------------------------------- scans

#[test]
fn scans_along_each_axis() {
    let x = HostData::I64(vec![1, 2, 3, 4, 5, 6]);
    let v = cv(&[2, 3]);
    let scan = |op, axis, x: &HostData, v: &View| ok(Op::Scan { op, axis }, x.dtype(), &v.shape.clone(), &[(x, v)]);
    assert_eq!(scan(S::Sum, 1, &x, &v), HostData::I64(vec![1, 3, 6, 4, 9, 15]));
    assert_eq!(scan(S::Sum, 0, &x, &v), HostData::I64(vec![1, 2, 3, 5, 7, 9]));
    assert_eq!(scan(S::Prod, 1, &x, &v), HostData::I64(vec![1, 2, 6, 4, 20, 120]));
    // on the transposed view (3, 2): [[1, 4], [2, 5], [3, 6]]
    let t = v.permute(&[1, 0]);
    assert_eq!(scan(S::Sum, 0, &x, &t), HostData::I64(vec![1, 4, 3, 9, 6, 15]));
    assert_eq!(scan(S::Max, 1, &x, &t), HostData::I64(vec![1, 4, 2, 5, 3, 6]));
    let nan = f64::NAN;
    let f = HostData::F64(vec![3.0, 1.0, nan, 0.0, 5.0, 2.0, -1.0, 7.0]);
    let vf = cv(&[8]);
    assert_close(
        &as_f64(&scan(S::Min, 0, &f, &vf)),
        &[3.0, 1.0, nan, nan, nan, nan, nan, nan],
        0.0,
    );
    let r = cv(&[8]).slice_axis(0, 7, 5, -1);
    assert_close(&as_f64(&scan(S::Max, 0, &f, &r)), &[7.0, 7.0, 7.0, 7.0, 7.0], 0.0);
    assert_close(&as_f64(&scan(S::Min, 0, &f, &r)), &[7.0, -1.0, -1.0, -1.0, -1.0], 0.0);
    let b = HostData::Bool(vec![false, true, false]);
    assert_eq!(scan(S::Max, 0, &b, &cv(&[3])), HostData::Bool(vec![false, true, true]));
    assert_eq!(
        scan(S::Sum, 0, &HostData::I32(vec![]), &cv(&[0, 3])),
        HostData::I32(vec![])
    );
    assert_eq!(
        scan(S::Sum, 1, &HostData::I32(vec![]), &cv(&[2, 0])),
        HostData::I32(vec![])
    );
}

#[test]
fn large_scan_matches_oracle() {
    let (r, c) = (250usize, 200usize);
    let data: Vec<f64> = (0..r * c).map(|i| ((i * 13) % 17) as f64 - 8.0).collect();
    let v = cv(&[r, c]).permute(&[1, 0]); // (c, r); scan along axis 0 (length c)
    let got = ok(
        Op::Scan { op: S::Sum, axis: 0 },
        DType::F64,
        &[c, r],
        &[(&HostData::F64(data.clone()), &v)],
    );
    let mut want = vec![0.0; c * r];
    for j in 0..r {
        let mut acc = 0.0;
        for i in 0..c {
            acc += data[j * c + i];
            want[i * r + j] = acc;
        }
    }
    assert_eq!(as_f64(&got), want);
}

// ---------------------------------------------------------------- matmul

fn naive_matmul(a: &[f64], va: &View, b: &[f64], vb: &View) -> Vec<f64> {
    let (m, k, n) = (va.shape[0], va.shape[1], vb.shape[1]);
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[va.offset_of(&[i, p])] * b[vb.offset_of(&[p, j])];
            }
        }
    }
    c
}

#[test]
fn matmul_of_strided_views_matches_triple_loop() {
    for (m, k, n) in [(3, 4, 2), (1, 1, 1), (17, 33, 9), (200, 150, 160)] {
        // A is the transpose of a (k, m) buffer; B takes every other column of a (k, 2n) buffer, reversed
        let a: Vec<f64> = (0..k * m).map(|i| ((i * 5) % 13) as f64 - 6.0).collect();
        let b: Vec<f64> = (0..k * 2 * n).map(|i| ((i * 3) % 7) as f64 - 3.0).collect();
        let va = cv(&[k, m]).permute(&[1, 0]);
        let vb = cv(&[k, 2 * n]).slice_axis(1, 2 * n - 1, n, -2);
        let want = naive_matmul(&a, &va, &b, &vb);
        let got = ok(
            Op::MatMul,
            DType::F64,
            &[m, n],
            &[(&HostData::F64(a.clone()), &va), (&HostData::F64(b.clone()), &vb)],
        );
        assert_close(&as_f64(&got), &want, 1e-12);
        let a32 = HostData::F32(a.iter().map(|&x| x as f32).collect());
        let b32 = HostData::F32(b.iter().map(|&x| x as f32).collect());
        let got = ok(Op::MatMul, DType::F32, &[m, n], &[(&a32, &va), (&b32, &vb)]);
        assert_close(&as_f64(&got), &want, 1e-5);
        let ai = HostData::I32(a.iter().map(|&x| x as i32).collect());
        let bi = HostData::I32(b.iter().map(|&x| x as i32).collect());
        let got = ok(Op::MatMul, DType::I32, &[m, n], &[(&ai, &va), (&bi, &vb)]);
        assert_eq!(as_f64(&got), want);
    }
}

#[test]
fn matmul_edge_cases() {
    // broadcast (stride-0) operand: every row of A is [1, 2]
    let a = HostData::F32(vec![1.0, 2.0]);
    let va = cv(&[2]).broadcast_to(&[3, 2]);
    let b = HostData::F32(vec![1.0, 10.0, 100.0, 1000.0]);
    let got = ok(Op::MatMul, DType::F32, &[3, 2], &[(&a, &va), (&b, &cv(&[2, 2]))]);
    assert_eq!(got, HostData::F32(vec![201.0, 2010.0, 201.0, 2010.0, 201.0, 2010.0]));
    // k = 0 gives zeros; m = 0 gives nothing
    let e = HostData::F64(vec![]);
    let got = ok(
        Op::MatMul,
        DType::F64,
        &[2, 3],
        &[(&e, &cv(&[2, 0])), (&e, &cv(&[0, 3]))],
    );
    assert_eq!(got, HostData::F64(vec![0.0; 6]));
    let got = ok(
        Op::MatMul,
        DType::I64,
        &[0, 3],
        &[
            (&HostData::I64(vec![]), &cv(&[0, 2])),
            (&HostData::I64(vec![0; 6]), &cv(&[2, 3])),
        ],
    );
    assert_eq!(got, HostData::I64(vec![]));
    // ints wrap; bools are or-of-ands
    let big = HostData::I64(vec![i64::MAX, 2]);
    let got = ok(
        Op::MatMul,
        DType::I64,
        &[1, 1],
        &[(&big, &cv(&[1, 2])), (&HostData::I64(vec![2, 1]), &cv(&[2, 1]))],
    );
    assert_eq!(got, HostData::I64(vec![0]));
    let p = HostData::Bool(vec![true, false, false, false]);
    let q = HostData::Bool(vec![false, true, true, true]);
    let got = ok(
        Op::MatMul,
        DType::Bool,
        &[2, 2],
        &[(&p, &cv(&[2, 2])), (&q, &cv(&[2, 2]))],
    );
    assert_eq!(got, HostData::Bool(vec![false, true, false, false]));
    assert_eq!(
        err_code(Op::MatMul, DType::F32, &[3, 2], &[(&a, &va), (&b, &cv(&[4, 1]))]),
        "E0499"
    );
}

// ---------------------------------------------------------------- structural

#[test]
fn concat_along_each_axis() {
    let a = HostData::I32(vec![1, 2, 3, 4]); // [[1, 2], [3, 4]]
    let b = HostData::I32(vec![5, 6, 7, 8, 9, 10]); // [[5, 6, 7], [8, 9, 10]]
    let got = ok(
        Op::Concat { axis: 1 },
        DType::I32,
        &[2, 5],
        &[(&a, &cv(&[2, 2])), (&b, &cv(&[2, 3]))],
    );
    assert_eq!(got, HostData::I32(vec![1, 2, 5, 6, 7, 3, 4, 8, 9, 10]));
    // axis 0, with the first input transposed and the second a row of b
    let vt = cv(&[2, 2]).permute(&[1, 0]);
    let row = cv(&[2, 3]).select_axis(0, 1).slice_axis(0, 0, 2, 1).insert_axis(0);
    assert_eq!(row.shape[..], [1, 2]);
    let got = ok(Op::Concat { axis: 0 }, DType::I32, &[3, 2], &[(&a, &vt), (&b, &row)]);
    assert_eq!(got, HostData::I32(vec![1, 3, 2, 4, 8, 9]));
    let e = HostData::I32(vec![]);
    let got = ok(
        Op::Concat { axis: 0 },
        DType::I32,
        &[2, 2],
        &[(&e, &cv(&[0, 2])), (&a, &cv(&[2, 2]))],
    );
    assert_eq!(got, a);
    assert_eq!(
        err_code(
            Op::Concat { axis: 0 },
            DType::I32,
            &[4, 2],
            &[(&a, &cv(&[2, 2])), (&b, &cv(&[2, 3]))]
        ),
        "E0499"
    );
}

#[test]
fn arange_values() {
    let f = ok(Op::Arange { start: 0.5, step: 0.25 }, DType::F32, &[4], &[]);
    assert_eq!(f, HostData::F32(vec![0.5, 0.75, 1.0, 1.25]));
    let i = ok(Op::Arange { start: -3.0, step: 2.0 }, DType::I64, &[4], &[]);
    assert_eq!(i, HostData::I64(vec![-3, -1, 1, 3]));
    // non-integral steps are computed in f64 and truncated toward zero
    let t = ok(Op::Arange { start: -1.0, step: 0.5 }, DType::I32, &[5], &[]);
    assert_eq!(t, HostData::I32(vec![-1, 0, 0, 0, 1]));
    // exact in i64 beyond f64's 53 bits
    let big = ok(
        Op::Arange {
            start: 9_007_199_254_740_992.0,
            step: 1.0,
        },
        DType::I64,
        &[2],
        &[],
    );
    assert_eq!(big, HostData::I64(vec![9_007_199_254_740_992, 9_007_199_254_740_993]));
    let large = ok(Op::Arange { start: 1.0, step: 3.0 }, DType::F64, &[50_000], &[]);
    assert_eq!(
        as_f64(&large),
        (0..50_000).map(|i| 1.0 + 3.0 * i as f64).collect::<Vec<_>>()
    );
    assert_eq!(
        ok(Op::Arange { start: 0.0, step: 1.0 }, DType::F64, &[0], &[]),
        HostData::F64(vec![])
    );
}

#[test]
fn random_is_a_pure_function_of_the_index() {
    let key = random::key(42, 3);
    let n = 40_000;
    let HostData::F32(u) = ok(
        Op::Random {
            key,
            dist: Distribution::Uniform,
        },
        DType::F32,
        &[200, 200],
        &[],
    ) else {
        panic!("dtype")
    };
    assert!((0..n).all(|i| u[i] == random::uniform_f32(key, i as u64)));
    let HostData::F64(u) = ok(
        Op::Random {
            key,
            dist: Distribution::Uniform,
        },
        DType::F64,
        &[5],
        &[],
    ) else {
        panic!("dtype")
    };
    assert!((0..5).all(|i| u[i] == random::uniform_f64(key, i as u64)));
    let HostData::F32(g) = ok(
        Op::Random {
            key,
            dist: Distribution::Normal,
        },
        DType::F32,
        &[7],
        &[],
    ) else {
        panic!("dtype")
    };
    assert!((0..7).all(|i| g[i] == random::normal_f64(key, i as u64) as f32));
    assert_eq!(
        err_code(
            Op::Random {
                key,
                dist: Distribution::Uniform
            },
            DType::I32,
            &[2],
            &[]
        ),
        "E0499"
    );
}

#[test]
fn take_gathers_along_an_axis() {
    // source (2, 4) = [[0, 1, 2, 3], [4, 5, 6, 7]], indices (2, 2) along axis 1 -> (2, 2, 2)
    let src = HostData::F64((0..8).map(|i| i as f64).collect());
    let idx = HostData::I64(vec![3, 0, 1, 1]);
    let got = ok(
        Op::Take { axis: 1 },
        DType::F64,
        &[2, 2, 2],
        &[(&src, &cv(&[2, 4])), (&idx, &cv(&[2, 2]))],
    );
    assert_eq!(as_f64(&got), vec![3.0, 0.0, 1.0, 1.0, 7.0, 4.0, 5.0, 5.0]);
    // along axis 0 of the row-reversed view [[4..8], [0..4]], indices broadcast from a scalar
    let rev = cv(&[2, 4]).slice_axis(0, 1, 2, -1);
    let one = HostData::I64(vec![1]);
    let got = ok(
        Op::Take { axis: 0 },
        DType::F64,
        &[3, 4],
        &[(&src, &rev), (&one, &cv(&[]).broadcast_to(&[3]))],
    );
    assert_eq!(as_f64(&got), [0.0, 1.0, 2.0, 3.0].repeat(3));
    let bad = HostData::I64(vec![4]);
    assert_eq!(
        err_code(
            Op::Take { axis: 1 },
            DType::F64,
            &[2, 1],
            &[(&src, &cv(&[2, 4])), (&bad, &cv(&[1]))]
        ),
        "E0499"
    );
    // large: 40_000 indices into a column-strided source
    let n = 40_000;
    let col = HostData::I32((0..100).collect());
    let positions: Vec<i64> = (0..n as i64).map(|i| (i * 7) % 50).collect();
    let vcol = cv(&[50, 2]).select_axis(1, 1); // odd elements 1, 3, ..., 99
    let got = ok(
        Op::Take { axis: 0 },
        DType::I32,
        &[n],
        &[(&col, &vcol), (&HostData::I64(positions.clone()), &cv(&[n]))],
    );
    assert_eq!(
        got,
        HostData::I32(positions.iter().map(|&p| 2 * p as i32 + 1).collect())
    );
}

#[test]
fn gather_and_scatter_through_views() {
    let data = HostData::I64((0..12).collect());
    let v = cv(&[3, 4]).slice_axis(1, 3, 2, -2).permute(&[1, 0]); // columns 3, 1 as rows
    assert_eq!(gather(&data, &v), HostData::I64(vec![3, 7, 11, 1, 5, 9]));
    let b = cv(&[]).broadcast_to(&[2, 2]);
    assert_eq!(gather(&HostData::F32(vec![1.5]), &b), HostData::F32(vec![1.5; 4]));
    let mut buf = HostData::I64(vec![0; 12]);
    scatter(&mut buf, &v, &HostData::I64(vec![1, 2, 3, 4, 5, 6]));
    assert_eq!(buf, HostData::I64(vec![0, 4, 0, 1, 0, 5, 0, 2, 0, 6, 0, 3]));
    // contiguous sub-range and a value of another dtype (cast on the way in)
    scatter(&mut buf, &cv(&[2]).slice_axis(0, 0, 2, 1), &HostData::I64(vec![-1, -2]));
    let mut row = HostData::F32(vec![0.0; 6]);
    scatter(
        &mut row,
        &View {
            shape: smallvec::smallvec![3],
            strides: smallvec::smallvec![1],
            offset: 3,
        },
        &HostData::I32(vec![7, 8, 9]),
    );
    assert_eq!(row, HostData::F32(vec![0.0, 0.0, 0.0, 7.0, 8.0, 9.0]));
    assert_eq!(buf.get_i64(0), -1);
    assert_eq!(buf.get_i64(1), -2);
    // a large strided scatter round-trips through gather
    let n = 50_000;
    let mut big = HostData::F64(vec![0.0; 2 * n]);
    let odd = cv(&[n, 2]).select_axis(1, 1);
    let vals = HostData::F64((0..n).map(|i| i as f64).collect());
    scatter(&mut big, &odd, &vals);
    assert_eq!(gather(&big, &odd), vals);
    assert_eq!(
        gather(&big, &cv(&[n, 2]).select_axis(1, 0)),
        HostData::F64(vec![0.0; n])
    );
}

#[test]
fn layout_walk_matches_view_offsets() {
    let views = [
        cv(&[3, 4, 5]),
        cv(&[3, 4, 5]).permute(&[2, 0, 1]),
        cv(&[3, 4, 5]).slice_axis(1, 3, 2, -2).slice_axis(2, 1, 3, 1),
        cv(&[4, 1]).broadcast_to(&[2, 4, 3]),
        cv(&[6, 1, 2]).slice_axis(0, 5, 3, -2),
    ];
    for v in &views {
        let want: Vec<isize> = v.offsets().iter().map(|&o| o as isize).collect();
        let layout = Layout::of(v);
        for start in 0..want.len() {
            for len in [0, 1, 3, want.len() - start] {
                let len = len.min(want.len() - start);
                let mut got = vec![];
                layout.walk(start, len, |o| got.push(o));
                assert_eq!(got, want[start..start + len], "{v:?} from {start} for {len}");
            }
        }
    }
}

/// f32 `x ** 3` (computed in f64) is within half an ulp of the exact cube,
/// bar the double roundings its doc allows: the exact cube is `p + r`, with
/// `p` the f64 product of the exact square and `r` its rounding error (an FMA).
#[test]
fn f32_cube_is_correctly_rounded() {
    use super::Num;
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut worst = 0.0f64;
    for i in 0..400_000u32 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // every exponent whose cube is a normal f32, both signs
        let bits = ((state >> 33) as u32 & 0x807f_ffff) | ((85 + (i % 84)) << 23);
        let x = f32::from_bits(bits);
        let y = Num::pow(x, 3.0f32).unwrap();
        let (xd, t) = (x as f64, (x as f64) * (x as f64));
        let p = t * xd;
        let r = t.mul_add(xd, -p);
        let ulp = (y.abs().next_up() - y.abs()) as f64;
        let err = (((y as f64) - p) - r).abs() / ulp;
        worst = worst.max(err);
        assert!(err <= 0.5 + 1e-6, "{x:e} ** 3 = {y:e}: {err} ulp");
    }
    assert!(worst > 0.4, "the sample should reach near-ties ({worst})");
}
