//! `partition` and `argpartition` against their definition. A partition is
//! not unique (NumPy leaves the order on either side of each kth open), so
//! instead of NumPy's arrays these tests hold the results to the property
//! that defines them, for each line along the axis: at every kth the element
//! a full sort puts there (in NumPy's order: NaN last, -0.0 equal to 0.0),
//! nothing greater before it and nothing less after, the line's own values
//! in some order; argpartition's indices a permutation of the line's
//! positions whose gathered values have that property. Lengths 0 to 300_000,
//! f32, f64, i32 and i64 with NaN, both zeros, infinities and repeats, axes
//! 0, -1 and none of 2-D arrays, one kth, negative ones and lists. The
//! deterministic parts (the kth elements, errors) are in NumPy's goldens too
//! (`tests/golden/make_index_sort.py`).

use arr::backend::cpu::CpuBackend;
use arr::graph::data::HostData;
use arr::{HostArray, Session};
use std::cmp::Ordering;
use std::fmt::Debug;
use std::rc::Rc;

/// An element type of the tests, compared in NumPy's order.
trait Elem: Copy + PartialOrd + Debug {
    fn nan(self) -> bool;
    fn of(data: HostData) -> Vec<Self>;
    fn host(v: Vec<Self>) -> HostData;
    /// The bits, so that a permutation check tells -0.0 from 0.0.
    fn bits(self) -> u64;
    /// A value from a random word: repeats, and NaN, both zeros and the
    /// extremes now and then.
    fn draw(r: u64) -> Self;
}

/// NumPy's sort order: numbers ascending (-0.0 equal to 0.0), NaN last.
fn np_order<T: Elem>(a: T, b: T) -> Ordering {
    match (a.nan(), b.nan()) {
        (false, false) => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
    }
}

