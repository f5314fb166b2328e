//! Kernels that are not elementwise or reductions: matmul (via the
//! `matrixmultiply` crate for floats, which reads any strides in place),
//! concat, arange, random and take.

use super::{CHUNK, Elem, Layout, Num, PAR_THRESHOLD, Val, fill, internal, map1, typed};
#[cfg(target_arch = "x86_64")]
use crate::backend::cpu::vmath::simd;
use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::graph::data::HostData;
use crate::graph::op::Distribution;
use crate::graph::random;
use crate::graph::view::View;
use rayon::prelude::*;

type Input<'a> = (&'a HostData, &'a View);

/// Multiply-adds at least this large are split over threads by row blocks.
const PAR_FLOPS: usize = 1 << 22;

trait Gemm: Num {
    /// C (m x n, contiguous) = A B, for A and B given by pointer and element strides.
    ///
    /// # Safety
    /// Every A[i, p] and B[p, j] address must lie inside a live allocation; `c` must hold m * n elements.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        a: *const Self,
        rsa: isize,
        csa: isize,
        b: *const Self,
        rsb: isize,
        csb: isize,
        c: *mut Self,
    );

    /// `out[r] = dot(rows[r], x)` for rows as long as `x`, `DOT_ROWS` a
    /// pass, bitwise what `dot` gives row by row.
    fn dots(rows: &[&[Self]], x: &[Self], out: &mut [Self]);
}

macro_rules! impl_gemm {
    ($t:ty, $f:path, $v:ident) => {
        impl Gemm for $t {
            unsafe fn gemm(
                m: usize,
                k: usize,
                n: usize,
                a: *const Self,
                rsa: isize,
                csa: isize,
                b: *const Self,
                rsb: isize,
                csb: isize,
                c: *mut Self,
            ) {
                // SAFETY: forwarded from the caller; C is row-major m x n, so its strides never alias.
                unsafe { $f(m, k, n, 1.0, a, rsa, csa, b, rsb, csb, 0.0, c, n as isize, 1) }
            }

            fn dots(rows: &[&[Self]], x: &[Self], out: &mut [Self]) {
                #[cfg(target_arch = "x86_64")]
                if crate::backend::cpu::block::has_avx2() && rows.iter().all(|r| r.len() == x.len()) {
                    // SAFETY: the CPU supports AVX2 and FMA (checked at run time), and
                    // every row is as long as `x` (checked above).
                    return unsafe { dots_avx2::<simd::$v>(rows, x, out) };
                }
                for (o, r) in out.iter_mut().zip(rows) {
                    *o = dot(r, x);
                }
            }
        }
    };
}

impl_gemm!(f32, matrixmultiply::sgemm, F32x8);
impl_gemm!(f64, matrixmultiply::dgemm, F64x4);

fn rows_per_block(m: usize, k: usize, n: usize) -> usize {
    if m * k * n < PAR_FLOPS {
        return m.max(1);
    }
    m.div_ceil(rayon::current_num_threads() * 4).max(1)
}

fn gemm_views<T: Gemm>(a: &[T], va: &View, b: &[T], vb: &View) -> Vec<T> {
    let (m, k, n) = (va.shape[0], va.shape[1], vb.shape[1]);
    if m * n == 0 || k == 0 {
        return vec![T::ZERO; m * n];
    }
    // a product with a vector: GEMM would pack the whole matrix for it
    if n == 1
        && let Some(c) = gemv(a, va, &map1(b, vb, |x| x))
    {
        return c;
    }
    if m == 1
        && let Some(c) = gemv(b, &vb.permute(&[1, 0]), &map1(a, va, |x| x))
    {
        return c;
    }
    let mut c = vec![T::ZERO; m * n];
    let rows = rows_per_block(m, k, n);
    let (rsa, csa, rsb, csb) = (va.strides[0], va.strides[1], vb.strides[0], vb.strides[1]);
    let block = |blk: usize, part: &mut [T]| {
        let i0 = blk * rows;
        let a0 = va.offset as isize + i0 as isize * rsa;
        // SAFETY: `eval` checked that both views lie inside their buffers, so every
        // A[i, p] (i in this block) and B[p, j] the kernel reads is in bounds; `part`
        // holds exactly (part.len() / n) rows of n elements.
        unsafe {
            T::gemm(
                part.len() / n,
                k,
                n,
                a.as_ptr().wrapping_offset(a0),
                rsa,
                csa,
                b.as_ptr().wrapping_add(vb.offset),
                rsb,
                csb,
                part.as_mut_ptr(),
            )
        }
    };
    if rows >= m {
        block(0, &mut c);
    } else {
        c.par_chunks_mut(rows * n)
            .enumerate()
            .for_each(|(blk, part)| block(blk, part));
    }
    c
}

