//! GPU tests: the CUDA backend against the CPU backend (the reference) on
//! fresh random inputs over many shapes, dtypes, views and strategies, plus
//! a timing of the ANCHORS.md workloads. Every test needs an NVIDIA GPU, so
//! all are ignored by default; run them on the device machine with
//! `gpu-tests --ignored --test-threads=1` (see scripts/gpu-test.sh).

#![allow(clippy::result_large_err)]

use arr::backend::cpu::CpuBackend;
use arr::backend::cuda::{CudaBackend, DeviceBuffer};
use arr::check::dtype::DType;
use arr::check::prim::UnaryRule;
use arr::graph::data::HostData;
use arr::graph::op::{BinaryOp, Distribution, Op, ReduceOp, ScanOp, UnaryOp};
use arr::graph::segment_index::SegmentIndex;
use arr::graph::view::View;
use arr::graph::{Array, Backend, Storage, realize, to_host};
use std::time::Instant;

#[path = "golden/shape_linalg/mod.rs"]
mod shape_linalg_golden;

// ---- random inputs ----

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
}

fn data(rng: &mut Rng, dtype: DType, n: usize, kind: Values) -> HostData {
    let f = |rng: &mut Rng| -> f64 {
        match kind {
            Values::Signed => rng.unit() * 8.0 - 4.0,
            Values::Positive => rng.unit() * 3.0 + 0.1,
            Values::NearOne => 0.9 + rng.unit() * 0.2,
            Values::Unit => rng.unit() * 1.8 - 0.9,
            Values::WithNan => {
                if rng.below(50) == 0 {
                    f64::NAN
                } else {
                    rng.unit() * 8.0 - 4.0
                }
            }
        }
    };
    match dtype {
        DType::Bool => HostData::Bool((0..n).map(|_| rng.below(2) == 1).collect()),
        DType::I32 => HostData::I32((0..n).map(|_| rng.below(101) as i32 - 50).collect()),
        DType::I64 => HostData::I64((0..n).map(|_| rng.below(2001) as i64 - 1000).collect()),
        // the narrow integers over their whole range, so that results wrap
        DType::U8 => HostData::U8((0..n).map(|_| rng.next() as u8).collect()),
        DType::I8 => HostData::I8((0..n).map(|_| rng.next() as i8).collect()),
        DType::I16 => HostData::I16((0..n).map(|_| rng.next() as i16).collect()),
        DType::U16 => HostData::U16((0..n).map(|_| rng.next() as u16).collect()),
        DType::U32 => HostData::U32((0..n).map(|_| rng.next() as u32).collect()),
        DType::F32 => HostData::F32((0..n).map(|_| f(rng) as f32).collect()),
        DType::F64 => HostData::F64((0..n).map(|_| f(rng)).collect()),
        DType::F16 => HostData::F16((0..n).map(|_| half::f16::from_f64(f(rng))).collect()),
        DType::BF16 => HostData::BF16((0..n).map(|_| half::bf16::from_f64(f(rng))).collect()),
    }
}

#[derive(Clone, Copy)]
enum Values {
    Signed,
    Positive,
    NearOne,
    WithNan,
    /// In (-0.9, 0.9): the domain of arcsin, arccos and arctanh.
    Unit,
}

/// A leaf given to both backends: the same host data, two separate graphs.
#[derive(Clone)]
struct Leaf {
    data: HostData,
    shape: Vec<usize>,
}

fn leaf(rng: &mut Rng, dtype: DType, shape: &[usize], kind: Values) -> Leaf {
    let n = shape.iter().product();
    Leaf {
        data: data(rng, dtype, n, kind),
        shape: shape.to_vec(),
    }
}

// ---- graph building ----

fn bshape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let r = a.len().max(b.len());
    (0..r)
        .map(|k| {
            let da = if k + a.len() >= r { a[k + a.len() - r] } else { 1 };
            let db = if k + b.len() >= r { b[k + b.len() - r] } else { 1 };
            if da == 1 { db } else { da }
        })
        .collect()
}

fn bin(op: BinaryOp, a: &Array, b: &Array) -> Array {
    let shape = bshape(a.shape(), b.shape());
    let out = if op.is_comparison() || op.is_logical() {
        DType::Bool
    } else {
        a.dtype()
    };
    let a2 = a.with_view(a.view.broadcast_to(&shape));
    let b2 = b.with_view(b.view.broadcast_to(&shape));
    Array::pending(Op::Binary(op), vec![a2, b2], out, &shape, None)
}

fn un(op: UnaryOp, a: &Array) -> Array {
    let out = if matches!(op.rule(), UnaryRule::Pred | UnaryRule::Logic) {
        DType::Bool
    } else {
        a.dtype()
    };
    Array::pending(Op::Unary(op), vec![a.clone()], out, a.shape(), None)
}

fn cast(a: &Array, to: DType) -> Array {
    Array::pending(Op::Cast, vec![a.clone()], to, a.shape(), None)
}

fn red(op: ReduceOp, a: &Array, axes: &[usize]) -> Array {
    let shape: Vec<usize> = a
        .shape()
        .iter()
        .enumerate()
        .filter(|(k, _)| !axes.contains(k))
        .map(|(_, &d)| d)
        .collect();
    let dtype = match op {
        ReduceOp::ArgMin | ReduceOp::ArgMax => DType::I64,
        _ => a.dtype(),
    };
    Array::pending(
        Op::Reduce {
            op,
            axes: axes.to_vec(),
        },
        vec![a.clone()],
        dtype,
        &shape,
        None,
    )
}

fn view(a: &Array, v: View) -> Array {
    a.with_view(v)
}

// ---- comparing ----

fn close(dtype: DType, got: &HostData, want: &HostData, loose: bool) -> Result<(), String> {
    if got.len() != want.len() {
        return Err(format!("length {} vs {}", got.len(), want.len()));
    }
    let scale = (0..want.len())
        .map(|i| want.get_f64(i).abs())
        .filter(|x| x.is_finite())
        .fold(1.0f64, f64::max);
    let tol = match dtype {
        DType::F32 => {
            if loose {
                2e-4
            } else {
                2e-6
            }
        }
        DType::F64 => 1e-11,
        _ => 0.0,
    };
    for i in 0..want.len() {
        let (g, w) = (got.get_f64(i), want.get_f64(i));
        // equal values (infinities too: an empty segment's min is inf) always agree
        let ok = if g == w {
            true
        } else if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if dtype.is_float() {
            (g - w).abs() <= tol * scale.max(w.abs()) + tol
        } else {
            got.get_i64(i) == want.get_i64(i)
        };
        if !ok {
            return Err(format!("element {i}: gpu {g}, cpu {w}"));
        }
    }
    Ok(())
}

struct Harness {
    gpu: CudaBackend,
    cpu: CpuBackend,
    passed: usize,
    failed: Vec<String>,
}

impl Harness {
    /// A GPU and the CPU reference, and a fresh seed (printed, so that a
    /// failure can be replayed with `ARR_TEST_SEED=<seed>`).
    fn start() -> (Harness, Rng) {
        let gpu = CudaBackend::new().unwrap_or_else(|e| panic!("no GPU: {e}"));
        println!("device: {}", gpu.describe());
        let fresh = || {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        };
        let seed = std::env::var("ARR_TEST_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or_else(fresh)
            | 1;
        println!("seed: {seed}");
        let h = Harness {
            gpu,
            cpu: CpuBackend::new(),
            passed: 0,
            failed: Vec::new(),
        };
        (h, Rng(seed))
    }

    /// Builds the graph twice (once per backend) from the same leaves and compares.
    fn case(&mut self, name: &str, leaves: &[Leaf], loose: bool, build: impl Fn(&[Array]) -> Array) {
        let mk = |l: &Leaf| Array::from_host(l.data.clone(), &l.shape);
        let cpu_out = build(&leaves.iter().map(mk).collect::<Vec<_>>());
        let gpu_out = build(&leaves.iter().map(mk).collect::<Vec<_>>());
        let shapes: Vec<_> = leaves.iter().map(|l| l.shape.clone()).collect();
        let label = format!("{name} {shapes:?} -> {}{:?}", cpu_out.dtype(), cpu_out.shape());
        let want = match to_host(&self.cpu, &cpu_out) {
            Ok(w) => w,
            Err(e) => {
                // the reference refuses (modulo by zero, ...): nothing to compare
                println!("skip  {label}: cpu says {e}");
                return;
            }
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| to_host(&self.gpu, &gpu_out)));
        let verdict = match result {
            Ok(Ok(got)) => close(cpu_out.dtype(), &got, &want, loose),
            Ok(Err(e)) => Err(format!("gpu error: {e} {}", e.hint.clone().unwrap_or_default())),
            Err(_) => Err("gpu panicked".into()),
        };
        match verdict {
            Ok(()) => self.passed += 1,
            Err(e) => {
                println!("FAIL  {label}: {e}");
                self.failed.push(label);
            }
        }
    }
}

const DIMS: [usize; 10] = [1, 1, 2, 3, 5, 7, 16, 33, 64, 130];

fn random_shape(rng: &mut Rng, rank: usize, max_elems: usize) -> Vec<usize> {
    loop {
        let s: Vec<usize> = (0..rank).map(|_| rng.pick(&DIMS)).collect();
        if s.iter().product::<usize>() <= max_elems {
            return s;
        }
    }
}

/// A shape that broadcasts to `s`: some axes set to 1, some leading axes dropped.
fn bcast_of(rng: &mut Rng, s: &[usize]) -> Vec<usize> {
    let drop = rng.below(s.len() + 1);
    s[drop..]
        .iter()
        .map(|&d| if rng.below(3) == 0 { 1 } else { d })
        .collect()
}