macro_rules! float_elem {
    ($t:ty, $v:ident) => {
        impl Elem for $t {
            fn nan(self) -> bool {
                self.is_nan()
            }
            fn of(data: HostData) -> Vec<Self> {
                match data {
                    HostData::$v(v) => v,
                    other => panic!("expected {}, got {:?}", stringify!($t), other.dtype()),
                }
            }
            fn host(v: Vec<Self>) -> HostData {
                HostData::$v(v)
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn draw(r: u64) -> Self {
                match r % 23 {
                    0 => <$t>::NAN,
                    1 => -0.0,
                    2 => 0.0,
                    3 => <$t>::INFINITY,
                    4 => <$t>::NEG_INFINITY,
                    _ => ((r >> 8) % 1001) as $t / 8.0 - 60.0,
                }
            }
        }
    };
}
float_elem!(f32, F32);
float_elem!(f64, F64);

macro_rules! int_elem {
    ($t:ty, $v:ident) => {
        impl Elem for $t {
            fn nan(self) -> bool {
                false
            }
            fn of(data: HostData) -> Vec<Self> {
                match data {
                    HostData::$v(v) => v,
                    other => panic!("expected {}, got {:?}", stringify!($t), other.dtype()),
                }
            }
            fn host(v: Vec<Self>) -> HostData {
                HostData::$v(v)
            }
            fn bits(self) -> u64 {
                self as u64
            }
            fn draw(r: u64) -> Self {
                match r % 31 {
                    0 => <$t>::MIN,
                    1 => <$t>::MAX,
                    _ => ((r >> 8) % 2001) as $t - 1000,
                }
            }
        }
    };
}
int_elem!(i32, I32);
int_elem!(i64, I64);

fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// The lines of a row-major `shape` along `axis` (`None`: the flattened
/// array), each as the flat positions of its elements.
fn lines(shape: &[usize], axis: Option<usize>) -> Vec<Vec<usize>> {
    let size: usize = shape.iter().product();
    let Some(axis) = axis else {
        return vec![(0..size).collect()];
    };
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    (0..outer * inner)
        .map(|l| {
            let (o, i) = (l / inner, l % inner);
            (0..len).map(|k| o * len * inner + k * inner + i).collect()
        })
        .collect()
}

/// A line of the input, with what the checks compare against: its values
/// sorted in NumPy's order, and its values' bits sorted.
struct Line<T> {
    positions: Vec<usize>,
    values: Vec<T>,
    sorted: Vec<T>,
    bits: Vec<u64>,
}

impl<T: Elem> Line<T> {
    fn new(all: &[T], positions: Vec<usize>) -> Line<T> {
        let values: Vec<T> = positions.iter().map(|&p| all[p]).collect();
        let mut sorted = values.clone();
        sorted.sort_by(|&x, &y| np_order(x, y));
        let mut bits: Vec<u64> = values.iter().map(|x| x.bits()).collect();
        bits.sort_unstable();
        Line {
            positions,
            values,
            sorted,
            bits,
        }
    }

    /// Whether `got` is this line partitioned at every one of `kth` (normalised).
    fn holds(&self, got: &[T], kth: &[usize]) -> Result<(), String> {
        let mut b: Vec<u64> = got.iter().map(|x| x.bits()).collect();
        b.sort_unstable();
        if self.bits != b {
            return Err("not a permutation of the line's values".into());
        }
        // each kth against the sorted line, and the parts between consecutive
        // kth against both of their ends: that is every element against every kth
        let mut ks = kth.to_vec();
        ks.sort_unstable();
        ks.dedup();
        for (j, &k) in ks.iter().enumerate() {
            if np_order(got[k], self.sorted[k]) != Ordering::Equal {
                return Err(format!(
                    "at kth {k}: {:?}, a sort puts {:?} there",
                    got[k], self.sorted[k]
                ));
            }
            let lo = if j == 0 { 0 } else { ks[j - 1] + 1 };
            if let Some(x) = got[lo..k].iter().find(|&&x| np_order(x, got[k]) == Ordering::Greater) {
                return Err(format!("{x:?} before kth {k} ({:?})", got[k]));
            }
            let hi = ks.get(j + 1).copied().unwrap_or(got.len());
            if let Some(x) = got[k + 1..hi].iter().find(|&&x| np_order(x, got[k]) == Ordering::Less) {
                return Err(format!("{x:?} after kth {k} ({:?})", got[k]));
            }
        }
        Ok(())
    }
}

/// `kth` as given in the source, and normalised against a line of `n`.
fn kth_cases(n: usize, next: &mut impl FnMut() -> u64) -> Vec<(String, Vec<usize>)> {
    if n == 0 {
        // NumPy does not look at kth when the array is empty
        return vec![("0".into(), vec![]), ("[3, -9]".into(), vec![])];
    }
    let ni = n as i64;
    let norm = |k: i64| (if k < 0 { k + ni } else { k }) as usize;
    let mut cases: Vec<Vec<i64>> = vec![vec![0], vec![ni - 1], vec![ni / 2], vec![-1], vec![-ni]];
    let mut list: Vec<i64> = (0..5).map(|_| (next() % n as u64) as i64).collect();
    list.push(-1);
    list.push(list[0]);
    cases.push(list);
    let mut scalar = Vec::new();
    for c in cases {
        let src = if c.len() == 1 {
            c[0].to_string()
        } else {
            format!("[{}]", c.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(", "))
        };
        scalar.push((src, c.iter().map(|&k| norm(k)).collect()));
    }
    scalar
}

fn run<T: Elem>(session: &mut Session, src: &str, shape: &[usize], dtype: &str) -> (Vec<T>, Vec<usize>) {
    session
        .eval(src)
        .unwrap_or_else(|d| panic!("{src} ({dtype} {shape:?}): {}", session.render(&d, false)));
    let r = session.get("r").expect("r");
    (T::of(r.data), r.shape)
}

/// Every kth case and axis of one array of `shape`.
fn check_array<T: Elem>(session: &mut Session, shape: &[usize], dtype: &str, next: &mut impl FnMut() -> u64) {
    let size: usize = shape.iter().product();
    let values: Vec<T> = (0..size).map(|_| T::draw(next())).collect();
    session
        .set(
            "x",
            HostArray {
                data: T::host(values.clone()),
                shape: shape.to_vec(),
            },
        )
        .expect("set x");
    let mut axes: Vec<(String, Option<usize>)> = vec![("-1".into(), Some(shape.len() - 1)), ("none".into(), None)];
    if shape.len() == 2 {
        axes.push(("0".into(), Some(0)));
    }
    for (axis_src, axis) in axes {
        let n = match axis {
            Some(a) => shape[a],
            None => size,
        };
        let out_shape = match axis {
            Some(_) => shape.to_vec(),
            None => vec![size],
        };
        // the flattened array's one line is all of its positions, as in its output
        let checked: Vec<Line<T>> = lines(&out_shape, axis)
            .into_iter()
            .map(|positions| Line::new(&values, positions))
            .collect();
        for (kth_src, kth) in kth_cases(n, next) {
            let what = format!("{dtype} {shape:?} axis={axis_src} kth={kth_src}");
            let (got, got_shape) = run::<T>(
                session,
                &format!("let r = partition(x, {kth_src}, axis={axis_src})"),
                shape,
                dtype,
            );
            assert_eq!(got_shape, out_shape, "partition's shape, {what}");
            let (idx, idx_shape) = run::<i64>(
                session,
                &format!("let r = argpartition(x, {kth_src}, axis={axis_src})"),
                shape,
                dtype,
            );
            assert_eq!(idx_shape, out_shape, "argpartition's shape, {what}");
            for line in &checked {
                let parted: Vec<T> = line.positions.iter().map(|&p| got[p]).collect();
                line.holds(&parted, &kth)
                    .unwrap_or_else(|e| panic!("partition, {what}: {e}"));
                let n = line.values.len();
                let mut seen = vec![false; n];
                let gathered: Vec<T> = line
                    .positions
                    .iter()
                    .map(|&p| {
                        let j = idx[p];
                        assert!(
                            (0..n as i64).contains(&j) && !seen[j as usize],
                            "argpartition, {what}: index {j} out of the line or repeated"
                        );
                        seen[j as usize] = true;
                        line.values[j as usize]
                    })
                    .collect();
                line.holds(&gathered, &kth)
                    .unwrap_or_else(|e| panic!("argpartition, {what}: {e}"));
            }
        }
    }
}

fn check_all(mut make: impl FnMut() -> Session, lengths: &[usize]) {
    let mut next = xorshift(0x5eed_1234_abcd);
    let mut session = make();
    for &n in lengths {
        // 1-D, then 2-D both ways round (the long axis last and first)
        let mut shapes = vec![vec![n], vec![3, n]];
        if n <= 10_000 {
            shapes.push(vec![n, 3]);
        }
        for shape in &shapes {
            check_array::<f32>(&mut session, shape, "f32", &mut next);
            check_array::<f64>(&mut session, shape, "f64", &mut next);
            check_array::<i32>(&mut session, shape, "i32", &mut next);
            check_array::<i64>(&mut session, shape, "i64", &mut next);
        }
    }
}

#[test]
fn partitions_hold_their_definition() {
    check_all(Session::cpu, &[0, 1, 2, 100, 10_000, 300_000]);
}

#[test]
fn partitions_hold_on_the_reference_executor() {
    check_all(|| Session::with_backend(Rc::new(CpuBackend::reference())), &[0, 2, 100]);
}

#[test]
fn partition_of_views_and_many_kth() {
    // a transposed, strided view (gathered, not read in place), and kth
    // that cover every position of a line: the full sort
    let mut session = Session::cpu();
    let src = "let m = transpose(reshape((arange(600) * 37 % 101) as f32, [20, 30]))[::2]\n\
               let r = partition(m, arange(20), axis=1)\n\
               let s = sort(m, axis=1)\n\
               let same = array_equal(r, s)";
    session
        .eval(src)
        .unwrap_or_else(|d| panic!("{}", session.render(&d, false)));
    let same = session.get("same").expect("same");
    assert_eq!(same.data, HostData::Bool(vec![true]));
    let src = "let i = argpartition(m, [3, 7, 12], axis=0)\n\
               let g = take_along_axis(m, i, 0)\n\
               let ok = all(g[3] == sort(m, axis=0)[3]) and all(g[:3] <= g[3]) and all(g[4:7] >= g[3])";
    session
        .eval(src)
        .unwrap_or_else(|d| panic!("{}", session.render(&d, false)));
    assert_eq!(session.get("ok").expect("ok").data, HostData::Bool(vec![true]));
}

#[test]
fn kth_errors_are_numpys() {
    // (source, code): the checker finds constant ones, the run computed ones
    for (src, code, static_too) in [
        ("let r = partition(arange(5), 5)", "E0204", true),
        ("let r = partition(arange(5), -6)", "E0204", true),
        ("let r = argpartition(zeros([3, 4]), [1, 4])", "E0204", true),
        ("let r = argpartition(zeros([3, 4]), 3, axis=0)", "E0204", true),
        ("let r = partition(zeros([3, 4]), 12, axis=none)", "E0204", true),
        (
            "let k = sum(ones([5]) as i64)\nlet r = partition(arange(5), k)",
            "E0204",
            false,
        ),
        ("let r = partition(arange(5), 1.0)", "E0300", true),
        ("let r = partition(arange(5), true)", "E0300", true),
        ("let r = partition(arange(5), [[1]])", "E0212", true),
        ("let r = partition(zeros([3, 4]), 1, axis=2)", "E0201", true),
        ("let r = partition(3.0, 0)", "E0201", true),
        ("let r = partition(arange(5), 1, kind=\"quick\")", "E0413", true),
    ] {
        let mut session = Session::cpu();
        session.set_output(Box::new(std::io::sink()));
        match session.eval(src) {
            Err(d) => assert!(
                d.iter().any(|d| d.code == code),
                "{src:?}: run gave {:?}, expected {code}",
                d.iter().map(|d| d.code).collect::<Vec<_>>()
            ),
            Ok(_) => panic!("{src:?} ran, expected {code}"),
        }
        if static_too {
            let diags = Session::cpu().check("t.arr", src);
            assert!(
                diags.iter().any(|d| d.code == code),
                "{src:?}: check gave {:?}, expected {code}",
                diags.iter().map(|d| d.code).collect::<Vec<_>>()
            );
        }
    }
    // an empty array takes any kth, as NumPy
    let mut session = Session::cpu();
    session
        .eval("let r = argpartition(zeros([0, 3]), 7, axis=0)")
        .unwrap_or_else(|d| panic!("{}", session.render(&d, false)));
    let r = session.get("r").expect("r");
    assert_eq!((r.data, r.shape), (HostData::I64(vec![]), vec![0, 3]));
}