/// Lanes of a dot product: enough independent adds to hide their latency.
const DOT_LANES: usize = 16;

/// Rows of a matrix-vector product that one pass over `x` serves
/// (`Gemm::dots`): each chunk of `x` is loaded once for all of them, so a
/// pass reads little besides the rows themselves.
const DOT_ROWS: usize = 4;

/// `Gemm::dots` on AVX2: `N <= DOT_ROWS` rows at a time, each with `DOT_LANES` lanes
/// held as `DOT_LANES / V::N` vectors, lane j of a row taking elements j,
/// j + 16, ... as `dot_impl`'s lane j does, with the same multiply then
/// add (not fused), so that each result is bitwise `dot`'s.
///
/// # Safety
/// AVX2 and FMA must be present; every row must be as long as `x`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dots_avx2<V: simd::Vf>(rows: &[&[V::S]], x: &[V::S], out: &mut [V::S])
where
    V::S: Num,
{
    /// # Safety
    /// As `dots_avx2`.
    #[inline(always)]
    unsafe fn pass<V: simd::Vf, const N: usize>(rows: &[&[V::S]], x: &[V::S], out: &mut [V::S])
    where
        V::S: Num,
    {
        let k = x.len();
        let per = DOT_LANES / V::N;
        let chunks = k / DOT_LANES;
        let rows: [&[V::S]; N] = std::array::from_fn(|r| rows[r]);
        // per <= 4 vectors a row: a vector holds at least 4 lanes
        let mut acc = [[V::splat(0.0); DOT_LANES / 4]; N];
        for c in 0..chunks {
            for v in 0..per {
                let at = c * DOT_LANES + v * V::N;
                // SAFETY: at + V::N <= chunks * DOT_LANES <= k, and every row holds k elements.
                let xv = unsafe { V::load(x.as_ptr().add(at)) };
                for (row, acc) in rows.iter().zip(&mut acc) {
                    // SAFETY: as for `xv`.
                    let a = unsafe { V::load(row.as_ptr().add(at)) };
                    acc[v] = acc[v] + a * xv;
                }
            }
        }
        let tail = chunks * DOT_LANES;
        for ((row, acc), o) in rows.iter().zip(&acc).zip(out.iter_mut()) {
            let mut lanes = [V::S::ZERO; DOT_LANES];
            for (v, a) in acc[..per].iter().enumerate() {
                // SAFETY: lanes holds DOT_LANES = per * V::N elements.
                unsafe { a.store(lanes.as_mut_ptr().add(v * V::N)) };
            }
            for ((l, &p), &q) in lanes.iter_mut().zip(&row[tail..]).zip(&x[tail..]) {
                *l = l.add(p.mul(q));
            }
            *o = tree_sum(lanes);
        }
    }
    for (rows, out) in rows.chunks(DOT_ROWS).zip(out.chunks_mut(DOT_ROWS)) {
        // SAFETY: forwarded from the caller.
        unsafe {
            match rows.len() {
                1 => pass::<V, 1>(rows, x, out),
                2 => pass::<V, 2>(rows, x, out),
                3 => pass::<V, 3>(rows, x, out),
                _ => pass::<V, DOT_ROWS>(rows, x, out),
            }
        }
    }
}

/// The lanes of a dot product added as a tree: halves, then quarters, and so on.
#[inline(always)]
fn tree_sum<T: Num>(mut lanes: [T; DOT_LANES]) -> T {
    let mut h = DOT_LANES;
    while h > 1 {
        h /= 2;
        for j in 0..h {
            lanes[j] = lanes[j].add(lanes[j + h]);
        }
    }
    lanes[0]
}

