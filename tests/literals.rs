//! Literals meeting arrays of another dtype are converted when the graph is
//! built (`graph::build::cast`), without a cast node. The conversion must be
//! the one the cast kernel makes: each value below goes both ways, as a
//! literal (converted at build time) and as a strong scalar (a cast node the
//! CPU backend computes), and the bits must agree.

use arr::backend::cpu::CpuBackend;
use arr::check::dtype::DType;
use arr::graph::data::HostData;
use arr::graph::{Array, build, to_host};

fn converted(value: &HostData, dtype: DType, weak: bool) -> (HostData, bool) {
    let a = Array::from_host(value.clone(), &[]).with_weak(weak);
    let c = build::cast(&a, dtype, None);
    let ready = c.is_ready();
    (
        to_host(&CpuBackend::new(), &c).expect("a cast of a scalar computes"),
        ready,
    )
}

fn bits(h: &HostData) -> u64 {
    match h {
        HostData::F32(v) => v[0].to_bits() as u64,
        HostData::F64(v) => v[0].to_bits(),
        HostData::I32(v) => v[0] as u32 as u64,
        HostData::I64(v) => v[0] as u64,
        other => panic!("unexpected dtype {:?}", other.dtype()),
    }
}

#[test]
fn literals_convert_as_the_cast_kernel_does() {
    let floats = [
        0.1,
        -0.0,
        1e300,
        -1e300,
        f64::NAN,
        f64::INFINITY,
        3.4028235677973366e38,
        1e-46,
        1.401298464324817e-45,
        0.5 + f64::EPSILON,
        16777217.0,
    ];
    let ints = [
        0,
        -1,
        (1 << 53) + 1,
        i64::MAX,
        i64::MIN,
        1 << 31,
        -(1 << 31) - 1,
        16777217,
        (1 << 24) + 3,
    ];
    let mut cases: Vec<(HostData, DType)> = floats.iter().map(|&f| (HostData::F64(vec![f]), DType::F32)).collect();
    for &i in &ints {
        for dtype in [DType::F32, DType::F64, DType::I32] {
            cases.push((HostData::I64(vec![i]), dtype));
        }
    }
    for (value, dtype) in &cases {
        let (literal, folded) = converted(value, *dtype, true);
        let (kernel, built) = converted(value, *dtype, false);
        assert!(folded, "{value:?} -> {dtype} as a literal is converted at build time");
        assert!(!built, "{value:?} -> {dtype} as a strong scalar is a cast node");
        assert_eq!(literal.dtype(), *dtype);
        assert_eq!(
            bits(&literal),
            bits(&kernel),
            "{value:?} -> {dtype}: literal {literal:?}, cast kernel {kernel:?}"
        );
    }
}