/// A non-contiguous view with the same shape as `shape`, over a larger buffer leaf.
fn strided_leaf(rng: &mut Rng, dtype: DType, shape: &[usize]) -> (Leaf, impl Fn(&Array) -> Array + use<>) {
    // buffer twice as large along each axis; take every other element, maybe reversed
    let big: Vec<usize> = shape.iter().map(|&d| 2 * d + 1).collect();
    let l = leaf(rng, dtype, &big, Values::Signed);
    let rev: Vec<bool> = shape.iter().map(|_| rng.below(2) == 0).collect();
    let shape = shape.to_vec();
    let f = move |a: &Array| {
        let mut v = a.view.clone();
        for (k, &d) in shape.iter().enumerate() {
            v = if rev[k] && d > 0 {
                v.slice_axis(k, 2 * d - 1, d, -2)
            } else {
                v.slice_axis(k, 1, d, 2)
            };
        }
        a.with_view(v)
    };
    (l, f)
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_matches_cpu() {
    let (mut h, mut rng) = Harness::start();
    let t0 = Instant::now();

    // elementwise binary with broadcasting, every numeric dtype, ranks 0..5
    let bins = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Min,
        BinaryOp::Max,
        BinaryOp::Lt,
        BinaryOp::Eq,
    ];
    for dtype in [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::I16,
        DType::U32,
    ] {
        for rank in 0..=5 {
            for _ in 0..3 {
                let s = random_shape(&mut rng, rank, 40_000);
                let bs = bcast_of(&mut rng, &s);
                let op = rng.pick(&bins);
                let (a, b) = if rng.below(2) == 0 {
                    (s.clone(), bs)
                } else {
                    (bs, s.clone())
                };
                let leaves = [
                    leaf(&mut rng, dtype, &a, Values::Signed),
                    leaf(&mut rng, dtype, &b, Values::Signed),
                ];
                h.case(&format!("{op:?}"), &leaves, false, |x| bin(op, &x[0], &x[1]));
            }
        }
    }
    // division, modulo, power, atan2 on floats (and integer modulo/power with safe operands)
    for dtype in [DType::F32, DType::F64] {
        for op in [BinaryOp::Div, BinaryOp::Rem, BinaryOp::Pow, BinaryOp::Atan2] {
            let s = random_shape(&mut rng, 3, 20_000);
            let leaves = [
                leaf(&mut rng, dtype, &s, Values::Positive),
                leaf(&mut rng, dtype, &s[1..], Values::Signed),
            ];
            h.case(&format!("{op:?}"), &leaves, true, |x| bin(op, &x[0], &x[1]));
        }
    }
    for dtype in [DType::I32, DType::I64] {
        let s = [33, 7];
        let a = leaf(&mut rng, dtype, &s, Values::Signed);
        let b = Leaf {
            data: HostData::I64(vec![3, -4, 5, 2, -7, 1, 9]),
            shape: vec![7],
        };
        let b = Leaf {
            data: if dtype == DType::I32 {
                HostData::I32(vec![3, -4, 5, 2, -7, 1, 9])
            } else {
                b.data
            },
            shape: b.shape,
        };
        h.case("Rem int", &[a.clone(), b.clone()], false, |x| {
            bin(BinaryOp::Rem, &x[0], &x[1])
        });
        h.case("FloorDiv int", &[a.clone(), b], false, |x| {
            bin(BinaryOp::FloorDiv, &x[0], &x[1])
        });
        let e = Leaf {
            data: if dtype == DType::I32 {
                HostData::I32(vec![0, 1, 2, 3, 0, 1, 2])
            } else {
                HostData::I64(vec![0, 1, 2, 3, 0, 1, 2])
            },
            shape: vec![7],
        };
        h.case("Pow int", &[a, e], false, |x| bin(BinaryOp::Pow, &x[0], &x[1]));
    }
    // integer modulo by zero and negative powers are errors on both backends
    for (op, code) in [(BinaryOp::Rem, "E0400"), (BinaryOp::Pow, "E0401")] {
        let a = Array::from_host(HostData::I64(vec![5, 6, 7]), &[3]);
        let b = Array::from_host(
            HostData::I64(vec![2, if op == BinaryOp::Rem { 0 } else { -1 }, 1]),
            &[3],
        );
        match to_host(&h.gpu, &bin(op, &a, &b)) {
            Err(d) if d.code == code => h.passed += 1,
            other => {
                println!("FAIL  {op:?} error: {:?}", other.map(|_| ()));
                h.failed.push(format!("{op:?} error"));
            }
        }
    }
    {
        let e = Array::from_host(HostData::F32(vec![]), &[3, 0]);
        match to_host(&h.gpu, &red(ReduceOp::Max, &e, &[1])) {
            Err(d) if d.code == "E0402" => h.passed += 1,
            other => {
                println!("FAIL  max of empty: {:?}", other.map(|_| ()));
                h.failed.push("max of empty".into());
            }
        }
    }
    // every unary primitive of the table (check::prim) on floats, with NaNs and inside its domain
    for dtype in [DType::F32, DType::F64] {
        for &op in UnaryOp::ALL.iter().filter(|o| o.rule() != UnaryRule::Logic) {
            let s = random_shape(&mut rng, 2, 30_000);
            h.case(
                &format!("{op:?}"),
                &[leaf(&mut rng, dtype, &s, Values::WithNan)],
                true,
                |x| un(op, &x[0]),
            );
        }
        for &op in UnaryOp::ALL.iter().filter(|o| o.rule() == UnaryRule::Float) {
            let s = random_shape(&mut rng, 3, 30_000);
            let values = if matches!(op, UnaryOp::Arcsin | UnaryOp::Arccos | UnaryOp::Arctanh) {
                Values::Unit
            } else {
                Values::Positive
            };
            h.case(&format!("{op:?}"), &[leaf(&mut rng, dtype, &s, values)], true, |x| {
                un(op, &x[0])
            });
        }
        // floor division and hypot of floats
        for op in [BinaryOp::FloorDiv, BinaryOp::Hypot] {
            let s = random_shape(&mut rng, 3, 20_000);
            let leaves = [
                leaf(&mut rng, dtype, &s, Values::WithNan),
                leaf(&mut rng, dtype, &s[1..], Values::Signed),
            ];
            h.case(&format!("{op:?}"), &leaves, true, |x| bin(op, &x[0], &x[1]));
        }
    }
    for dtype in [DType::I32, DType::I64, DType::I8, DType::U16] {
        for op in [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::Square] {
            h.case(
                &format!("{op:?}"),
                &[leaf(&mut rng, dtype, &[129, 3], Values::Signed)],
                false,
                |x| un(op, &x[0]),
            );
        }
    }
    // bool logic and where
    {
        let s = [17, 31];
        let leaves = [
            leaf(&mut rng, DType::Bool, &s, Values::Signed),
            leaf(&mut rng, DType::Bool, &[31], Values::Signed),
        ];
        for op in [BinaryOp::And, BinaryOp::Or, BinaryOp::Eq, BinaryOp::Ne] {
            h.case(&format!("{op:?} bool"), &leaves, false, |x| bin(op, &x[0], &x[1]));
        }
        h.case("Not", &leaves[..1], false, |x| un(UnaryOp::Not, &x[0]));
        for dtype in [DType::F32, DType::I64] {
            let l = [
                leaves[0].clone(),
                leaf(&mut rng, dtype, &s, Values::Signed),
                leaf(&mut rng, dtype, &[17, 1], Values::Signed),
            ];
            h.case("Where", &l, false, |x| {
                let b = x[2].with_view(x[2].view.broadcast_to(&s));
                Array::pending(Op::Where, vec![x[0].clone(), x[1].clone(), b], dtype, &s, None)
            });
        }
    }
    // every cast
    for from in DType::ALL {
        for to in DType::ALL {
            let s = random_shape(&mut rng, 2, 10_000);
            h.case(
                &format!("cast {from}->{to}"),
                &[leaf(&mut rng, from, &s, Values::Signed)],
                false,
                |x| cast(&x[0], to),
            );
        }
    }
    // non-contiguous views: strided, reversed, transposed, broadcast, empty
    for dtype in DType::ALL {
        for rank in 1..=4 {
            let s = random_shape(&mut rng, rank, 20_000);
            let (l, f) = strided_leaf(&mut rng, dtype, &s);
            let perm: Vec<usize> = (0..rank).rev().collect();
            h.case("copy strided", std::slice::from_ref(&l), false, |x| {
                let v = f(&x[0]);
                Array::pending(Op::Copy, vec![v.clone()], dtype, v.shape(), None)
            });
            if dtype.is_float() {
                let l2 = leaf(
                    &mut rng,
                    dtype,
                    &perm.iter().map(|&p| s[p]).collect::<Vec<_>>(),
                    Values::Signed,
                );
                h.case("strided + transposed", &[l, l2], false, |x| {
                    let a = f(&x[0]);
                    let b = view(&x[1], x[1].view.permute(&perm));
                    bin(BinaryOp::Add, &a, &b)
                });
            }
        }
    }
    for s in [vec![0], vec![3, 0], vec![0, 5, 2], vec![4, 0, 1]] {
        let leaves = [
            leaf(&mut rng, DType::F32, &s, Values::Signed),
            leaf(&mut rng, DType::F32, &s, Values::Signed),
        ];
        h.case("empty add", &leaves, false, |x| bin(BinaryOp::Add, &x[0], &x[1]));
        h.case("empty sum", &leaves[..1], false, |x| red(ReduceOp::Sum, &x[0], &[0]));
    }
    // fused chains (map strategy with scalars, sliding, column broadcast)
    for dtype in [DType::F32, DType::F64] {
        for s in [vec![100_003], vec![513, 1000], vec![1024, 1024], vec![3, 5, 7, 9]] {
            let n = s.len();
            let leaves = [
                leaf(&mut rng, dtype, &s, Values::Signed),
                leaf(&mut rng, dtype, &s, Values::Signed),
                leaf(&mut rng, dtype, &s[n - 1..], Values::Signed),
                leaf(&mut rng, dtype, &[], Values::Signed),
            ];
            h.case("exp(a*b+c)-k*tanh(a)", &leaves, true, |x| {
                let e = un(
                    UnaryOp::Exp,
                    &bin(BinaryOp::Add, &bin(BinaryOp::Mul, &x[0], &x[1]), &x[2]),
                );
                bin(BinaryOp::Sub, &e, &bin(BinaryOp::Mul, &x[3], &un(UnaryOp::Tanh, &x[0])))
            });
            if n >= 2 {
                let mut col = s.clone();
                col[n - 1] = 1;
                let leaves = [
                    leaf(&mut rng, dtype, &s, Values::Signed),
                    leaf(&mut rng, dtype, &col, Values::Signed),
                ];
                h.case("column broadcast", &leaves, false, |x| bin(BinaryOp::Add, &x[0], &x[1]));
            }
        }
    }
    // reductions: every op, random axes, fused inputs, views; sizes that reach every strategy
    let rops = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max];
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8, DType::I16] {
        for rank in 1..=4 {
            for _ in 0..4 {
                let s = random_shape(&mut rng, rank, 50_000);
                let axes: Vec<usize> = (0..rank).filter(|_| rng.below(2) == 0).collect();
                let op = rng.pick(&rops);
                let kind = if op == ReduceOp::Prod {
                    Values::NearOne
                } else {
                    Values::Signed
                };
                let kind = if op == ReduceOp::Prod && !dtype.is_float() {
                    Values::Signed
                } else {
                    kind
                };
                let l = leaf(&mut rng, dtype, &s, kind);
                let l = if op == ReduceOp::Prod && !dtype.is_float() {
                    // small integers so products stay meaningful (both sides wrap the same way anyway)
                    Leaf {
                        data: data(&mut rng, dtype, l.data.len(), Values::Signed),
                        shape: l.shape,
                    }
                } else {
                    l
                };
                h.case(&format!("{op:?} axes {axes:?}"), &[l], true, |x| red(op, &x[0], &axes));
            }
        }
    }
    for (shape, axes) in [
        (vec![1 << 20], vec![0]),
        (vec![3000, 7], vec![1]),
        (vec![7, 3000], vec![0]),
        (vec![64, 20000], vec![1]),
        (vec![100_000, 5], vec![0]),
        (vec![200, 300], vec![0]),
        (vec![1 << 16, 8], vec![1]),
        (vec![33, 1, 65], vec![0, 2]),
        (vec![16, 17, 18], vec![1]),
        (vec![5, 6, 7, 8], vec![0, 3]),
    ] {
        for dtype in [DType::F32, DType::F64, DType::I64] {
            let l = leaf(&mut rng, dtype, &shape, Values::Signed);
            for op in [ReduceOp::Sum, ReduceOp::Max] {
                h.case(&format!("{op:?} axes {axes:?}"), std::slice::from_ref(&l), true, |x| {
                    red(op, &x[0], &axes)
                });
            }
        }
        let lb = leaf(&mut rng, DType::Bool, &shape, Values::Signed);
        for op in [ReduceOp::Any, ReduceOp::All] {
            h.case(
                &format!("{op:?} axes {axes:?}"),
                std::slice::from_ref(&lb),
                false,
                |x| red(op, &x[0], &axes),
            );
        }
        for op in [ReduceOp::ArgMin, ReduceOp::ArgMax] {
            let l = leaf(&mut rng, DType::F32, &shape, Values::WithNan);
            h.case(&format!("{op:?} axis {}", axes[0]), &[l], false, |x| {
                red(op, &x[0], &axes[..1])
            });
        }
    }
    // transposed and fused reduction inputs, streamed n-body, epilogues
    for dtype in [DType::F32, DType::F64] {
        let l = leaf(&mut rng, dtype, &[300, 200], Values::Signed);
        for axes in [vec![0], vec![1], vec![0, 1]] {
            h.case("sum of transpose", std::slice::from_ref(&l), true, |x| {
                red(ReduceOp::Sum, &view(&x[0], x[0].view.permute(&[1, 0])), &axes)
            });
        }
        let leaves = [
            leaf(&mut rng, dtype, &[1001], Values::Signed),
            leaf(&mut rng, dtype, &[777], Values::Signed),
        ];
        h.case("n-body sum_j (a_i-b_j)^2", &leaves, true, |x| {
            let d = bin(BinaryOp::Sub, &view(&x[0], x[0].view.insert_axis(1)), &x[1]);
            red(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1])
        });
        let leaves = [
            leaf(&mut rng, dtype, &[123, 456], Values::Signed),
            leaf(&mut rng, dtype, &[123], Values::Signed),
        ];
        h.case("sqrt(sum(x*x,1)) + b", &leaves, true, |x| {
            let s = red(ReduceOp::Sum, &bin(BinaryOp::Mul, &x[0], &x[0]), &[1]);
            bin(BinaryOp::Add, &un(UnaryOp::Sqrt, &s), &x[1])
        });
        let leaves = [leaf(&mut rng, dtype, &[100_000, 3], Values::Signed)];
        h.case("max(x,0) * 2", &leaves, true, |x| {
            let m = red(ReduceOp::Max, &x[0], &[0]);
            bin(BinaryOp::Add, &m, &m)
        });
        let leaves = [leaf(&mut rng, dtype, &[40, 50], Values::Signed)];
        h.case("softmax", &leaves, true, |x| {
            let m = red(ReduceOp::Max, &x[0], &[1]);
            let e = un(
                UnaryOp::Exp,
                &bin(BinaryOp::Sub, &x[0], &view(&m, m.view.insert_axis(1))),
            );
            let s = red(ReduceOp::Sum, &e, &[1]);
            bin(BinaryOp::Div, &e, &view(&s, s.view.insert_axis(1)))
        });
    }
    // scans, matmul, concat, take
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8] {
        for op in [ScanOp::Sum, ScanOp::Prod, ScanOp::Min, ScanOp::Max] {
            let s = random_shape(&mut rng, 3, 20_000);
            let axis = rng.below(3);
            let kind = if op == ScanOp::Prod {
                Values::NearOne
            } else {
                Values::Signed
            };
            h.case(
                &format!("scan {op:?} axis {axis}"),
                &[leaf(&mut rng, dtype, &s, kind)],
                true,
                |x| Array::pending(Op::Scan { op, axis }, vec![x[0].clone()], dtype, &s, None),
            );
        }
        let (m, k, n) = (rng.pick(&[1, 7, 64]), rng.pick(&[1, 13, 100]), rng.pick(&[1, 9, 33]));
        let leaves = [
            leaf(&mut rng, dtype, &[m, k], Values::Signed),
            leaf(&mut rng, dtype, &[n, k], Values::Signed),
        ];
        h.case("matmul (b transposed)", &leaves, true, |x| {
            let b = view(&x[1], x[1].view.permute(&[1, 0]));
            Array::pending(Op::MatMul, vec![x[0].clone(), b], dtype, &[m, n], None)
        });
        let leaves = [
            leaf(&mut rng, dtype, &[4, 3, 5], Values::Signed),
            leaf(&mut rng, dtype, &[4, 7, 5], Values::Signed),
        ];
        h.case("concat axis 1", &leaves, false, |x| {
            Array::pending(
                Op::Concat { axis: 1 },
                vec![x[0].clone(), x[1].clone()],
                dtype,
                &[4, 10, 5],
                None,
            )
        });
        let idx = Leaf {
            data: HostData::I64((0..12).map(|i| (i * 5 % 7) as i64).collect()),
            shape: vec![3, 4],
        };
        let leaves = [leaf(&mut rng, dtype, &[6, 7, 2], Values::Signed), idx];
        h.case("take axis 1", &leaves, false, |x| {
            Array::pending(
                Op::Take { axis: 1 },
                vec![x[0].clone(), x[1].clone()],
                dtype,
                &[6, 3, 4, 2],
                None,
            )
        });
    }
    // long lines: the chunked scan (carry-in across blocks)
    for (shape, axis) in [
        (vec![100_000], 0),
        (vec![3, 50_000], 1),
        (vec![20_000, 4], 0),
        (vec![9000, 2, 3], 0),
    ] {
        for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
            for op in [ScanOp::Sum, ScanOp::Prod, ScanOp::Min, ScanOp::Max] {
                if op == ScanOp::Prod && dtype == DType::F32 {
                    continue; // 10^5 rounded products drift apart by more than any fair tolerance
                }
                let kind = if op == ScanOp::Prod && dtype.is_float() {
                    Values::NearOne
                } else {
                    Values::Signed
                };
                let l = leaf(&mut rng, dtype, &shape, kind);
                let s = shape.clone();
                h.case(&format!("long scan {op:?} axis {axis}"), &[l], true, move |x| {
                    Array::pending(Op::Scan { op, axis }, vec![x[0].clone()], dtype, &s, None)
                });
            }
        }
    }
    // contiguous scans: a warp per line and the single-pass look-back; short and long
    // rows, odd lengths, lines off a vector boundary, every op and dtype
    for (si, (shape, axis, sliced)) in [
        (vec![5000, 37], 1, false),
        (vec![4300, 64], 1, false),
        (vec![7, 3, 1000], 2, false),
        (vec![2, 70_001], 1, false),
        (vec![1 << 20], 0, false),
        // a thousand look-back tiles in one line
        (vec![(1 << 24) + 3], 0, false),
        (vec![5, 100_000], 1, false),
        (vec![3, 40_000], 1, true),
        (vec![4500, 129], 1, true),
    ]
    .into_iter()
    .enumerate()
    {
        for dtype in [DType::Bool, DType::F32, DType::F64, DType::I32, DType::I64] {
            for op in [ScanOp::Sum, ScanOp::Prod, ScanOp::Min, ScanOp::Max] {
                let len = shape[axis];
                if op == ScanOp::Prod && dtype == DType::F32 && len > 10_000 {
                    continue; // long rounded products drift apart by more than any fair tolerance
                }
                let kind = match op {
                    ScanOp::Prod if dtype.is_float() => Values::NearOne,
                    ScanOp::Min | ScanOp::Max if dtype.is_float() && si % 2 == 1 => Values::WithNan,
                    _ => Values::Signed,
                };
                // a sliced view starts one element into a wider buffer: no 16-byte accesses
                let mut big = shape.clone();
                if sliced {
                    big[axis] += 2;
                }
                let l = leaf(&mut rng, dtype, &big, kind);
                let s = shape.clone();
                h.case(
                    &format!(
                        "contiguous scan {op:?} axis {axis}{}",
                        if sliced { " of a slice" } else { "" }
                    ),
                    &[l],
                    true,
                    move |x| {
                        let input = if sliced {
                            x[0].with_view(x[0].view.slice_axis(axis, 1, s[axis], 1))
                        } else {
                            x[0].clone()
                        };
                        Array::pending(Op::Scan { op, axis }, vec![input], dtype, &s, None)
                    },
                );
            }
        }
    }
    // long rows split over several blocks, and argmin/argmax through the row, column and
    // all-reductions: ties (small integers, booleans, rounded floats) and NaN (first wins)
    for (shape, axes) in [
        (vec![8, 1 << 20], vec![1]),
        (vec![3, 300_001], vec![1]),
        (vec![2, 3, 100_000], vec![2]),
    ] {
        for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
            let l = leaf(&mut rng, dtype, &shape, Values::Signed);
            for op in [ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max] {
                h.case(
                    &format!("long rows {op:?} axes {axes:?}"),
                    std::slice::from_ref(&l),
                    true,
                    |x| red(op, &x[0], &axes),
                );
            }
        }
    }
    for (shape, axes) in [
        (vec![1 << 20], vec![0]),
        (vec![100_001], vec![0]),
        (vec![3000, 7], vec![1]),
        (vec![33, 65], vec![1]),
        (vec![7, 3000], vec![0]),
        (vec![200, 300], vec![0]),
        (vec![64, 20000], vec![1]),
        (vec![8, 1 << 20], vec![1]),
        (vec![3, 300_001], vec![1]),
    ] {
        for dtype in [DType::Bool, DType::F32, DType::F64, DType::I32, DType::I64] {
            for (variant, kind) in [("", Values::Signed), (" with NaN", Values::WithNan)] {
                if !variant.is_empty() && !dtype.is_float() {
                    continue;
                }
                let mut l = leaf(&mut rng, dtype, &shape, kind);
                // rounded floats: many ties
                l.data = match l.data {
                    HostData::F32(v) if variant.is_empty() => HostData::F32(v.into_iter().map(f32::round).collect()),
                    HostData::F64(v) if variant.is_empty() => HostData::F64(v.into_iter().map(f64::round).collect()),
                    other => other,
                };
                for op in [ReduceOp::ArgMin, ReduceOp::ArgMax] {
                    h.case(
                        &format!("{op:?}{variant} axes {axes:?}"),
                        std::slice::from_ref(&l),
                        false,
                        |x| red(op, &x[0], &axes),
                    );
                }
            }
        }
    }
    // generators: arange and random (bit-exact uniform)
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
        h.case("arange", &[], false, |_| {
            Array::pending(Op::Arange { start: -3.0, step: 2.0 }, vec![], dtype, &[1000], None)
        });
    }
    for (dtype, dist) in [
        (DType::F32, Distribution::Uniform),
        (DType::F64, Distribution::Uniform),
        (DType::F32, Distribution::Normal),
        (DType::F64, Distribution::Normal),
    ] {
        let key = rng.next();
        h.case(&format!("random {dist:?}"), &[], false, |_| {
            let r = Array::pending(Op::Random { key, dist }, vec![], dtype, &[300, 301], None);
            view(&r, r.view.permute(&[1, 0]))
        });
        let l = leaf(&mut rng, dtype, &[301], Values::Signed);
        h.case(&format!("random {dist:?} fused"), &[l], false, |x| {
            let r = Array::pending(Op::Random { key, dist }, vec![], dtype, &[300, 301], None);
            bin(BinaryOp::Add, &r, &x[0])
        });
    }
    // large: 64-bit index paths are exercised by planning > 2^31 elements elsewhere; here 2^24
    {
        let leaves = [leaf(&mut rng, DType::F32, &[1 << 24], Values::Signed)];
        h.case("sum 2^24", &leaves, true, |x| red(ReduceOp::Sum, &x[0], &[0]));
    }
    // read of a non-contiguous view, and slice assignment through write
    {
        let s = [37, 41];
        let l = leaf(&mut rng, DType::F64, &s, Values::Signed);
        let cpu_a = Array::from_host(l.data.clone(), &s);
        let gpu_a = Array::from_host(l.data.clone(), &s);
        let v = View::contiguous(&s).slice_axis(0, 3, 10, 3).slice_axis(1, 40, 20, -2);
        let want = h
            .cpu
            .read(&cpu_a.node.buffer().expect("leaf"), &v, DType::F64)
            .expect("cpu read");
        let gpu_buf = h.gpu.adopt(l.data.clone()).expect("upload");
        let got = h.gpu.read(&gpu_buf, &v, DType::F64).expect("gpu read");
        match close(DType::F64, &got, &want, false) {
            Ok(()) => h.passed += 1,
            Err(e) => {
                println!("FAIL  strided read: {e}");
                h.failed.push("strided read".into());
            }
        }
        let src = leaf(&mut rng, DType::F64, &[10, 20], Values::Signed);
        let cpu_src = Array::from_host(src.data.clone(), &[10, 20]);
        let gpu_src = Array::from_host(src.data.clone(), &[10, 20]);
        h.cpu
            .write(&cpu_a.node.buffer().expect("leaf"), &v, &cpu_src)
            .expect("cpu write");
        let gpu_dst = Array::from_buffer(gpu_buf, DType::F64, &s);
        h.gpu
            .write(&gpu_dst.node.buffer().expect("leaf"), &v, &gpu_src)
            .expect("gpu write");
        let want = to_host(&h.cpu, &cpu_a).expect("cpu");
        let got = to_host(&h.gpu, &gpu_dst).expect("gpu");
        match close(DType::F64, &got, &want, false) {
            Ok(()) => h.passed += 1,
            Err(e) => {
                println!("FAIL  slice assignment: {e}");
                h.failed.push("slice assignment".into());
            }
        }
        let _ = gpu_a;
    }
    let stats = *h.gpu.stats.borrow();
    println!(
        "compiled {} modules, {} from disk cache, {} memory hits, in {:.1} s total",
        stats[0],
        stats[1],
        stats[2],
        t0.elapsed().as_secs_f64()
    );
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failures: {:#?}", h.failed);
}