/// `A x` of an m x k view `va` of `a` and a contiguous `x`, where A's rows
/// or its columns are contiguous; `None` for other layouts (GEMM then
/// reads them). Contiguous rows are dot products with `x`, sixteen lanes
/// combined as a tree; contiguous columns are added into the result scaled
/// by `x`'s elements, a block of rows at a time. Rows split over threads.
fn gemv<T: Gemm>(a: &[T], va: &View, x: &[T]) -> Option<Vec<T>> {
    let (m, k) = (va.shape[0], va.shape[1]);
    let (rs, cs) = (va.strides[0], va.strides[1]);
    let by_rows = cs == 1 || k == 1;
    if !by_rows && rs != 1 && m != 1 {
        return None;
    }
    let at = |i: usize, p: usize| va.offset as isize + i as isize * rs + p as isize * cs;
    // `eval` checked that the view lies inside `a`; its corners are checked
    // again so that a view that somehow does not goes to GEMM, not to a panic
    if at(0, 0) < 0 || at(m - 1, k - 1) as usize >= a.len() || va.offset >= a.len() {
        return None;
    }
    if !by_rows && m <= SHORT_COLUMNS && cs >= m as isize {
        return Some(short_columns(a, va.offset, cs as usize, m, x));
    }
    let rows = if m * k >= PAR_THRESHOLD {
        m.div_ceil(rayon::current_num_threads() * 4).max(1)
    } else {
        m
    };
    let mut y = vec![T::ZERO; m];
    let block = |blk: usize, part: &mut [T]| {
        let i0 = blk * rows;
        if by_rows {
            for (g, outs) in part.chunks_mut(DOT_ROWS).enumerate() {
                let row = |r: usize| {
                    let start = at(i0 + g * DOT_ROWS + r, 0) as usize;
                    &a[start..start + k]
                };
                let rows: [&[T]; DOT_ROWS] = std::array::from_fn(|r| if r < outs.len() { row(r) } else { &[] });
                T::dots(&rows[..outs.len()], x, outs);
            }
        } else {
            // four columns a pass: the block of `y` is loaded and stored once for
            // four of them, the adds in the same order as one column at a time
            let len = part.len();
            let col = |p: usize| {
                let start = at(i0, p) as usize;
                &a[start..start + len]
            };
            let mut quads = x.chunks_exact(4);
            for (q, xs) in (&mut quads).enumerate() {
                let p = 4 * q;
                axpy4(
                    part,
                    [xs[0], xs[1], xs[2], xs[3]],
                    [col(p), col(p + 1), col(p + 2), col(p + 3)],
                );
            }
            let done = x.len() - quads.remainder().len();
            for (p, &xp) in quads.remainder().iter().enumerate() {
                axpy(part, xp, col(done + p));
            }
        }
    };
    if rows >= m {
        block(0, &mut y);
    } else {
        y.par_chunks_mut(rows)
            .enumerate()
            .for_each(|(blk, part)| block(blk, part));
    }
    Some(y)
}

#[inline(always)]
fn dot_impl<T: Num>(a: &[T], b: &[T]) -> T {
    let mut lanes = [T::ZERO; DOT_LANES];
    let mut ca = a.chunks_exact(DOT_LANES);
    let mut cb = b.chunks_exact(DOT_LANES);
    for (u, v) in (&mut ca).zip(&mut cb) {
        for ((l, &p), &q) in lanes.iter_mut().zip(u).zip(v) {
            *l = l.add(p.mul(q));
        }
    }
    for ((l, &p), &q) in lanes.iter_mut().zip(ca.remainder()).zip(cb.remainder()) {
        *l = l.add(p.mul(q));
    }
    tree_sum(lanes)
}

crate::backend::cpu::block::avx2_dispatch! {
    /// The dot product of two slices of one length.
    #[inline(always)]
    fn dot<T: Num>(a: &[T], b: &[T]) -> T = dot_impl;
}

