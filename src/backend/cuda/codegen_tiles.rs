//! CUDA C for `Strategy::TransposeTiled` (the template is `kernels/tiles.cu`):
//! operands contiguous along the tile axis but not along the output's last
//! axis are staged through 32 x 32 shared-memory tiles (padded a column
//! against bank conflicts), the others read directly; axes other than the
//! tile axis and the last are batch axes, a tile's base offsets found once
//! per tile. When a buffer is read both directly and transposed
//! (`plan::tiles::pairs`), the `paired` form reads each of its source tiles
//! once for two output tiles. A child of `codegen` so that it shares the
//! expression and load helpers.

use super::{Generated, Kind, all_operands, ctype, expr_fn, fill, header, load, params, section};
use crate::plan::{KernelPlan, Operand, tiles};
use std::fmt::Write;

const TILES: &str = include_str!("../../../kernels/tiles.cu");
const IND: &str = "                ";

/// The offset of operand `k` at tile-axis coordinate `r` and last-axis coordinate `c`.
fn at(o: &Operand, k: usize, axis: usize) -> String {
    let s = &o.view.strides;
    let last = s.len() - 1;
    format!("base{k} + r * (IDX){} + c * (IDX){}", s[axis], s[last])
}

/// The batch coordinates of tile `bt` and each operand's (and the output's)
/// base offset there.
fn bases(kp: &KernelPlan, ops: &[&Operand], axis: usize) -> String {
    let rank = kp.shape.len();
    let last = rank - 1;
    let batch: Vec<usize> = (0..rank).filter(|&d| d != axis && d != last).collect();
    let out_strides = crate::graph::view::contiguous_strides(&kp.shape);
    let ind = "        ";
    let mut s = String::new();
    if !batch.is_empty() {
        let _ = writeln!(s, "{ind}IDX rem = bt;");
        for &d in batch.iter().rev() {
            let _ = writeln!(
                s,
                "{ind}const IDX b{d} = rem % (IDX){n}; rem /= (IDX){n};",
                n = kp.shape[d]
            );
        }
    }
    let sum = |strides: &[isize]| -> String {
        batch
            .iter()
            .filter(|&&d| strides[d] != 0)
            .map(|&d| format!(" + b{d} * (IDX){}", strides[d]))
            .collect()
    };
    for (k, o) in ops.iter().enumerate() {
        let _ = writeln!(s, "{ind}const IDX base{k} = (IDX)off{k}{};", sum(&o.view.strides));
    }
    let _ = writeln!(s, "{ind}const IDX obase = (IDX)0{};", sum(&out_strides));
    let _ = writeln!(s, "{ind}(void)obase;");
    s
}