/// Segment lengths for the ragged tests: `n` draws from a named distribution.
fn seg_lengths(rng: &mut Rng, dist: &str, n: usize) -> Vec<i64> {
    (0..n)
        .map(|_| match dist {
            // most short, a few huge (block and split classes), some empty
            "skewed" => match rng.below(1000) {
                0 => 100_000 + rng.below(900_000),
                1..=4 => 2000 + rng.below(28_000),
                5..=100 => 0,
                _ => 1 + rng.below(8),
            },
            "ragged" => 1 + rng.below(63),
            "mixed" => rng.pick(&[0usize, 1, 2, 3, 7, 8, 31, 32, 33, 1000, 5000]),
            // all short (the stream kernel), many empty
            "short-mixed" => rng.pick(&[0usize, 0, 0, 1, 2, 3, 7, 8, 31, 32, 33, 1000, 1024]),
            fixed => fixed.parse::<usize>().unwrap_or(1),
        } as i64)
        .collect()
}

/// A segmented reduction over `offsets`, with an index of its own: each
/// backend's run uploads (or reads) the index separately.
fn segment_by(op: ReduceOp, values: &Array, offsets: &[i64]) -> Array {
    arr::graph::build::segment(op, values, &SegmentIndex::from_offsets(offsets.to_vec()), None, &(0..0))
        .expect("segment")
}