#[inline(always)]
fn axpy_impl<T: Num>(y: &mut [T], s: T, x: &[T]) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o = o.add(s.mul(v));
    }
}

crate::backend::cpu::block::avx2_dispatch! {
    /// `y += s * x`.
    #[inline(always)]
    fn axpy<T: Num>(y: &mut [T], s: T, x: &[T]) = axpy_impl;
}

/// The longest contiguous column that `short_columns` takes: its partial
/// results stay in L1.
const SHORT_COLUMNS: usize = 256;

/// Columns of `short_columns` a chunk (a task, and one partial result).
const COLUMN_CHUNK: usize = 4096;

/// `A x` for an m x k matrix of short contiguous columns (`A = transpose(X)`
/// of a tall X, so `transpose(X) @ g` and `g @ X`), column p of m elements
/// at `offset + p * cs` of `a`: the columns are cut into chunks along k, each
/// chunk's columns scaled by `x` and added into a partial result of m
/// values, the partials added in chunk order. Splitting the rows instead
/// would read each row of X once per block of outputs.
fn short_columns<T: Gemm>(a: &[T], offset: usize, cs: usize, m: usize, x: &[T]) -> Vec<T> {
    let k = x.len();
    let partial = |c: usize| -> Vec<T> {
        let (p0, p1) = (c * COLUMN_CHUNK, ((c + 1) * COLUMN_CHUNK).min(k));
        let mut y = vec![T::ZERO; m];
        scaled_columns(&mut y, &x[p0..p1], &a[offset + p0 * cs..], cs);
        y
    };
    let chunks = k.div_ceil(COLUMN_CHUNK);
    let partials: Vec<Vec<T>> = if m * k >= PAR_THRESHOLD {
        (0..chunks).into_par_iter().map(partial).collect()
    } else {
        (0..chunks).map(partial).collect()
    };
    let mut parts = partials.into_iter();
    let mut y = parts.next().unwrap_or_else(|| vec![T::ZERO; m]);
    for part in parts {
        for (o, &v) in y.iter_mut().zip(&part) {
            *o = o.add(v);
        }
    }
    y
}

#[inline(always)]
fn scaled_columns_impl<T: Num>(y: &mut [T], xs: &[T], a: &[T], cs: usize) {
    let m = y.len();
    for (j, &s) in xs.iter().enumerate() {
        let col = &a[j * cs..j * cs + m];
        for (o, &v) in y.iter_mut().zip(col) {
            *o = o.add(s.mul(v));
        }
    }
}

crate::backend::cpu::block::avx2_dispatch! {
    /// `y += xs[j] * a[j * cs..j * cs + y.len()]` for each j, in order.
    #[inline(always)]
    fn scaled_columns<T: Num>(y: &mut [T], xs: &[T], a: &[T], cs: usize) = scaled_columns_impl;
}

#[inline(always)]
fn axpy4_impl<T: Num>(y: &mut [T], s: [T; 4], x: [&[T]; 4]) {
    let n = y.len();
    let [x0, x1, x2, x3] = x.map(|c| &c[..n]);
    for i in 0..n {
        y[i] = y[i]
            .add(s[0].mul(x0[i]))
            .add(s[1].mul(x1[i]))
            .add(s[2].mul(x2[i]))
            .add(s[3].mul(x3[i]));
    }
}

crate::backend::cpu::block::avx2_dispatch! {
    /// `y += s0 * x0`, then `+= s1 * x1`, and so on: four `axpy`s in one pass.
    #[inline(always)]
    fn axpy4<T: Num>(y: &mut [T], s: [T; 4], x: [&[T]; 4]) = axpy4_impl;
}

/// Row-by-row i-k-j product of contiguous operands, `acc = fma(acc, a, b)`.
fn loop_matmul<T: Elem>(
    a: &[T],
    b: &[T],
    (m, k, n): (usize, usize, usize),
    zero: T,
    fma: impl Fn(T, T, T) -> T + Sync,
) -> Vec<T> {
    let mut c = vec![zero; m * n];
    if m * n == 0 {
        return c;
    }
    let rows = rows_per_block(m, k, n);
    let block = |blk: usize, part: &mut [T]| {
        for (r, row) in part.chunks_mut(n).enumerate() {
            let i = blk * rows + r;
            for p in 0..k {
                let x = a[i * k + p];
                for (o, &y) in row.iter_mut().zip(&b[p * n..(p + 1) * n]) {
                    *o = fma(*o, x, y);
                }
            }
        }
    };
    if rows >= m {
        block(0, &mut c);
    } else {
        c.par_chunks_mut(rows * n)
            .enumerate()
            .for_each(|(blk, part)| block(blk, part));
    }
    c
}