/// Generates the module for a tiled-transposition kernel plan over tile axis `axis`.
pub fn generate(kp: &KernelPlan, axis: usize) -> Generated {
    let (ptext, plist) = params(kp, ctype(kp.out_dtype));
    let ops = all_operands(kp);
    let rank = kp.shape.len();
    let ostride = crate::graph::view::contiguous_strides(&kp.shape)[axis];
    let mut src = header(kp);
    src.push_str(&expr_fn("f_body", &kp.body, &ops, None));
    let pairs = tiles::pairs(kp, axis);
    let batch = kp.work() / (kp.shape[axis] * kp.shape[rank - 1]).max(1);
    let store = {
        let args: Vec<String> = (0..ops.len()).map(|k| format!("v{k}")).collect();
        format!(
            "{IND}out[obase + r * (IDX){ostride} + c] = f_body({});\n",
            args.join(", ")
        )
    };
    let mut shared = String::new();
    // operands staged through a tile of their own (in a paired kernel: those not in a pair)
    let alone: Vec<usize> = (0..ops.len())
        .filter(|&k| tiles::staged(ops[k], axis) && !pairs.iter().any(|&(m, t)| m == k || t == k))
        .collect();
    for &k in &alone {
        let _ = writeln!(shared, "    __shared__ {} tile{k}[32][33];", ctype(ops[k].dtype));
    }
    let mut stage = String::new();
    for &k in &alone {
        let _ = writeln!(
            stage,
            "{IND}tile{k}[k][tx] = {};",
            load(ops[k], k, &at(ops[k], k, axis))
        );
    }
    // element (r, c) of an output tile; `pair_tiles` names each pair's (direct, transposed) source tile
    let unit = |pair_tiles: &[(String, String)]| -> String {
        let mut u = String::new();
        for (k, o) in ops.iter().enumerate() {
            let t = ctype(o.dtype);
            let v = if let Some(j) = pairs.iter().position(|&(m, _)| m == k) {
                format!("{}[k][tx]", pair_tiles[j].0)
            } else if let Some(j) = pairs.iter().position(|&(_, tr)| tr == k) {
                format!("{}[tx][k]", pair_tiles[j].1)
            } else if alone.contains(&k) {
                format!("tile{k}[tx][k]")
            } else {
                load(o, k, &at(o, k, axis))
            };
            let _ = writeln!(u, "{IND}const {t} v{k} = {v};");
        }
        u + &store
    };
    let b = bases(kp, &ops, axis);
    let source = if pairs.is_empty() {
        fill(
            section(TILES, "tiles"),
            &[
                ("PARAMS", ptext),
                ("SHARED", shared),
                ("N0", kp.shape[axis].to_string()),
                ("N1", kp.shape[rank - 1].to_string()),
                ("BATCH", batch.to_string()),
                ("BASES", b),
                ("STAGE", stage),
                ("UNIT", unit(&[])),
            ],
        )
    } else {
        let mut pa = String::new();
        let mut pb = String::new();
        for (j, &(m, _)) in pairs.iter().enumerate() {
            let t = ctype(ops[m].dtype);
            let _ = writeln!(
                shared,
                "    __shared__ {t} pa{j}[32][33];\n    __shared__ {t} pb{j}[32][33];"
            );
            let v = load(ops[m], m, &at(ops[m], m, axis));
            let _ = writeln!(pa, "{IND}pa{j}[k][tx] = {v};");
            let _ = writeln!(pb, "{IND}pb{j}[k][tx] = {v};");
        }
        let names = |x: &str, y: &str| -> Vec<(String, String)> {
            (0..pairs.len())
                .map(|j| (format!("{x}{j}"), format!("{y}{j}")))
                .collect()
        };
        // one output tile at (R0, C0): stage its unpaired tiles, then compute it
        let half = |r0: &str, c0: &str, tiles: &[(String, String)], first: bool| -> String {
            let ind = "            ";
            let mut h = String::new();
            if !alone.is_empty() {
                if !first {
                    // the previous tile's unpaired tiles are still being read
                    let _ = writeln!(h, "{ind}__syncthreads();");
                }
                let _ = writeln!(
                    h,
                    "{ind}for (int k = ty; k < 32; k += 8) {{\n{ind}    const IDX r = {r0} + tx, c = {c0} + k;\n{ind}    if (r < n0 && c < n0) {{\n{stage}{ind}    }}\n{ind}}}"
                );
            }
            if first || !alone.is_empty() {
                let _ = writeln!(h, "{ind}__syncthreads();");
            }
            let _ = writeln!(
                h,
                "{ind}for (int k = ty; k < 32; k += 8) {{\n{ind}    const IDX r = {r0} + k, c = {c0} + tx;\n{ind}    if (r < n0 && c < n0) {{\n{}{ind}    }}\n{ind}}}",
                unit(tiles)
            );
            h
        };
        let both = half("r0", "c0", &names("pa", "pb"), true) + &half("c0", "r0", &names("pb", "pa"), false);
        let diag = half("r0", "c0", &names("pa", "pa"), true);
        fill(
            section(TILES, "paired"),
            &[
                ("PARAMS", ptext),
                ("SHARED", shared),
                ("N0", kp.shape[axis].to_string()),
                ("BATCH", batch.to_string()),
                ("BASES", b),
                ("PAIRS_A", pa),
                ("PAIRS_B", pb),
                ("BOTH", both),
                ("DIAG", diag),
            ],
        )
    };
    src.push_str(&source);
    // this strategy has no shape-generic form yet
    Generated::single(src, plist, Kind::Specialised)
}
