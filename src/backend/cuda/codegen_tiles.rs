//! CUDA C for `Strategy::TransposeTiled` (the template is `kernels/tiles.cu`):
//! operands contiguous down the columns of a rank-2 elementwise kernel are
//! staged through 32 x 32 shared-memory tiles (padded a column against bank
//! conflicts), the others read directly. A child of `codegen` so that it
//! shares the expression and load helpers.

use super::{Generated, Kind, all_operands, ctype, expr_fn, fill, header, load, params, section};
use crate::plan::{KernelPlan, Operand, Source};
use std::fmt::Write;

const TILES: &str = include_str!("../../../kernels/tiles.cu");

/// Whether the planner stages operand `o` through a tile: a buffer read
/// with stride ±1 down the rows and a larger stride along them.
pub fn staged(o: &Operand) -> bool {
    o.source == Source::Buffer && o.view.strides[0].unsigned_abs() == 1 && o.view.strides[1].unsigned_abs() > 1
}

fn at(o: &Operand, k: usize) -> String {
    let s = &o.view.strides;
    format!("(IDX)off{k} + r * (IDX){} + c * (IDX){}", s[0], s[1])
}

/// Generates the module for a tiled-transposition kernel plan.
pub fn generate(kp: &KernelPlan) -> Generated {
    let (ptext, plist) = params(kp, ctype(kp.out_dtype));
    let ops = all_operands(kp);
    let mut src = header(kp);
    src.push_str(&expr_fn("f_body", &kp.body, &ops, None));
    let mut shared = String::new();
    let mut stage = String::new();
    let mut unit = String::new();
    let ind = "                ";
    for (k, o) in ops.iter().enumerate() {
        let t = ctype(o.dtype);
        if staged(o) {
            let _ = writeln!(shared, "    __shared__ {t} tile{k}[32][33];");
            let _ = writeln!(stage, "{ind}tile{k}[k][tx] = {};", load(o, k, &at(o, k)));
            let _ = writeln!(unit, "{ind}const {t} v{k} = tile{k}[tx][k];");
        } else {
            let _ = writeln!(unit, "{ind}const {t} v{k} = {};", load(o, k, &at(o, k)));
        }
    }
    let args: Vec<String> = (0..ops.len()).map(|k| format!("v{k}")).collect();
    let _ = writeln!(unit, "{ind}out[r * n1 + c] = f_body({});", args.join(", "));
    src.push_str(&fill(
        section(TILES, "tiles"),
        &[
            ("PARAMS", ptext),
            ("SHARED", shared),
            ("N0", kp.shape[0].to_string()),
            ("N1", kp.shape[1].to_string()),
            ("STAGE", stage),
            ("UNIT", unit),
        ],
    ));
    // this strategy has no shape-generic form yet
    Generated::single(src, plist, Kind::Specialised)
}