pub(super) fn matmul((a, va): Input, (b, vb): Input) -> Result<HostData, Diagnostic> {
    if va.rank() == 3 && vb.rank() == 3 && va.shape[0] == vb.shape[0] {
        // a stack: one product per batch item, joined along the rows
        let (count, m, n) = (va.shape[0], va.shape[1], vb.shape[2]);
        let parts: Vec<HostData> = (0..count)
            .into_par_iter()
            .map(|i| matmul((a, &va.select_axis(0, i)), (b, &vb.select_axis(0, i))))
            .collect::<Result<_, _>>()?;
        let part_view = View::contiguous(&[m, n]);
        let inputs: Vec<Input> = parts.iter().map(|p| (p, &part_view)).collect();
        return concat(0, a.dtype(), &[count * m, n], &inputs);
    }
    if va.rank() != 2 || vb.rank() != 2 || va.shape[1] != vb.shape[0] {
        return Err(internal(format!("matmul of shapes {:?} and {:?}", va.shape, vb.shape)));
    }
    let dims = (va.shape[0], va.shape[1], vb.shape[1]);
    Ok(match (a, b) {
        (HostData::F32(x), HostData::F32(y)) => HostData::F32(gemm_views(x, va, y, vb)),
        (HostData::F64(x), HostData::F64(y)) => HostData::F64(gemm_views(x, va, y, vb)),
        (HostData::I32(x), HostData::I32(y)) => HostData::I32(loop_matmul(
            &map1(x, va, |v| v),
            &map1(y, vb, |v| v),
            dims,
            0,
            |c, x, y| c.add(x.mul(y)),
        )),
        (HostData::I64(x), HostData::I64(y)) => HostData::I64(loop_matmul(
            &map1(x, va, |v| v),
            &map1(y, vb, |v| v),
            dims,
            0,
            |c, x, y| c.add(x.mul(y)),
        )),
        (HostData::Bool(x), HostData::Bool(y)) => HostData::Bool(loop_matmul(
            &map1(x, va, |v| v),
            &map1(y, vb, |v| v),
            dims,
            false,
            |c, x, y| c || (x && y),
        )),
        _ => return Err(internal(format!("matmul of {} and {}", a.dtype(), b.dtype()))),
    })
}

pub(super) fn concat(axis: usize, dtype: DType, shape: &[usize], inputs: &[Input]) -> Result<HostData, Diagnostic> {
    let rank = shape.len();
    let mut along = 0;
    for (_, v) in inputs {
        let fits = v.rank() == rank && (0..rank).all(|k| k == axis || v.shape[k] == shape[k]);
        if axis >= rank || !fits {
            return Err(internal(format!(
                "concat of shape {:?} into {shape:?} along axis {axis}",
                v.shape
            )));
        }
        along += v.shape[axis];
    }
    if along != shape[axis] {
        return Err(internal(format!(
            "concat parts sum to {along} along axis {axis} of {shape:?}"
        )));
    }
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    with_dtype!(dtype, T => {
        let mut parts = Vec::with_capacity(inputs.len());
        for &(d, v) in inputs {
            parts.push((map1(typed::<T>(d)?, v, |x| x), v.shape[axis] * inner));
        }
        let mut out: Vec<T> = Vec::with_capacity(outer * shape[axis] * inner);
        for o in 0..outer {
            for (part, block) in &parts {
                out.extend_from_slice(&part[o * block..(o + 1) * block]);
            }
        }
        Ok(T::wrap(out))
    })
}

