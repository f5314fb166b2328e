//! `arr explain` for a GPU shows which module each kernel gets: specialised
//! for a kernel's first shape, shape-generic (one module for the class) for
//! every later shape of its class, as the CUDA backend chooses them
//! (`backend/cuda/classes.rs`). No GPU needed: the plan is made for the
//! planner's reference device while the CPU computes the values.

use arr::plan::DeviceInfo;
use arr::session::Session;

fn explain(source: &str, device: Option<DeviceInfo>) -> String {
    let mut s = Session::cpu();
    s.start_explaining(device);
    s.run_source("t.arr", source).expect("the program runs");
    s.explain_report()
}

/// The `module:` lines of a report, in order.
fn modules(report: &str) -> Vec<String> {
    report
        .lines()
        .filter_map(|l| l.trim().strip_prefix("module: "))
        .map(str::to_string)
        .collect()
}

const LU: &str = "let n = 4
let a = rand([n, n], dtype=f64) + n * eye(n, dtype=f64)
for k in 0..n-1 {
    a[k+1:, k] = a[k+1:, k] / a[k, k]
    a[k+1:, k+1:] = a[k+1:, k+1:] - a[k+1:, k:k+1] * a[k:k+1, k+1:]
}
print(sum(a))
";

#[test]
fn lu_kernels_are_specialised_first_then_shape_generic() {
    let report = explain(LU, Some(DeviceInfo::reference()));
    insta::assert_snapshot!("explain_lu_kinds", report);
}

#[test]
fn a_shrinking_slice_goes_generic_and_a_repeated_shape_stays_specialised() {
    // the column division meets sizes 3, 2, 1: its class is met first at 3
    let m = modules(&explain(LU, Some(DeviceInfo::reference())));
    assert!(m.iter().any(|l| l.starts_with("specialised, shape class")), "{m:?}");
    assert!(m.iter().any(|l| l.starts_with("shape-generic, shape class")), "{m:?}");
    // one shape, five times: one specialised module, never a generic one
    let same = "let x = rand([300])
for i in 0..5 { print(sum(x * 2.0)) }
";
    let m = modules(&explain(same, Some(DeviceInfo::reference())));
    assert!(!m.is_empty());
    assert!(m.iter().all(|l| l.starts_with("specialised")), "{m:?}");
    // the same kernel at a second size: that size gets the generic module of the first's class
    let two = "for i in 1..3 { print((rand([1000 * i]) * 2.0)[0]) }
print((rand([1000]) * 2.0)[0])
";
    let report = explain(two, Some(DeviceInfo::reference()));
    // the first size, met again, keeps its specialised module: the same text as
    // its first run, so the report counts it under the first realize
    assert!(report.contains("realize 1 (ran 2 times)"), "{report}");
    let m = modules(&report);
    let class = |l: &String| l.rsplit(' ').next().unwrap_or("").to_string();
    let generic: Vec<&String> = m.iter().filter(|l| l.starts_with("shape-generic")).collect();
    assert!(!generic.is_empty(), "{m:?}");
    for g in generic {
        assert!(
            m.iter().any(|l| l.starts_with("specialised") && class(l) == class(g)),
            "a generic module without its class's specialised first: {m:?}"
        );
    }
}

#[test]
fn a_cpu_explain_has_no_module_lines() {
    let report = explain(LU, None);
    assert!(modules(&report).is_empty(), "{report}");
}

/// Arithmetic on host scalars is computed once on the host, also where the
/// builder casts it to the array's dtype (`g / 2` is f64, `h` is f32): the
/// kernel multiplies by one f32 instead of dividing and casting per element.
#[test]
fn host_scalar_arithmetic_is_folded_out_of_kernels() {
    let source = "let g = 9.8\nlet h = arange(5) as f32\nlet y = g / 2 * h + 1\nprint(y)\n";
    let report = explain(source, None);
    let ops: Vec<&str> = report.lines().filter(|l| l.trim().starts_with("fused ops:")).collect();
    // the one cast left is h's own (`arange(5) as f32`), fused into the kernel
    assert_eq!(
        ops.last().map(|l| l.trim()),
        Some("fused ops: cast<f32>, mul, add"),
        "{report}"
    );
    let mut s = Session::cpu();
    s.run_source("t.arr", source).expect("the program runs");
    let y = s.get("y").expect("y exists").to_f64_vec();
    // the oracle: NumPy's float32(9.8 / 2) * h + 1, each step rounded to f32
    let g2 = (9.8f64 / 2.0) as f32;
    let want: Vec<f64> = (0..5).map(|i| (g2 * i as f32 + 1.0) as f64).collect();
    assert_eq!(y, want);
}