fn offsets_of(lengths: &[i64]) -> Vec<i64> {
    let mut o = vec![0i64];
    for &l in lengths {
        o.push(o[o.len() - 1] + l);
    }
    o
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn segments_match_cpu() {
    use arr::graph::build;
    let (mut h, mut rng) = Harness::start();
    let t0 = Instant::now();
    // (distribution, segments): fixed lengths 0..2^20, ragged, mixed and skewed
    let dists: Vec<(String, usize)> = vec![
        ("0".into(), 100),
        ("1".into(), 5000),
        ("2".into(), 3000),
        ("3".into(), 3000),
        ("7".into(), 2000),
        ("8".into(), 2000),
        ("31".into(), 1000),
        ("32".into(), 1000),
        ("33".into(), 1000),
        // the stream kernel's thread-per-segment and warp-per-segment sides of its threshold
        ("64".into(), 700),
        ("65".into(), 700),
        ("1000".into(), 300),
        ("1024".into(), 300),
        ((1usize << 20).to_string(), 3),
        // 4.8M values: over a thousand tiles of the stream kernel
        ("ragged".into(), 150_000),
        ("short-mixed".into(), 20_000),
        ("mixed".into(), 3000),
        ("skewed".into(), 4000),
    ];
    let ops = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max];
    for (dist, n) in &dists {
        let lengths = seg_lengths(&mut rng, dist, *n);
        let offsets = offsets_of(&lengths);
        let total = offsets[offsets.len() - 1] as usize;
        for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
            for op in ops {
                let kind = match (op, rng.below(4)) {
                    (ReduceOp::Prod, _) => Values::NearOne,
                    (_, 0) => Values::WithNan,
                    _ => Values::Signed,
                };
                let l = leaf(&mut rng, dtype, &[total], kind);
                let offs = offsets.clone();
                let name = format!("seg{op:?} lengths {dist}");
                h.case(&name, &[l], dtype == DType::F32, move |a| segment_by(op, &a[0], &offs));
            }
            // segmean, and a fused producer streaming into the reduction
            if dtype.is_float() {
                let l = leaf(&mut rng, dtype, &[total], Values::Signed);
                let offs = offsets.clone();
                h.case(
                    &format!("segmean lengths {dist}"),
                    std::slice::from_ref(&l),
                    true,
                    move |a| {
                        build::segment_mean(&a[0], &SegmentIndex::from_offsets(offs.clone()), None, &(0..0))
                            .expect("segmean")
                    },
                );
                let offs = offsets.clone();
                h.case(&format!("segsum(x*x+x) lengths {dist}"), &[l], true, move |a| {
                    let sq = bin(BinaryOp::Add, &bin(BinaryOp::Mul, &a[0], &a[0]), &a[0]);
                    segment_by(ReduceOp::Sum, &sq, &offs)
                });
            }
        }
        // contiguous values off a 16-byte boundary: the stream kernel's scalar loads
        for dtype in [DType::F32, DType::F64] {
            let l = leaf(&mut rng, dtype, &[total + 1], Values::Signed);
            let offs = offsets.clone();
            h.case(&format!("segsum(x[1:]) {dtype} lengths {dist}"), &[l], true, move |a| {
                let v = a[0].view.slice_axis(0, 1, total, 1);
                segment_by(ReduceOp::Sum, &a[0].with_view(v), &offs)
            });
        }
        // strided and reversed values (a view, not a copy)
        let l = leaf(&mut rng, DType::F32, &[2 * total + 1], Values::Signed);
        let offs = offsets.clone();
        h.case(&format!("segmax(x[::-2]) lengths {dist}"), &[l], false, move |a| {
            let v = a[0].view.slice_axis(0, 2 * total - 1, total, -2);
            segment_by(ReduceOp::Max, &a[0].with_view(v), &offs)
        });
    }
    println!("segments: {:.1} s", t0.elapsed().as_secs_f64());
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failures: {:#?}", h.failed);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn segments_timing() {
    use arr::graph::build;
    let gpu = CudaBackend::new().expect("a GPU");
    println!("device: {}", gpu.describe());
    let ceiling = copy_ceiling(&gpu, 1 << 28);
    println!("ceiling: device-to-device copy of 2^28 f32: {ceiling:.0} GB/s");
    let mut rng = Rng(12345);
    let ragged = seg_lengths(&mut rng, "ragged", 3_000_000);
    let ragged_offs = offsets_of(&ragged);
    let skewed = seg_lengths(&mut rng, "skewed", 300_000);
    let skewed_offs = offsets_of(&skewed);
    let one_long = SegmentIndex::from_offsets(offsets_of(&[1 << 26]));
    let rv = device_rand(&gpu, &[ragged_offs[ragged_offs.len() - 1] as usize], 21);
    let sv = device_rand(&gpu, &[skewed_offs[skewed_offs.len() - 1] as usize], 22);
    // made once, as a loop over the same `lengths` array reuses its index
    let (ragged_offs, skewed_offs) = (
        SegmentIndex::from_offsets(ragged_offs),
        SegmentIndex::from_offsets(skewed_offs),
    );
    let lv = device_rand(&gpu, &[1 << 26], 23);
    let tiny = device_rand(&gpu, &[1 << 24, 8], 24);
    let short = device_rand(&gpu, &[1 << 22, 32], 25);
    let mid = device_rand(&gpu, &[64, 4096, 64], 26);
    let rows = device_rand(&gpu, &[1 << 14, 1 << 14], 27);
    let all = device_rand(&gpu, &[1 << 28], 28);
    let long_rows = device_rand(&gpu, &[64, 1 << 22], 29);
    type Build<'a> = Box<dyn Fn() -> Array + 'a>;
    let seg = |x: &Array, o: &SegmentIndex| build::segment(ReduceOp::Sum, x, o, None, &(0..0)).expect("segment");
    let scan = |x: &Array, axis: usize| {
        Array::pending(
            Op::Scan { op: ScanOp::Sum, axis },
            vec![x.clone()],
            DType::F32,
            x.shape(),
            None,
        )
    };
    let cases: Vec<(&str, Build)> = vec![
        (
            "segsum ragged 3M segments of 1..63",
            Box::new(|| seg(&rv, &ragged_offs)),
        ),
        ("segsum skewed 300k segments", Box::new(|| seg(&sv, &skewed_offs))),
        ("segsum one segment of 2^26", Box::new(|| seg(&lv, &one_long))),
        ("sum axis=1 of (2^24, 8)", Box::new(|| red(ReduceOp::Sum, &tiny, &[1]))),
        (
            "sum axis=1 of (2^22, 32)",
            Box::new(|| red(ReduceOp::Sum, &short, &[1])),
        ),
        (
            "sum axis=1 of (64, 4096, 64)",
            Box::new(|| red(ReduceOp::Sum, &mid, &[1])),
        ),
        ("cumsum axis=1 of (16384, 16384)", Box::new(|| scan(&rows, 1))),
        ("cumsum of 2^28", Box::new(|| scan(&all, 0))),
        ("cumsum axis=1 of (64, 2^22)", Box::new(|| scan(&long_rows, 1))),
        (
            "sum axis=1 of (64, 2^22)",
            Box::new(|| red(ReduceOp::Sum, &long_rows, &[1])),
        ),
        (
            "argmax axis=1 of (16384, 16384)",
            Box::new(|| red(ReduceOp::ArgMax, &rows, &[1])),
        ),
        ("argmin of 2^28", Box::new(|| red(ReduceOp::ArgMin, &all, &[0]))),
    ];
    println!("| workload | kernels | first run ms | median ms | GB/s | % of copy |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, build) in &cases {
        let (ms, bytes, strat, first) = time(&gpu, 20, build.as_ref());
        let gbs = bytes as f64 / (ms as f64 * 1e-3) / 1e9;
        println!(
            "| {name} | {strat} | {first:.1} | {ms:.4} | {gbs:.0} | {:.0}% |",
            100.0 * gbs / ceiling
        );
    }
}

// ---- timing of the ANCHORS.md workloads ----

fn device_rand(gpu: &CudaBackend, shape: &[usize], key: u64) -> Array {
    let r = Array::pending(
        Op::Random {
            key,
            dist: Distribution::Uniform,
        },
        vec![],
        DType::F32,
        shape,
        None,
    );
    realize(gpu, &[&r]).expect("random");
    r
}

fn median(mut xs: Vec<f32>) -> f32 {
    xs.sort_by(|a, b| a.total_cmp(b));
    xs[xs.len() / 2]
}

/// Runs `build` (a fresh graph over ready inputs) `reps` times, returning the
/// median summed kernel time and the plan's bytes.
fn time(gpu: &CudaBackend, reps: usize, build: &dyn Fn() -> Array) -> (f32, u64, String, f64) {
    let t = Instant::now();
    let first = build();
    realize(gpu, &[&first]).expect("warm-up");
    gpu.synchronize().expect("sync");
    let first_ms = t.elapsed().as_secs_f64() * 1e3;
    let mut times = Vec::new();
    let mut bytes = 0;
    let mut strategies = String::new();
    for _ in 0..reps {
        let out = build();
        gpu.start_profile();
        realize(gpu, &[&out]).expect("run");
        let prof = gpu.take_profile();
        times.push(prof.iter().map(|k| k.ms).sum());
        bytes = prof.iter().map(|k| k.bytes).sum();
        strategies = prof.iter().map(|k| k.strategy.clone()).collect::<Vec<_>>().join("+");
    }
    (median(times), bytes, strategies, first_ms)
}