pub(super) fn arange(dtype: DType, n: usize, start: f64, step: f64) -> HostData {
    let integral = |x: f64| x.fract() == 0.0 && x.abs() < 9.0e18;
    let exact = matches!(dtype, DType::I32 | DType::I64) && integral(start) && integral(step);
    let (start_i, step_i) = (start as i64, step as i64);
    with_dtype!(dtype, T => T::wrap(fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out: &mut [T]| {
        for (i, o) in (s..).zip(out.iter_mut()) {
            *o = T::from_val(if exact {
                Val::I(start_i.wrapping_add((i as i64).wrapping_mul(step_i)))
            } else {
                Val::F(start + i as f64 * step)
            });
        }
    })))
}

pub(super) fn random(dtype: DType, n: usize, key: u64, dist: Distribution) -> Result<HostData, Diagnostic> {
    fn draw<T: Elem>(n: usize, f: impl Fn(u64) -> T + Sync + Send) -> Vec<T> {
        fill(n, CHUNK, n >= PAR_THRESHOLD, |s, out| {
            for (i, o) in (s as u64..).zip(out.iter_mut()) {
                *o = f(i);
            }
        })
    }
    Ok(match (dtype, dist) {
        (DType::F32, Distribution::Uniform) => HostData::F32(draw(n, |i| random::uniform_f32(key, i))),
        (DType::F64, Distribution::Uniform) => HostData::F64(draw(n, |i| random::uniform_f64(key, i))),
        (DType::F32, Distribution::Normal) => HostData::F32(draw(n, |i| random::normal_f64(key, i) as f32)),
        (DType::F64, Distribution::Normal) => HostData::F64(draw(n, |i| random::normal_f64(key, i))),
        _ => return Err(internal(format!("random {dist:?} numbers of dtype {dtype}"))),
    })
}

/// Whether any position lies outside `0..dim`: one unsigned compare an
/// element, folded without an early exit so that it vectorises, and over
/// the pool's threads for many positions. The check with `find` was a
/// scalar pass of its own, a fifth of a million-element gather.
fn any_out_of_range(positions: &[i64], dim: i64) -> bool {
    let dim = dim as u64;
    let outside = |chunk: &[i64]| chunk.iter().fold(false, |bad, &p| bad | (p as u64 >= dim));
    if positions.len() >= PAR_THRESHOLD {
        positions.par_chunks(CHUNK).any(outside)
    } else {
        outside(positions)
    }
}

crate::backend::cpu::block::avx2_dispatch! {
    /// `out[i] = x[at + positions[i] * stride]` without a bounds check a
    /// load, so that the loop is a few instructions (many cache-missing
    /// loads in flight) and, in the AVX2 build, vector gathers: where every
    /// position lies in `0..dim` and the view's first and last reach along
    /// the axis are indices of `x` (checked here first); `false`, nothing
    /// written, otherwise.
    fn gather_one<T: Copy>(x: &[T], at: isize, stride: isize, dim: i64, positions: &[i64], out: &mut [T]) -> bool
        = gather_one_impl;
}

#[inline(always)]
fn gather_one_impl<T: Copy>(x: &[T], at: isize, stride: isize, dim: i64, positions: &[i64], out: &mut [T]) -> bool {
    let reach = |p: i64| at + p as isize * stride;
    let inside = |o: isize| o >= 0 && (o as usize) < x.len();
    let outside = positions.iter().fold(false, |bad, &p| bad | (p as u64 >= dim as u64));
    if dim <= 0 || !inside(reach(0)) || !inside(reach(dim - 1)) || outside || positions.len() < out.len() {
        return false;
    }
    for (o, &p) in out.iter_mut().zip(positions) {
        // SAFETY: 0 <= p < dim (checked above), so reach(p) lies between
        // reach(0) and reach(dim - 1), both indices of `x` (checked above).
        *o = unsafe { *x.get_unchecked(reach(p) as usize) };
    }
    true
}