fn copy_ceiling(gpu: &CudaBackend, n: usize) -> f64 {
    let a = device_rand(gpu, &[n], 1);
    let b = device_rand(gpu, &[n], 2);
    let ptr = |x: &Array| match &*x.node.buffer().expect("ready").storage() {
        Storage::Device(d) => d.as_any().downcast_ref::<DeviceBuffer>().expect("cuda buffer").ptr,
        Storage::Host(_) => panic!("host"),
    };
    let (src, dst) = (ptr(&a), ptr(&b));
    use cudarc::driver::sys;
    let mut ms = Vec::new();
    unsafe {
        let mut e0: sys::CUevent = std::ptr::null_mut();
        let mut e1: sys::CUevent = std::ptr::null_mut();
        sys::cuEventCreate(&mut e0, 0).result().expect("event");
        sys::cuEventCreate(&mut e1, 0).result().expect("event");
        for i in 0..25 {
            sys::cuEventRecord(e0, std::ptr::null_mut()).result().expect("record");
            sys::cuMemcpyDtoDAsync_v2(dst, src, n * 4, std::ptr::null_mut())
                .result()
                .expect("copy");
            sys::cuEventRecord(e1, std::ptr::null_mut()).result().expect("record");
            sys::cuEventSynchronize(e1).result().expect("sync");
            let mut t = 0f32;
            sys::cuEventElapsedTime_v2(&mut t, e0, e1).result().expect("elapsed");
            if i >= 5 {
                ms.push(t);
            }
        }
    }
    let t = median(ms);
    (2 * n * 4) as f64 / (t as f64 * 1e-3) / 1e9
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn anchors_timing() {
    let gpu = CudaBackend::new().expect("a GPU");
    println!("device: {}", gpu.describe());
    let ceiling = copy_ceiling(&gpu, 1 << 28);
    println!("ceiling: device-to-device copy of 2^28 f32: {ceiling:.0} GB/s");
    let n = 16384;
    let big = device_rand(&gpu, &[n, n], 3);
    let row = device_rand(&gpu, &[n], 4);
    let col = device_rand(&gpu, &[n, 1], 5);
    let v26: Vec<Array> = (0..3).map(|k| device_rand(&gpu, &[1 << 26], 6 + k)).collect();
    let v28 = device_rand(&gpu, &[1 << 28], 9);
    let seg = device_rand(&gpu, &[1 << 24, 8], 10);
    let (xa, xb) = (device_rand(&gpu, &[n], 11), device_rand(&gpu, &[n], 12));
    let half = gpu.adopt(HostData::F32(vec![0.5])).expect("upload");
    let half = Array::from_buffer(half, DType::F32, &[]);
    type Build<'a> = Box<dyn Fn() -> Array + 'a>;
    let rows: Vec<(&str, Build)> = vec![
        (
            "add (16384,16384) + (16384,)",
            Box::new(|| bin(BinaryOp::Add, &big, &row)),
        ),
        (
            "add (16384,16384) + (16384,1)",
            Box::new(|| bin(BinaryOp::Add, &big, &col)),
        ),
        (
            "exp(a*b+c) - 0.5*tanh(a), 2^26",
            Box::new(|| {
                let e = un(
                    UnaryOp::Exp,
                    &bin(BinaryOp::Add, &bin(BinaryOp::Mul, &v26[0], &v26[1]), &v26[2]),
                );
                bin(
                    BinaryOp::Sub,
                    &e,
                    &bin(BinaryOp::Mul, &half, &un(UnaryOp::Tanh, &v26[0])),
                )
            }),
        ),
        ("sum, all of 2^28", Box::new(|| red(ReduceOp::Sum, &v28, &[0]))),
        (
            "sum axis=1 of (16384,16384)",
            Box::new(|| red(ReduceOp::Sum, &big, &[1])),
        ),
        (
            "sum axis=0 of (16384,16384)",
            Box::new(|| red(ReduceOp::Sum, &big, &[0])),
        ),
        ("sum axis=1 of (2^24, 8)", Box::new(|| red(ReduceOp::Sum, &seg, &[1]))),
        (
            "sum_j (a_i - b_j)^2, n=16384",
            Box::new(|| {
                let d = bin(BinaryOp::Sub, &view(&xa, xa.view.insert_axis(1)), &xb);
                red(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1])
            }),
        ),
    ];
    println!("| workload | kernels | first run ms | median ms | GB/s | % of copy |");
    println!("| --- | --- | --- | --- | --- | --- |");
    for (name, build) in &rows {
        let (ms, bytes, strat, first) = time(&gpu, 30, build.as_ref());
        let gbs = bytes as f64 / (ms as f64 * 1e-3) / 1e9;
        println!(
            "| {name} | {strat} | {first:.1} | {ms:.4} | {gbs:.0} | {:.0}% |",
            100.0 * gbs / ceiling
        );
    }
    let stats = *gpu.stats.borrow();
    println!(
        "modules: {} compiled ({:.1} ms each), {} from disk cache",
        stats[0],
        1e3 * *gpu.compile_seconds.borrow() / stats[0].max(1) as f64,
        stats[1]
    );
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn out_of_memory_is_a_diagnostic() {
    let gpu = CudaBackend::new().expect("a GPU");
    let huge = Array::pending(
        Op::Arange { start: 0.0, step: 1.0 },
        vec![],
        DType::F64,
        &[1 << 32, 1 << 6],
        None,
    );
    match realize(&gpu, &[&huge]) {
        Err(d) => {
            println!("{d}");
            assert_eq!(d.code, "E0403");
        }
        Ok(()) => panic!("2 TiB fitted?"),
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn matmul_matches_cpu() {
    use arr::graph::build;
    let (mut h, mut rng) = Harness::start();
    let mm = |a: &Array, b: &Array| build::matmul(a, b, (None, None), &(0..0)).expect("matmul");
    let shapes = [
        (1, 1, 1),
        (3, 5, 7),
        (33, 64, 17),
        (130, 7, 65),
        (257, 129, 31),
        (64, 0, 5),
        (1, 300, 1),
    ];
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
        for &(m, k, n) in &shapes {
            let a = leaf(&mut rng, dtype, &[m, k], Values::Signed);
            let b = leaf(&mut rng, dtype, &[k, n], Values::Signed);
            let at = leaf(&mut rng, dtype, &[k, m], Values::Signed);
            let bt = leaf(&mut rng, dtype, &[n, k], Values::Signed);
            let tag = format!("{dtype} ({m},{k})@({k},{n})");
            h.case(&format!("matmul {tag}"), &[a.clone(), b.clone()], true, |x| {
                mm(&x[0], &x[1])
            });
            h.case(&format!("matmul a.T {tag}"), &[at.clone(), b.clone()], true, |x| {
                mm(&view(&x[0], x[0].view.permute(&[1, 0])), &x[1])
            });
            h.case(&format!("matmul b.T {tag}"), &[a.clone(), bt.clone()], true, |x| {
                mm(&x[0], &view(&x[1], x[1].view.permute(&[1, 0])))
            });
            h.case(&format!("matmul a.T b.T {tag}"), &[at, bt], true, |x| {
                mm(
                    &view(&x[0], x[0].view.permute(&[1, 0])),
                    &view(&x[1], x[1].view.permute(&[1, 0])),
                )
            });
            // a window of a wider buffer: leading dimension above k, a non-zero offset
            let wide = leaf(&mut rng, dtype, &[m + 1, k + 3], Values::Signed);
            h.case(&format!("matmul a[1:, 2:k+2] {tag}"), &[wide, b.clone()], true, |x| {
                let v = x[0].view.slice_axis(0, 1, m, 1).slice_axis(1, 2, k, 1);
                mm(&view(&x[0], v), &x[1])
            });
            // strided both ways and reversed: the generated kernel
            let (sl, f) = strided_leaf(&mut rng, dtype, &[m, k]);
            h.case(
                &format!("matmul a[::2, ::-2] {tag}"),
                &[sl, b.clone()],
                true,
                move |x| mm(&f(&x[0]), &x[1]),
            );
            // 1-D operands: vector @ matrix, matrix @ vector, vector @ vector
            let v = leaf(&mut rng, dtype, &[k], Values::Signed);
            let w = leaf(&mut rng, dtype, &[k], Values::Signed);
            h.case(&format!("matmul v@b {tag}"), &[v.clone(), b], true, |x| {
                mm(&x[0], &x[1])
            });
            h.case(&format!("matmul a@v {tag}"), &[a, v.clone()], true, |x| {
                mm(&x[0], &x[1])
            });
            h.case(&format!("matmul v@w {tag}"), &[v, w], true, |x| mm(&x[0], &x[1]));
        }
    }
    // f32 stays f32-accurate (no TF32): a strict tolerance over a long inner axis
    let a = leaf(&mut rng, DType::F32, &[256, 1024], Values::Signed);
    let b = leaf(&mut rng, DType::F32, &[1024, 192], Values::Signed);
    h.case("matmul f32 (256,1024)@(1024,192) strict", &[a, b], false, |x| {
        mm(&x[0], &x[1])
    });
    // a fused producer feeding the product, and the product feeding a fused consumer
    let a = leaf(&mut rng, DType::F64, &[40, 50], Values::Signed);
    let b = leaf(&mut rng, DType::F64, &[50, 60], Values::Signed);
    h.case("exp(matmul(a * 2, b)) - 1", &[a, b], false, |x| {
        let two = Array::from_host(HostData::F64(vec![2.0]), &[]);
        let p = mm(&bin(BinaryOp::Mul, &x[0], &two), &x[1]);
        bin(BinaryOp::Sub, &un(UnaryOp::Exp, &bin(BinaryOp::Mul, &p, &two)), &two)
    });
    println!("matmul: {} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failures: {:#?}", h.failed);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn a_loop_plans_once_on_the_gpu() {
    let gpu = CudaBackend::new().expect("a GPU");
    let cpu = CpuBackend::new();
    let one = |n: usize| {
        Array::from_host(HostData::F32(vec![1.0]), &[]).with_view(View {
            shape: smallvec::smallvec![n],
            strides: smallvec::smallvec![0],
            offset: 0,
        })
    };
    let start: Vec<f32> = (0..1000).map(|i| i as f32 * 0.5).collect();
    let mut x = Array::from_host(HostData::F32(start.clone()), &[1000]);
    let mut y = Array::from_host(HostData::F32(start), &[1000]);
    let before = gpu.plan_stats();
    for i in 0..50 {
        // x = x + 1.0, then a window that moves by a whole vector each iteration
        x = Array::pending(Op::Binary(BinaryOp::Add), vec![x, one(1000)], DType::F32, &[1000], None);
        realize(&gpu, &[&x]).expect("gpu");
        y = Array::pending(Op::Binary(BinaryOp::Add), vec![y, one(1000)], DType::F32, &[1000], None);
        realize(&cpu, &[&y]).expect("cpu");
        let w = x.with_view(x.view.slice_axis(0, 4 * (i % 10), 16, 1));
        let s = Array::pending(Op::Binary(BinaryOp::Mul), vec![w, one(16)], DType::F32, &[16], None);
        realize(&gpu, &[&s]).expect("gpu window");
    }
    let after = gpu.plan_stats();
    println!(
        "plans {} -> {}, hits {} -> {}",
        before.plans, after.plans, before.hits, after.hits
    );
    assert_eq!(after.plans - before.plans, 2, "one plan per distinct graph");
    assert_eq!(after.hits - before.hits, 98);
    let got = to_host(&gpu, &x).expect("gpu");
    let want = to_host(&cpu, &y).expect("cpu");
    close(DType::F32, &got, &want, false).expect("x + 1.0 fifty times");
}

/// Batched `@` (every path: shared b, small fused stacks, one product per
/// matrix), `einsum`, `dot` and the host-side `inv`/`solve`/`det` on CUDA
/// against NumPy's goldens (the same cases the CPU executors pass).
#[test]
#[ignore]
fn shape_and_linalg_match_numpy_on_cuda() {
    shape_linalg_golden::run_all(&|| arr::Session::new(arr::BackendChoice::Cuda).expect("a CUDA session"));
}

fn scalar_leaf(dtype: DType, x: f64) -> Leaf {
    Leaf {
        data: HostData::scalar(dtype, x),
        shape: Vec::new(),
    }
}

/// `a[:, newaxis]` of a rank-1 array: the reduced row value broadcast back along the row.
fn keep_rows(a: &Array) -> Array {
    a.with_view(a.view.insert_axis(1))
}

/// Row normalisations, which the planner turns into one row-resident kernel
/// (softmax, log-softmax, layer norm, variance, normalising by a norm) over
/// warp rows, block rows and rows too long to hold, strided and transposed
/// inputs, and rows of one element.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn row_normalisations_match_cpu() {
    let (mut h, mut rng) = Harness::start();
    let shapes: [[usize; 2]; 9] = [
        [1, 1],
        [3, 7],
        [100, 33],
        [64, 1000],
        [17, 4096],
        [5, 40_000],
        [2000, 256],
        [9, 1],
        [70_000, 24],
    ];
    for dtype in [DType::F32, DType::F64] {
        for s in shapes {
            let x = [leaf(&mut rng, dtype, &s, Values::Signed)];
            let softmax = |x: &Array| {
                let m = red(ReduceOp::Max, x, &[1]);
                let e = un(UnaryOp::Exp, &bin(BinaryOp::Sub, x, &keep_rows(&m)));
                let z = red(ReduceOp::Sum, &e, &[1]);
                bin(BinaryOp::Div, &e, &keep_rows(&z))
            };
            h.case("softmax", &x, true, |a| softmax(&a[0]));
            h.case("log_softmax", &x, true, |a| {
                let m = red(ReduceOp::Max, &a[0], &[1]);
                let d = bin(BinaryOp::Sub, &a[0], &keep_rows(&m));
                let z = red(ReduceOp::Sum, &un(UnaryOp::Exp, &d), &[1]);
                bin(BinaryOp::Sub, &d, &keep_rows(&un(UnaryOp::Log, &z)))
            });
            let n = scalar_leaf(dtype, s[1] as f64);
            let g = leaf(&mut rng, dtype, &s[1..], Values::Positive);
            let b = leaf(&mut rng, dtype, &s[1..], Values::Signed);
            h.case("layer_norm", &[x[0].clone(), n.clone(), g, b], true, |a| {
                let m = bin(BinaryOp::Div, &red(ReduceOp::Sum, &a[0], &[1]), &a[1]);
                let d = bin(BinaryOp::Sub, &a[0], &keep_rows(&m));
                let v = bin(
                    BinaryOp::Div,
                    &red(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
                    &a[1],
                );
                let r = un(UnaryOp::Sqrt, &v);
                bin(
                    BinaryOp::Add,
                    &bin(BinaryOp::Mul, &bin(BinaryOp::Div, &d, &keep_rows(&r)), &a[2]),
                    &a[3],
                )
            });
            h.case("var_rows", &[x[0].clone(), n], true, |a| {
                let m = bin(BinaryOp::Div, &red(ReduceOp::Sum, &a[0], &[1]), &a[1]);
                let d = bin(BinaryOp::Sub, &a[0], &keep_rows(&m));
                bin(
                    BinaryOp::Div,
                    &red(ReduceOp::Sum, &bin(BinaryOp::Mul, &d, &d), &[1]),
                    &a[1],
                )
            });
            h.case("x / norm", &x, true, |a| {
                let nrm = un(
                    UnaryOp::Sqrt,
                    &red(ReduceOp::Sum, &bin(BinaryOp::Mul, &a[0], &a[0]), &[1]),
                );
                bin(BinaryOp::Div, &a[0], &keep_rows(&nrm))
            });
            // strided, maybe reversed rows; and the transposed array's rows
            let (l, f) = strided_leaf(&mut rng, dtype, &s);
            h.case("softmax strided", &[l], true, |a| softmax(&f(&a[0])));
            let t = [leaf(&mut rng, dtype, &[s[1], s[0]], Values::Signed)];
            h.case("softmax transposed", &t, true, |a| {
                softmax(&a[0].with_view(a[0].view.permute(&[1, 0])))
            });
        }
    }
    // integer rows: sums and maxima into a per-element result
    let s = [300, 77];
    let x = [leaf(&mut rng, DType::I32, &s, Values::Signed)];
    h.case("i32 x - max + sum", &x, false, |a| {
        let m = red(ReduceOp::Max, &a[0], &[1]);
        let z = red(ReduceOp::Sum, &a[0], &[1]);
        bin(
            BinaryOp::Add,
            &bin(BinaryOp::Sub, &a[0], &keep_rows(&m)),
            &keep_rows(&z),
        )
    });
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failed: {:#?}", h.failed);
}

/// Elementwise kernels reading an operand down the columns (a transpose, a
/// permuted or reversed view), which the planner stages through shared tiles,
/// over tile-aligned and ragged shapes and every dtype.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn transposed_operands_match_cpu() {
    let (mut h, mut rng) = Harness::start();
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
        for s in [[2, 2], [32, 32], [33, 65], [1000, 3], [3, 1000], [517, 1029]] {
            let a = [leaf(&mut rng, dtype, &[s[1], s[0]], Values::Signed)];
            let op = if dtype == DType::Bool {
                BinaryOp::Eq
            } else {
                BinaryOp::Add
            };
            h.case("transpose(a) + a[..]", &a, false, |x| {
                let t = x[0].with_view(x[0].view.permute(&[1, 0]));
                let b = x[0].with_view(x[0].view.slice_axis(0, 0, s[0].min(s[1]), 1));
                let b = b.with_view(b.view.slice_axis(1, 0, s[0].min(s[1]), 1));
                let sq = t.with_view(t.view.slice_axis(0, 0, s[0].min(s[1]), 1));
                let sq = sq.with_view(sq.view.slice_axis(1, 0, s[0].min(s[1]), 1));
                bin(op, &sq, &b)
            });
            let b = leaf(&mut rng, dtype, &s, Values::Signed);
            h.case("permuted + row-major", &[a[0].clone(), b], false, |x| {
                bin(op, &x[0].with_view(x[0].view.permute(&[1, 0])), &x[1])
            });
            // a reversed, offset transposed view
            let (l, f) = strided_leaf(&mut rng, dtype, &[s[1], s[0]]);
            h.case("strided transposed", &[l], false, |x| {
                let v = f(&x[0]);
                let u = if dtype == DType::Bool {
                    UnaryOp::Not
                } else {
                    UnaryOp::Neg
                };
                un(u, &v.with_view(v.view.permute(&[1, 0])))
            });
        }
    }
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failed: {:#?}", h.failed);
}

// ---- paired and batched tiles (issue 14: one read per element of `a + transpose(a)`) ----

/// Kernels the planner runs as paired tiles (a buffer read directly and
/// transposed: a block writes the output tiles (I, J) and (J, I) from one
/// read of each source tile) and as batched tiles (a permuted rank-3
/// operand), against the CPU: square and ragged sizes around the tile edge,
/// offset, reversed and batched views, a pair beside an unpaired transposed
/// operand, every dtype.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn paired_and_batched_tiles_match_cpu() {
    let (mut h, mut rng) = Harness::start();
    let t2 = |x: &Array| x.with_view(x.view.permute(&[1, 0]));
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool] {
        let op = if dtype == DType::Bool {
            BinaryOp::Ne
        } else {
            BinaryOp::Sub
        };
        for n in [2, 31, 32, 33, 64, 100, 517] {
            let a = [leaf(&mut rng, dtype, &[n, n], Values::Signed)];
            // Sub, not Add: the pair's two sides must not be swappable
            h.case("a - transpose(a)", &a, false, |x| bin(op, &x[0], &t2(&x[0])));
            h.case("transpose(a) - a", &a, false, |x| bin(op, &t2(&x[0]), &x[0]));
            h.case("a[1:, 1:] - transpose(a)[1:, 1:]", &a, false, |x| {
                let cut = |v: View| v.slice_axis(0, 1, n - 1, 1).slice_axis(1, 1, n - 1, 1);
                bin(
                    op,
                    &x[0].with_view(cut(x[0].view.clone())),
                    &x[0].with_view(cut(t2(&x[0]).view)),
                )
            });
            h.case("a[::-1, ::-1] - transpose(a)[::-1, ::-1]", &a, false, |x| {
                let rev = |v: View| v.slice_axis(0, n - 1, n, -1).slice_axis(1, n - 1, n, -1);
                bin(
                    op,
                    &x[0].with_view(rev(x[0].view.clone())),
                    &x[0].with_view(rev(t2(&x[0]).view)),
                )
            });
            let ab = [a[0].clone(), leaf(&mut rng, dtype, &[n, n], Values::Signed)];
            if dtype != DType::Bool {
                h.case("(a - transpose(a)) * transpose(b)", &ab, false, |x| {
                    bin(BinaryOp::Mul, &bin(op, &x[0], &t2(&x[0])), &t2(&x[1]))
                });
            }
            h.case("transpose(b) - a", &ab, false, |x| bin(op, &t2(&x[1]), &x[0]));
        }
        for s in [[3, 33, 33], [2, 64, 64], [5, 7, 7]] {
            let a = [leaf(&mut rng, dtype, &s, Values::Signed)];
            h.case("batched a - permute(a, (0, 2, 1))", &a, false, |x| {
                bin(op, &x[0], &x[0].with_view(x[0].view.permute(&[0, 2, 1])))
            });
        }
        for s in [[3, 40, 70], [2, 33, 65], [4, 2, 3]] {
            let x0 = leaf(&mut rng, dtype, &s, Values::Signed);
            for perm in [[0, 2, 1], [1, 2, 0], [2, 1, 0], [2, 0, 1]] {
                let src: Vec<usize> = (0..3)
                    .map(|k| s[perm.iter().position(|&p| p == k).unwrap_or(0)])
                    .collect();
                let y = leaf(&mut rng, dtype, &src, Values::Signed);
                h.case(&format!("permute(y, {perm:?}) - x"), &[x0.clone(), y], false, |x| {
                    bin(op, &x[1].with_view(x[1].view.permute(&perm)), &x[0])
                });
            }
        }
    }
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failed: {:#?}", h.failed);
}

// ---- half floats (f16, bf16) ----

mod common;

/// The primitive golden rows (`tests/golden/make_prims.py`: the unary
/// primitives on specials, floor division, the nan-reductions, reductions'
/// `where=` and `initial=`, isclose) on CUDA against NumPy's values, as
/// `tests/numerics.rs` runs them on both CPU executors.
#[test]
#[ignore]
fn primitive_rows_on_cuda_match_numpy() {
    let rows = common::golden::rows_of_text(
        include_str!("golden/numerics/prims.json"),
        std::path::Path::new("tests/golden/numerics/prims.json"),
    );
    assert!(rows.len() >= 100, "only {} rows", rows.len());
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let cuda = arr::Session::new(arr::BackendChoice::Cuda).expect("a CUDA session");
            common::golden::check_row(row, cuda).err().map(|why| {
                let src = common::json::text(row, "src").unwrap_or_default();
                format!("{src:?}: {why}")
            })
        })
        .collect();
    println!("{} of {} rows agree", rows.len() - failures.len(), rows.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The half-float golden rows (NumPy float16, ml_dtypes bfloat16;
/// `tests/golden/make_half.py`) on CUDA, and programs that exercise the
/// device paths (strided reads, slice assignment, a loop) against the CPU,
/// value for value.
#[test]
#[ignore]
fn half_floats_on_cuda_match_numpy_and_cpu() {
    let cuda = || arr::Session::new(arr::BackendChoice::Cuda).expect("a CUDA session");
    let rows = common::golden::rows_of_text(
        include_str!("golden/numerics/half.json"),
        std::path::Path::new("tests/golden/numerics/half.json"),
    );
    assert!(rows.len() >= 100, "only {} rows", rows.len());
    let mut failures = Vec::new();
    for row in &rows {
        if let Err(why) = common::golden::check_row(row, cuda()) {
            let src = common::json::text(row, "src").unwrap_or_default();
            failures.push(format!("{src:?}: {why}"));
        }
    }
    let programs = [
        "let a = reshape(arange(24) as f16, [4, 6]) * 0.3\nlet r = transpose(a)[::2] + 1.5",
        "let a = zeros([5, 4], dtype=f16)\na[1:3, ::2] = 7.3\na[4] = arange(4) as f16 / 3\nlet r = a",
        "let b = ones([8], dtype=bf16)\nfor i in 0..5 { b = b * 1.1 + 0.01 }\nlet r = b",
        "let x = rand([300, 200]) as f16\nlet r = sum(exp(x - 0.5) * 0.25, axis=1)",
        "let x = randn([64, 32]) as bf16\nlet r = x @ transpose(x)",
        "let x = rand([1000]) as f16\nlet r = cumsum(x)",
        "let r = (rand([50]) as f16) + (rand([50]) as bf16)",
        // native kernels: fused chains, sources, casts, every reduction shape, tiles, rows
        "let a = randn([70000], dtype=f16)\nlet b = rand([70000], dtype=f16)\nlet r = where(a > b, abs(a) % 0.75, sign(b) * sqrt(b)) - floor(a * 3)",
        "let a = randn([333, 77], dtype=bf16)\nlet r = maximum(a, 0.25) * 1e3 + (arange(77) as bf16)",
        "let r = rand([100001], dtype=f16) + randn([100001], dtype=bf16) as f16",
        "let a = randn([4096], dtype=f16) * 100\nlet r = (a as i32) + (a > 0) + ((a as bf16) as f64 > 1)",
        "let x = randn([262144], dtype=f16)\nlet r = [sum(x), max(x), min(x), mean(x)]",
        "let x = randn([300, 700], dtype=bf16)\nlet r = concat([sum(x, axis=1), max(x, axis=1)])",
        "let x = randn([300, 700], dtype=f16)\nlet r = mean(x, axis=0) - min(x, axis=0)",
        "let x = randn([12, 34, 56], dtype=f16)\nlet r = sum(x * x, axis=[0, 2])",
        "let x = randn([300, 700], dtype=f16)\nlet r = argmax(x, axis=1) + argmin(x, axis=0)[:300]",
        "let x = randn([256, 1000], dtype=f16)\nlet e = exp(x - max(x, axis=1, keepdims=true))\nlet r = e / sum(e, axis=1, keepdims=true)",
        "let x = randn([384, 512], dtype=bf16)\nlet y = randn([512, 384], dtype=bf16)\nlet r = transpose(x) + y",
        "let x = randn([1000, 64], dtype=f16)\nlet r = x[::3, 1::2] * 2",
        "let x = zeros([64, 64], dtype=bf16)\nx[8:40, ::3] = randn([32, 22], dtype=bf16)\nlet r = x",
    ];
    for src in programs {
        let (mut gpu, mut cpu) = (cuda(), arr::Session::cpu());
        gpu.set_output(Box::new(std::io::sink()));
        cpu.set_output(Box::new(std::io::sink()));
        let (g, c) = (gpu.eval(src), cpu.eval(src));
        if let Err(d) = g.and(c) {
            failures.push(format!("{src:?} failed: {}", gpu.render(&d, false)));
            continue;
        }
        let (g, c) = (gpu.get("r").expect("r"), cpu.get("r").expect("r"));
        // within one unit in the last place: CUDA's float exp, sqrt and sums
        // may differ from the CPU's by an f32 ulp, which can move the rounding
        let ulp = match c.dtype() {
            arr::check::dtype::DType::F16 => 2f64.powi(-10),
            arr::check::dtype::DType::BF16 => 2f64.powi(-7),
            _ => 1e-6,
        };
        let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= ulp * x.abs().max(y.abs());
        let (gv, cv) = (g.to_f64_vec(), c.to_f64_vec());
        if g.dtype() != c.dtype()
            || g.shape != c.shape
            || gv.len() != cv.len()
            || !gv.iter().zip(&cv).all(|(&x, &y)| same(x, y))
        {
            failures.push(format!(
                "{src:?}: cuda {} {:?} differs from cpu {} {:?}",
                g.dtype(),
                g.shape,
                c.dtype(),
                c.shape
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---- multi-output reductions (gpu-fusion2) ----

/// Realizes every array `build` returns in one graph on each backend (so the
/// GPU plan may merge them into one kernel) and compares them element for element.
fn multi_case(h: &mut Harness, name: &str, leaves: &[Leaf], loose: bool, build: impl Fn(&[Array]) -> Vec<Array>) {
    let mk = |l: &Leaf| Array::from_host(l.data.clone(), &l.shape);
    let cpu_outs = build(&leaves.iter().map(mk).collect::<Vec<_>>());
    let gpu_outs = build(&leaves.iter().map(mk).collect::<Vec<_>>());
    let shapes: Vec<_> = leaves.iter().map(|l| l.shape.clone()).collect();
    let label = format!("{name} {shapes:?} -> {} outputs", cpu_outs.len());
    let verdict = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| -> Result<(), String> {
        realize(&h.cpu, &cpu_outs.iter().collect::<Vec<_>>()).map_err(|e| format!("cpu error: {e}"))?;
        realize(&h.gpu, &gpu_outs.iter().collect::<Vec<_>>()).map_err(|e| format!("gpu error: {e}"))?;
        for (k, (c, g)) in cpu_outs.iter().zip(&gpu_outs).enumerate() {
            let want = to_host(&h.cpu, c).map_err(|e| format!("cpu error: {e}"))?;
            let got = to_host(&h.gpu, g).map_err(|e| format!("gpu error: {e}"))?;
            close(c.dtype(), &got, &want, loose).map_err(|e| format!("output {k}: {e}"))?;
        }
        Ok(())
    }))
    .unwrap_or_else(|_| Err("panicked".into()));
    match verdict {
        Ok(()) => h.passed += 1,
        Err(e) => {
            println!("FAIL  {label}: {e}");
            h.failed.push(label);
        }
    }
}

fn all_axes(a: &Array) -> Vec<usize> {
    (0..a.shape().len()).collect()
}

/// Whole-array reductions realized together, which the planner merges into
/// one multi-output kernel: two means over shared temporaries (Black-Scholes),
/// min, max and sum of one array, reductions of a strided view, every dtype,
/// sizes from one element to past the partials' grid, and ones that must stay
/// apart (a variance needing its mean).
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn multi_output_reductions_match_cpu() {
    let (mut h, mut rng) = Harness::start();
    for dtype in [DType::F32, DType::F64] {
        for n in [1usize, 7, 1000, 65_537, 3_000_001] {
            let x = [leaf(&mut rng, dtype, &[n], Values::Signed)];
            multi_case(&mut h, "two means", &x, true, |a| {
                let nn = Array::from_host(HostData::scalar(dtype, n as f64), &[]);
                let t = un(UnaryOp::Exp, &a[0]);
                let y = bin(BinaryOp::Mul, &a[0], &a[0]);
                let call = bin(BinaryOp::Sub, &bin(BinaryOp::Mul, &t, &a[0]), &y);
                let put = bin(BinaryOp::Sub, &y, &un(UnaryOp::Tanh, &t));
                vec![
                    bin(BinaryOp::Div, &red(ReduceOp::Sum, &call, &[0]), &nn),
                    bin(BinaryOp::Div, &red(ReduceOp::Sum, &put, &[0]), &nn),
                ]
            });
            multi_case(&mut h, "mean and var", &x, true, |a| {
                let nn = Array::from_host(HostData::scalar(dtype, n as f64), &[]);
                let mean = |v: &Array| bin(BinaryOp::Div, &red(ReduceOp::Sum, v, &[0]), &nn);
                let d = bin(BinaryOp::Sub, &a[0], &mean(&a[0]));
                vec![mean(&a[0]), mean(&bin(BinaryOp::Mul, &d, &d))]
            });
        }
    }
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
        for s in [vec![1], vec![33, 65], vec![517, 1029], vec![8, 64, 130]] {
            let x = [leaf(&mut rng, dtype, &s, Values::Signed)];
            multi_case(&mut h, "min max sum", &x, dtype.is_float(), |a| {
                let ax = all_axes(&a[0]);
                vec![
                    red(ReduceOp::Min, &a[0], &ax),
                    red(ReduceOp::Max, &a[0], &ax),
                    red(ReduceOp::Sum, &a[0], &ax),
                ]
            });
            let (l, f) = strided_leaf(&mut rng, dtype, &s);
            multi_case(&mut h, "min max strided", &[l], false, |a| {
                let v = f(&a[0]);
                let ax = all_axes(&v);
                vec![red(ReduceOp::Min, &v, &ax), red(ReduceOp::Max, &v, &ax)]
            });
        }
    }
    let b = [leaf(&mut rng, DType::Bool, &[10_007], Values::Signed)];
    multi_case(&mut h, "any all", &b, false, |a| {
        vec![red(ReduceOp::Any, &a[0], &[0]), red(ReduceOp::All, &a[0], &[0])]
    });
    println!("{} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failed: {:#?}", h.failed);
}

// ---- gpu-np: batched `@` (cuBLAS strided-batched), cuSOLVER ----

/// A stack of products as one rank-3 `MatMul` node: f32/f64 through cuBLAS's
/// strided-batched gemm (a broadcast operand at batch stride 0, transposed
/// operands through the op flags), integers and reversed stacks through the
/// generated kernel; all against the CPU reference.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn batched_matmul_matches_cpu() {
    use arr::graph::build;
    let (mut h, mut rng) = Harness::start();
    let mm = |a: &Array, b: &Array| build::matmul(a, b, (None, None), &(0..0)).expect("matmul");
    let t = |x: &Array| {
        let r = x.rank();
        let mut p: Vec<usize> = (0..r).collect();
        p.swap(r - 1, r - 2);
        view(x, x.view.permute(&p))
    };
    // (m, k, n) with k above the fused small-product bound
    let sizes = [(3, 40, 5), (33, 64, 17), (64, 64, 64), (1, 100, 1), (70, 33, 2)];
    let stacks: [(&[usize], &[usize]); 5] = [
        (&[4], &[4]),
        (&[2, 3], &[2, 3]),
        (&[1], &[5]),
        (&[3, 1], &[1, 2]),
        (&[1], &[1]),
    ];
    for dtype in [DType::F32, DType::F64, DType::I32, DType::I64] {
        for &(m, k, n) in &sizes {
            for &(ba, bb) in &stacks {
                let sa: Vec<usize> = ba.iter().copied().chain([m, k]).collect();
                let sb: Vec<usize> = bb.iter().copied().chain([k, n]).collect();
                let tag = format!("{dtype} {sa:?}@{sb:?}");
                let a = leaf(&mut rng, dtype, &sa, Values::Signed);
                let b = leaf(&mut rng, dtype, &sb, Values::Signed);
                h.case(&format!("bmm {tag}"), &[a.clone(), b.clone()], true, |x| {
                    mm(&x[0], &x[1])
                });
                let sat: Vec<usize> = ba.iter().copied().chain([k, m]).collect();
                let sbt: Vec<usize> = bb.iter().copied().chain([n, k]).collect();
                let at = leaf(&mut rng, dtype, &sat, Values::Signed);
                let bt = leaf(&mut rng, dtype, &sbt, Values::Signed);
                h.case(&format!("bmm a.T {tag}"), &[at.clone(), b.clone()], true, |x| {
                    mm(&t(&x[0]), &x[1])
                });
                h.case(&format!("bmm a.T b.T {tag}"), &[at, bt], true, |x| {
                    mm(&t(&x[0]), &t(&x[1]))
                });
                // a reversed stack: the generated kernel
                h.case(&format!("bmm a[::-1] {tag}"), &[a, b], true, |x| {
                    mm(
                        &view(&x[0], x[0].view.slice_axis(0, x[0].shape()[0] - 1, x[0].shape()[0], -1)),
                        &x[1],
                    )
                });
            }
        }
    }
    println!("batched matmul: {} passed, {} failed", h.passed, h.failed.len());
    assert!(h.failed.is_empty(), "failures: {:#?}", h.failed);
}

/// Runs `src` in a CUDA and a CPU session over the same inputs; compares `r`
/// (relative to the largest value: cuSOLVER in f32 against the host LU in
/// f64 differs by rounding), or that both fail with the same code.
fn linalg_case(name: &str, inputs: &[(&str, HostData, Vec<usize>)], src: &str, tol: f64) -> Result<(), String> {
    let mut results = Vec::new();
    for choice in [arr::BackendChoice::Cuda, arr::BackendChoice::Cpu] {
        let mut s = arr::Session::new(choice).expect("a session");
        for (n, d, shape) in inputs {
            s.set(
                n,
                arr::HostArray {
                    data: d.clone(),
                    shape: shape.clone(),
                },
            )
            .expect("set");
        }
        results.push(match s.eval(src) {
            Ok(_) => s.get("r").map_err(|d| d.code.to_string()),
            Err(ds) => Err(ds[0].code.to_string()),
        });
    }
    match (&results[0], &results[1]) {
        (Ok(g), Ok(w)) => {
            if g.shape != w.shape || g.dtype() != w.dtype() {
                return Err(format!(
                    "{name}: cuda {:?} {}, cpu {:?} {}",
                    g.shape,
                    g.dtype(),
                    w.shape,
                    w.dtype()
                ));
            }
            let (g, w) = (g.to_f64_vec(), w.to_f64_vec());
            let scale = w.iter().filter(|x| x.is_finite()).fold(1.0f64, |m, x| m.max(x.abs()));
            // equal values (infinities of an overflowing det included) match, and so do two NaNs
            match g.iter().zip(&w).position(|(a, b)| {
                a != b && !(a.is_nan() && b.is_nan()) && ((a - b).abs() > tol * scale || (a - b).is_nan())
            }) {
                Some(i) => Err(format!("{name}: element {i}: cuda {} cpu {}", g[i], w[i])),
                None => Ok(()),
            }
        }
        (Err(a), Err(b)) if a == b => Ok(()),
        (g, w) => Err(format!(
            "{name}: cuda {:?}, cpu {:?}",
            g.as_ref().map(|_| "ok"),
            w.as_ref().map(|_| "ok")
        )),
    }
}

/// inv/solve/det through cuSOLVER against the CPU's host LU: f32 and f64,
/// stacks with broadcast batch axes, vector and matrix right-hand sides,
/// integer inputs (cast to float), and singular matrices (E0420 for inv and
/// solve, det 0).
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn cusolver_matches_cpu() {
    let mut rng = Rng(0x5eed_1234_5678_9abd);
    let mut failed = Vec::new();
    let mut passed = 0;
    let well = |rng: &mut Rng, dtype: DType, count: usize, n: usize| {
        // diagonally dominant: well conditioned, so f32 and f64 agree closely
        let vals: Vec<f64> = (0..count * n * n)
            .map(|i| {
                let (r, c) = ((i % (n * n)) / n, i % n);
                rng.unit() * 2.0 - 1.0 + if r == c { n as f64 } else { 0.0 }
            })
            .collect();
        match dtype {
            DType::F32 => HostData::F32(vals.iter().map(|&v| v as f32).collect()),
            DType::I32 => HostData::I32(vals.iter().map(|&v| (v * 3.0).round() as i32).collect()),
            _ => HostData::F64(vals),
        }
    };
    let mut check = |r: Result<(), String>| match r {
        Ok(()) => passed += 1,
        Err(e) => {
            println!("FAIL {e}");
            failed.push(e);
        }
    };
    for dtype in [DType::F32, DType::F64, DType::I32] {
        let tol = if dtype == DType::F64 { 1e-10 } else { 2e-5 };
        for &(count, n) in &[(1usize, 1usize), (1, 3), (1, 64), (1, 300), (6, 5), (40, 17), (3, 130)] {
            let shape = if count == 1 { vec![n, n] } else { vec![count, n, n] };
            let a = well(&mut rng, dtype, count, n);
            let b = well(&mut rng, DType::F64, 1, n);
            let bvec = HostData::F64((0..n).map(|i| b.get_f64(i)).collect());
            let tag = format!("{dtype} {shape:?}");
            let ins = |extra: Vec<(&'static str, HostData, Vec<usize>)>| {
                let mut v = vec![("a", a.clone(), shape.clone())];
                v.extend(extra);
                v
            };
            check(linalg_case(&format!("inv {tag}"), &ins(vec![]), "let r = inv(a)", tol));
            check(linalg_case(
                &format!("det {tag}"),
                &ins(vec![]),
                "let r = det(a)",
                tol.max(1e-9),
            ));
            check(linalg_case(
                &format!("solve vec {tag}"),
                &ins(vec![("v", bvec.clone(), vec![n])]),
                "let r = solve(a, v)",
                tol,
            ));
            check(linalg_case(
                &format!("solve mat {tag}"),
                &ins(vec![("m", b.clone(), vec![n, n])]),
                "let r = solve(a, m[:, ::2])",
                tol,
            ));
            // a stack of right-hand sides against one matrix: broadcast a
            check(linalg_case(
                &format!("solve bcast {tag}"),
                &ins(vec![("m", b.clone(), vec![n, n])]),
                "let r = solve(a, stack([m, m * 2.0, transpose(m)]))",
                tol,
            ));
        }
        // singular: a repeated row (exact zero pivot in every dtype)
        let sing = match dtype {
            DType::F32 => HostData::F32(vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 5.0]),
            DType::I32 => HostData::I32(vec![1, 2, 3, 2, 4, 6, 0, 1, 5]),
            _ => HostData::F64(vec![1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 0.0, 1.0, 5.0]),
        };
        let s = vec![("s", sing, vec![3, 3])];
        check(linalg_case(&format!("inv singular {dtype}"), &s, "let r = inv(s)", 0.0));
        check(linalg_case(
            &format!("solve singular {dtype}"),
            &s,
            "let r = solve(s, [1.0, 2.0, 3.0])",
            0.0,
        ));
        check(linalg_case(
            &format!("det singular {dtype}"),
            &s,
            "let r = det(s)",
            1e-12,
        ));
        check(linalg_case(
            &format!("det stack with a singular item {dtype}"),
            &s,
            "let r = det(stack([s, s + 1, transpose(s) * 2]))",
            1e-5,
        ));
    }
    println!("cusolver: {passed} passed, {} failed", failed.len());
    assert!(failed.is_empty(), "failures: {failed:#?}");
}

/// The gpu-np table: batched `@` and cuSOLVER on the device, summed kernel
/// (cuBLAS / cuSOLVER) time per call, medians of 10 runs.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_np_timing() {
    use arr::graph::build;
    let gpu = CudaBackend::new().expect("a GPU");
    println!("device: {}", gpu.describe());
    let mut rows = Vec::new();
    for (b, m, k, n) in [
        (512usize, 64usize, 64usize, 64usize),
        (64, 256, 256, 256),
        (8192, 16, 48, 16),
    ] {
        let x = device_rand(&gpu, &[b, m, k], 1);
        let y = device_rand(&gpu, &[b, k, n], 2);
        let (ms, _, strategies, _) = time(&gpu, 10, &|| build::matmul(&x, &y, (None, None), &(0..0)).expect("bmm"));
        let tflops = 2.0 * (b * m * k * n) as f64 / (ms as f64 * 1e-3) / 1e12;
        rows.push(format!(
            "| bmm f32 ({b},{m},{k})@({b},{k},{n}) | {ms:.4} | {tflops:.2} TFLOP/s | {strategies} |"
        ));
        // b shared by the stack: one (b*m, k) @ (k, n) gemm
        let w = device_rand(&gpu, &[k, n], 3);
        let (ms, _, strategies, _) = time(&gpu, 10, &|| build::matmul(&x, &w, (None, None), &(0..0)).expect("bmm"));
        let tflops = 2.0 * (b * m * k * n) as f64 / (ms as f64 * 1e-3) / 1e12;
        rows.push(format!(
            "| bmm f32 ({b},{m},{k})@({k},{n}) | {ms:.4} | {tflops:.2} TFLOP/s | {strategies} |"
        ));
    }
    // whole-statement wall times for the solver (includes the host side: getrf status read back)
    for (count, n) in [(1usize, 1024usize), (1, 4096), (64, 64)] {
        let mut s = arr::Session::new(arr::BackendChoice::Cuda).expect("session");
        let shape = if count == 1 {
            format!("[{n}, {n}]")
        } else {
            format!("[{count}, {n}, {n}]")
        };
        s.eval(&format!(
            "let a = realize(rand({shape}) + eye({n}) * {n}.0)\nlet b = realize(rand({shape}))"
        ))
        .expect("inputs");
        for (what, src) in [
            ("inv", "let r = realize(inv(a))"),
            ("solve", "let r = realize(solve(a, b))"),
            ("det", "let r = det(a)"),
        ] {
            s.eval(src).expect("warm-up");
            let mut ts = Vec::new();
            for _ in 0..5 {
                let t = Instant::now();
                s.eval(src).expect(what);
                s.eval("let z = realize(sum(r))").ok();
                ts.push(t.elapsed().as_secs_f32() * 1e3);
            }
            rows.push(format!(
                "| {what} f32 {shape} (wall, incl. a sum) | {:.3} | | cusolver |",
                median(ts)
            ));
        }
    }
    // bincount of 2^26 i64 values into 1000 bins and into 2^20 bins
    for bins in [1000usize, 1 << 20] {
        let mut s = arr::Session::new(arr::BackendChoice::Cuda).expect("session");
        s.eval(&format!("let x = realize(floor(rand([67108864]) * {bins}.0) as i64)"))
            .expect("inputs");
        s.eval("let r = realize(bincount(x))").expect("warm-up");
        let mut ts = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            s.eval("let r = realize(bincount(x))").expect("bincount");
            s.eval("let z = realize(sum(r))").ok();
            ts.push(t.elapsed().as_secs_f32() * 1e3);
        }
        rows.push(format!(
            "| bincount 2^26 i64 into {bins} bins (wall, incl. min/max and a sum) | {:.3} | | atomics |",
            median(ts)
        ));
    }
    println!("| gpu-np case | ms | rate | kernels |\n| --- | --- | --- | --- |");
    for r in rows {
        println!("{r}");
    }
}

/// bincount with atomics (shared-memory histograms for few bins, global
/// atomics for many) against the CPU: i32/i64, weights, minlength, strided
/// inputs, and a negative element (the same diagnostic as on the CPU).
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bincount_matches_cpu() {
    let mut rng = Rng(0xb1c0_0417_2026_0001);
    let mut failed = Vec::new();
    let mut passed = 0;
    for &(n, bins) in &[
        (1usize, 1usize),
        (1000, 7),
        (100_000, 2048),
        (100_000, 2049),
        (300_000, 100_000),
        (5, 1 << 20),
    ] {
        for dtype in [DType::I64, DType::I32] {
            let xs: Vec<i64> = (0..n).map(|_| rng.below(bins) as i64).collect();
            let x = match dtype {
                DType::I32 => HostData::I32(xs.iter().map(|&v| v as i32).collect()),
                _ => HostData::I64(xs),
            };
            let w = HostData::F64((0..n).map(|_| rng.unit() * 4.0 - 1.0).collect());
            let ins = vec![("x", x, vec![n]), ("w", w, vec![n])];
            for src in [
                "let r = bincount(x)",
                "let r = bincount(x, minlength=5000)",
                "let r = bincount(x, weights=w)",
                "let r = bincount(x[::2])",
                "let r = bincount(x, weights=w * 2.0, minlength=3)",
                "let r = bincount(x - 1)",
            ] {
                match linalg_case(&format!("{src} n={n} bins={bins} {dtype}"), &ins, src, 1e-9) {
                    Ok(()) => passed += 1,
                    Err(e) => {
                        println!("FAIL {e}");
                        failed.push(e);
                    }
                }
            }
        }
    }
    println!("bincount: {passed} passed, {} failed", failed.len());
    assert!(failed.is_empty(), "failures: {failed:#?}");
}

/// Floats with many ties, both zeros, both infinities and NaNs; integers in a
/// narrow range (ties, and high bytes the sort skips).
fn sort_data(rng: &mut Rng, dtype: DType, n: usize) -> HostData {
    let special = [f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY];
    let f = |rng: &mut Rng, i: usize| -> f64 {
        if i % 11 == 3 {
            special[rng.below(special.len())]
        } else {
            (rng.unit() * 16.0 - 8.0).round() / 4.0
        }
    };
    match dtype {
        DType::F32 => HostData::F32((0..n).map(|i| f(rng, i) as f32).collect()),
        DType::F64 => HostData::F64((0..n).map(|i| f(rng, i)).collect()),
        DType::F16 => HostData::F16((0..n).map(|i| half::f16::from_f64(f(rng, i))).collect()),
        other => data(rng, other, n, Values::Signed),
    }
}

/// sort, argsort (every axis, strided views), boolean-mask selection over the
/// whole array and over leading axes, writes through a mask, nonzero,
/// flatnonzero and histogram: the device's radix sort, compaction and binned
/// bincount against the CPU's stable sort, host compaction and host
/// histogram, element for element (ties keep their order; NaN sorts last).
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn sorts_and_masks_match_cpu() {
    let mut rng = Rng(0x5047_0123_2026_1123);
    let mut failed = Vec::new();
    let mut passed = 0;
    let shapes: &[&[usize]] = &[
        &[1],
        &[7],
        &[4097],
        &[300_001],
        &[3, 5],
        &[300, 257],
        &[257, 300],
        &[4, 5, 6],
    ];
    for &shape in shapes {
        let n: usize = shape.iter().product();
        for dtype in [DType::F32, DType::F64, DType::I32, DType::I64, DType::Bool, DType::F16] {
            if dtype == DType::F16 && n > 5000 {
                continue;
            }
            let ins = vec![("x", sort_data(&mut rng, dtype, n), shape.to_vec())];
            let mut srcs = vec![
                "let r = sort(x)",
                "let r = argsort(x)",
                "let r = sort(x, axis=0)",
                "let r = argsort(x, axis=0)",
                "let r = sort(x, axis=none)",
                "let r = argsort(x, axis=none)",
                "let r = sort(x[::-2])",
                "let r = x[x > 0]",
                "let r = x[x > 0] * 2",
                "let r = flatnonzero(x > 0)",
                "let r = nonzero(x > 0)[0]",
                "let r = copy(x); r[r > 0] = 0",
            ];
            if shape.len() >= 2 {
                srcs.extend([
                    "let r = sort(x, axis=1)",
                    "let r = argsort(x, axis=-2)",
                    "let r = x[x[:, 0] > 0]",
                    "let r = x[:, 1:][x[:, 1:] > 0]",
                    "let r = nonzero(x > 0)[1]",
                ]);
            }
            if dtype == DType::Bool {
                srcs.retain(|s| !s.contains("> 0"));
                srcs.push("let r = x[x]");
            }
            let mut cases: Vec<(&str, f64)> = srcs.into_iter().map(|s| (s, 0.0)).collect();
            if dtype != DType::Bool {
                // equal bins on the device (a bincount of each element's bin); weighted sums
                // add in another order there, so they match to rounding
                cases.extend([
                    ("let r = histogram(x, bins=7, range=(-1.5, 1.0))[0]", 0.0),
                    ("let r = histogram(x, bins=1, range=(0.0, 0.0))[0]", 0.0),
                    (
                        "let r = histogram(x, bins=13, range=(-2.0, 2.0), density=true)[0]",
                        1e-12,
                    ),
                    (
                        "let r = histogram(x, bins=5, range=(-1.0, 1.0), weights=abs(x))[0]",
                        1e-9,
                    ),
                ]);
            }
            if matches!(dtype, DType::I32 | DType::I64) {
                cases.push(("let r = histogram(x, bins=9)[0]", 0.0));
            }
            for (src, tol) in cases {
                match linalg_case(&format!("{src} {shape:?} {dtype}"), &ins, src, tol) {
                    Ok(()) => passed += 1,
                    Err(e) => {
                        println!("FAIL {e}");
                        failed.push(e);
                    }
                }
            }
        }
    }
    println!("sorts and masks: {passed} passed, {} failed", failed.len());
    assert!(failed.is_empty(), "failures: {failed:#?}");
}