pub(super) fn take(axis: usize, (src, vs): Input, (idx, vi): Input) -> Result<HostData, Diagnostic> {
    if axis >= vs.rank() {
        return Err(internal(format!(
            "take along axis {axis} of a rank-{} array",
            vs.rank()
        )));
    }
    // read in place when the view is contiguous (a gather's own index buffer)
    let layout = Layout::of(vi);
    let positions = layout.load(typed::<i64>(idx)?, 0, layout.size());
    let (dim, stride) = (vs.shape[axis] as i64, vs.strides[axis]);
    if any_out_of_range(&positions, dim) {
        let bad = positions.iter().find(|&&p| p < 0 || p >= dim).copied().unwrap_or(dim);
        return Err(internal(format!("take index {bad} out of range for an axis of {dim}")));
    }
    let outer = Layout::new(&vs.shape[..axis], &vs.strides[..axis], vs.offset as isize);
    let tail = Layout::new(&vs.shape[axis + 1..], &vs.strides[axis + 1..], 0);
    let mut bases = Vec::with_capacity(outer.size());
    outer.walk(0, outer.size(), |off| bases.push(off));
    // the tail's offsets once, not walked again for every (outer, index) pair
    let mut tail_offs = Vec::with_capacity(tail.size());
    tail.walk(0, tail.size(), |off| tail_offs.push(off));
    let contiguous_tail = tail_offs.iter().enumerate().all(|(t, &o)| o == t as isize);
    let (n_idx, n_tail) = (positions.len(), tail_offs.len());
    let n = bases.len() * n_idx * n_tail;
    if n == 0 {
        return crate::with_data!(src, x => Ok(Elem::wrap(x[..0].to_vec())));
    }
    crate::with_data!(src, x => {
        let x = x.as_slice();
        Ok(Elem::wrap(fill(n, (CHUNK / n_tail).max(1) * n_tail, n >= PAR_THRESHOLD, |s, out| {
            // each chunk holds whole blocks of `n_tail` elements: one (outer, index) pair each
            let item = s / n_tail;
            let (mut b, mut k) = (item / n_idx, item % n_idx);
            if n_tail == 1 && bases.len() == 1 {
                // a gather of single elements from one base (`x[idx]` of a
                // vector): a loop of a few instructions a load, so that the
                // core keeps many of its cache-missing loads in flight; the
                // general walk below, with its (base, index) bookkeeping,
                // held a quarter as many and ran at the memory's latency
                let at = bases[0] + tail_offs[0];
                let positions = &positions[k..k + out.len()];
                if !gather_one(x, at, stride, dim, positions, out) {
                    for (o, &p) in out.iter_mut().zip(positions) {
                        *o = x[(at + p as isize * stride) as usize];
                    }
                }
                return;
            }
            if n_tail == 1 {
                // one element a pair: a plain load, where a slice copy would call memmove
                let t = tail_offs[0];
                for o in out.iter_mut() {
                    *o = x[(bases[b] + positions[k] as isize * stride + t) as usize];
                    k += 1;
                    if k == n_idx {
                        (b, k) = (b + 1, 0);
                    }
                }
                return;
            }
            for block in out.chunks_mut(n_tail) {
                let base = bases[b] + positions[k] as isize * stride;
                if contiguous_tail {
                    let at = base as usize;
                    block.copy_from_slice(&x[at..at + n_tail]);
                } else {
                    for (o, &t) in block.iter_mut().zip(&tail_offs) {
                        *o = x[(base + t) as usize];
                    }
                }
                k += 1;
                if k == n_idx {
                    (b, k) = (b + 1, 0);
                }
            }
        })))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every position outside `0..dim` is found wherever it lies, below and
    /// above the parallel threshold; positions inside never are.
    #[test]
    fn out_of_range_positions_are_found() {
        for n in [0, 1, 7, 33, PAR_THRESHOLD - 1, PAR_THRESHOLD + 5, 3 * CHUNK + 1] {
            let dim = 50;
            let inside: Vec<i64> = (0..n as i64).map(|i| i % dim).collect();
            assert!(!any_out_of_range(&inside, dim), "n = {n}");
            for at in [0, n / 2, n.saturating_sub(1)].into_iter().filter(|&at| at < n) {
                for bad in [-1, dim, i64::MIN, i64::MAX] {
                    let mut p = inside.clone();
                    p[at] = bad;
                    assert!(any_out_of_range(&p, dim), "n = {n}, position {at} = {bad}");
                }
            }
        }
    }

    /// Rows and a vector of `k` values with fractional parts, so that any
    /// change in the order of the adds would show in the last bits.
    fn operands<T: Gemm>(k: usize, rows: usize, from: impl Fn(f64) -> T) -> (Vec<Vec<T>>, Vec<T>) {
        let x = (0..k).map(|i| from(((i * 7) % 23) as f64 / 7.0 - 1.5)).collect();
        let a = (0..rows)
            .map(|r| {
                (0..k)
                    .map(|i| from((((i + 3 * r) * 11) % 29) as f64 / 3.0 - 4.2))
                    .collect()
            })
            .collect();
        (a, x)
    }

    /// The SIMD dot products of several rows at once are bitwise the one-row
    /// `dot`, for every row count of a pass and lengths around the lane count.
    #[test]
    fn dots_are_bitwise_dot_row_by_row() {
        fn check<T: Gemm + std::fmt::Debug>(from: impl Fn(f64) -> T + Copy) {
            for k in [0, 1, 7, 15, 16, 17, 31, 33, 100, 2051] {
                let (a, x) = operands(k, DOT_ROWS, from);
                for n in 1..=DOT_ROWS {
                    let rows: Vec<&[T]> = a[..n].iter().map(|r| &r[..]).collect();
                    let mut out = vec![T::ZERO; n];
                    T::dots(&rows, &x, &mut out);
                    for (o, r) in out.iter().zip(&rows) {
                        assert_eq!(format!("{o:?}"), format!("{:?}", dot(r, &x)), "k {k}, {n} rows");
                    }
                }
            }
        }
        check(|v| v as f32);
        check(|v| v);
    }

    /// A matrix-vector product by rows (a pass of four rows, the rest, split
    /// over threads when large) against sums in f64.
    #[test]
    fn gemv_by_columns_adds_the_columns_in_order() {
        // A = B^T for a row-major B (k x m): A's columns are B's rows, added into y
        // scaled by x's elements, four a pass, in the order of one column at a time
        for (m, k) in [(1, 1), (3, 5), (17, 4), (130, 7), (300, 2051)] {
            let b: Vec<f64> = (0..k * m).map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.0).collect();
            let x: Vec<f64> = (0..k).map(|p| ((p * 13 % 29) as f64 - 14.0) / 3.0).collect();
            let mut want = vec![0.0f64; m];
            for p in 0..k {
                for i in 0..m {
                    want[i] += x[p] * b[p * m + i];
                }
            }
            let view = View::contiguous(&[k, m]).permute(&[1, 0]);
            let got = gemv(&b, &view, &x).expect("contiguous columns");
            assert_eq!(got, want, "{m}x{k}");
        }
    }

    #[test]
    fn gemv_by_rows_matches_f64_sums() {
        for (m, k) in [(1, 1), (5, 17), (7, 2051), (300, 2051)] {
            let (a, x) = operands(k, m, |v| v);
            let flat: Vec<f64> = a.concat();
            let want: Vec<f64> = a.iter().map(|r| r.iter().zip(&x).map(|(p, q)| p * q).sum()).collect();
            // the rounding error of a sum is bounded by the sum of the magnitudes
            let scale: Vec<f64> = a
                .iter()
                .map(|r| r.iter().zip(&x).map(|(p, q)| (p * q).abs()).sum())
                .collect();
            let got = gemv(&flat, &View::contiguous(&[m, k]), &x).expect("contiguous rows");
            for ((g, w), s) in got.iter().zip(&want).zip(&scale) {
                assert!((g - w).abs() <= 1e-12 * s, "{m}x{k}: {g} vs {w}");
            }
            let flat32: Vec<f32> = flat.iter().map(|&v| v as f32).collect();
            let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
            let got = gemv(&flat32, &View::contiguous(&[m, k]), &x32).expect("contiguous rows");
            for ((g, w), s) in got.iter().zip(&want).zip(&scale) {
                assert!((*g as f64 - w).abs() <= 1e-5 * s, "{m}x{k} f32: {g} vs {w}");
            }
        }
    }
}
