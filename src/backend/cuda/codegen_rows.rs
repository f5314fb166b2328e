//! CUDA C for `Strategy::RowResident` kernels (the template is
//! `kernels/rows.cu`): each row is read once into registers (or re-read per
//! pass when it does not fit), reduced once per stage with warp shuffles and,
//! past a warp, a shared-memory combine of the warps' partials in a fixed
//! order, and written per element or per row. A child of `codegen` so that
//! it shares the expression and load helpers.

use super::step_expr;
use super::{
    Generated, Kind, Param, acc_ctype, cast_expr, comb_fn, ctype, fill, header_idx, load, params, reduce_ident,
    section, store_out,
};
use crate::plan::{Inst, KernelPlan, Operand, RowStage, Source, Step, Strategy};
use std::fmt::Write;

const ROWS: &str = include_str!("../../../kernels/rows.cu");

/// The steps `target` depends on (itself included).
fn closure(steps: &[Step], target: usize) -> Vec<bool> {
    let mut need = vec![false; steps.len()];
    need[target] = true;
    for i in (0..=target).rev() {
        if !need[i] {
            continue;
        }
        match steps[i].inst {
            Inst::Cast(a) | Inst::Unary(_, a) => need[a] = true,
            Inst::Binary(_, a, b) => {
                need[a] = true;
                need[b] = true;
            }
            Inst::Where(c, a, b) => {
                need[c] = true;
                need[a] = true;
                need[b] = true;
            }
            Inst::Load(_) | Inst::Acc | Inst::Row(_) => {}
        }
    }
    need
}

/// `__device__ RT name(v0.., red0..)` computing step `target`: operand k is
/// `v{k}`, stage k's result `red{k}`; only the steps it needs are emitted.
fn step_fn(name: &str, steps: &[Step], target: usize, ops: &[Operand], stages: &[RowStage]) -> String {
    let mut args: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(k, o)| format!("{} v{k}", ctype(o.dtype)))
        .collect();
    args.extend(
        stages
            .iter()
            .enumerate()
            .map(|(k, s)| format!("{} red{k}", acc_ctype(s.acc))),
    );
    let mut s = format!(
        "__device__ __forceinline__ {} {name}({}) {{\n",
        ctype(steps[target].dtype),
        args.join(", ")
    );
    let need = closure(steps, target);
    for (i, st) in steps.iter().enumerate().take(target + 1) {
        if !need[i] {
            continue;
        }
        let e = step_expr(steps, i, &format!("({})0", ctype(st.dtype)), |k| format!("red{k}"));
        let _ = writeln!(s, "    const {} s{i} = {e};", ctype(st.dtype));
    }
    let _ = writeln!(s, "    return s{target};\n}}");
    s
}

/// Loads the `vec` elements of operand `k` at row column `j` into `dst[l]`.
fn load_unit(o: &Operand, k: usize, vec: u32, dst: &str, ind: &str) -> String {
    let t = ctype(o.dtype);
    let s1 = o.view.strides[1];
    if vec > 1 && o.source == Source::Buffer {
        // the planner vectorises only when this operand moves by 1 along the row
        return format!(
            "{ind}{{ const Vec<{t}, {vec}> q = *reinterpret_cast<const Vec<{t}, {vec}>*>(p{k} + b{k} + j); for (int l = 0; l < {vec}; ++l) {dst}[l] = q.x[l]; }}\n"
        );
    }
    let at = if s1 == 1 {
        format!("b{k} + j + l")
    } else {
        format!("b{k} + (j + l) * (IDX){s1}")
    };
    format!("{ind}for (int l = 0; l < {vec}; ++l) {dst}[l] = {};\n", load(o, k, &at))
}

/// Generates the module for a row-resident kernel plan.
pub fn generate(kp: &KernelPlan) -> Generated {
    let Strategy::RowResident {
        stages,
        out,
        per_row,
        lanes,
        units,
        extra,
    } = &kp.strategy
    else {
        unreachable!("codegen_rows takes row-resident plans")
    };
    let (lanes, units, vec) = (*lanes, *units, kp.vec);
    let ops = &kp.operands;
    let along: Vec<bool> = ops.iter().map(|o| o.view.strides[1] != 0).collect();
    let (mut ptext, mut plist) = params(kp, ctype(kp.out_dtype));
    // extra output k (from 1) is `out{k}`, one value per row
    for (k, o) in extra.iter().enumerate() {
        let _ = write!(ptext, ", {}* __restrict__ out{}", ctype(o.dtype), k + 1);
        plist.push(Param::OutN(k + 1));
    }
    let out_t = ctype(kp.out_dtype);
    let mut src = header_idx(kp.index32);
    for (s, st) in stages.iter().enumerate() {
        src.push_str(&comb_fn(st.op, st.acc).replace("arr_comb", &format!("comb{s}")));
        src.push_str(&step_fn(&format!("f{s}"), &kp.body, st.value, ops, stages));
    }
    src.push_str(&step_fn("f_out", &kp.body, *out, ops, stages));
    for (k, o) in extra.iter().enumerate() {
        src.push_str(&step_fn(&format!("f_out{}", k + 1), &kp.body, o.value, ops, stages));
    }

    let ind = "        ";
    let mut shared = String::new();
    if lanes > 32 {
        for (s, st) in stages.iter().enumerate() {
            let _ = writeln!(shared, "    __shared__ {} sh{s}[32];", acc_ctype(st.acc));
        }
    }
    // row bases, row constants, stage results, and the held row
    let mut setup = format!("{ind}const IDX rr = active ? row : (IDX)0;\n");
    for (k, o) in ops.iter().enumerate() {
        let s0 = o.view.strides[0];
        let base = if s0 == 0 {
            format!("(IDX)off{k}")
        } else {
            format!("(IDX)off{k} + rr * (IDX){s0}")
        };
        let _ = writeln!(setup, "{ind}const IDX b{k} = {base};");
        if !along[k] {
            let t = ctype(o.dtype);
            let _ = writeln!(
                setup,
                "{ind}const {t} r{k} = active ? {} : ({t})0;",
                load(o, k, &format!("b{k}"))
            );
        }
    }
    for (s, st) in stages.iter().enumerate() {
        let _ = writeln!(
            setup,
            "{ind}{} red{s} = {};",
            acc_ctype(st.acc),
            reduce_ident(st.op, st.acc)
        );
    }
    let unit_j = format!("((IDX)e * {lanes} + lane) * {vec}");
    if units > 0 {
        for (k, o) in ops.iter().enumerate() {
            if along[k] {
                let _ = writeln!(setup, "{ind}{} x{k}[{units}][{vec}];", ctype(o.dtype));
            }
        }
        let _ = writeln!(setup, "{ind}#pragma unroll\n{ind}for (int e = 0; e < {units}; ++e) {{");
        let _ = writeln!(setup, "{ind}    const IDX j = {unit_j};");
        let _ = writeln!(setup, "{ind}    if (active && j < len) {{");
        for (k, o) in ops.iter().enumerate() {
            if along[k] {
                setup.push_str(&load_unit(o, k, vec, &format!("x{k}[e]"), &format!("{ind}        ")));
            }
        }
        let _ = writeln!(setup, "{ind}    }}\n{ind}}}");
    }
    // the arguments of a step function at element (e, l) of the row
    let args = |elems: bool| -> String {
        let mut a: Vec<String> = ops
            .iter()
            .enumerate()
            .map(|(k, o)| match (along[k], elems) {
                (false, _) => format!("r{k}"),
                (true, false) => format!("({})0", ctype(o.dtype)),
                (true, true) if units > 0 => format!("x{k}[e][l]"),
                (true, true) => format!("x{k}[l]"),
            })
            .collect();
        a.extend((0..stages.len()).map(|s| format!("red{s}")));
        a.join(", ")
    };
    // a loop over this lane's elements of the row, `inner` run per element (e, l)
    let over_row = |inner: &str| -> String {
        let mut s = String::new();
        if units > 0 {
            let _ = writeln!(s, "{ind}#pragma unroll\n{ind}for (int e = 0; e < {units}; ++e) {{");
            let _ = writeln!(s, "{ind}    const IDX j = {unit_j};");
            let _ = writeln!(s, "{ind}    if (active && j < len) {{");
        } else {
            let _ = writeln!(
                s,
                "{ind}if (active) {{\n{ind}for (IDX j = (IDX)lane * {vec}; j < len; j += (IDX){lanes} * {vec}) {{"
            );
            for (k, o) in ops.iter().enumerate() {
                if along[k] {
                    let _ = writeln!(s, "{ind}        {} x{k}[{vec}];", ctype(o.dtype));
                    s.push_str(&load_unit(o, k, vec, &format!("x{k}"), &format!("{ind}        ")));
                }
            }
        }
        s.push_str(inner);
        let _ = writeln!(s, "{ind}    }}\n{ind}}}");
        s
    };
    let mut stage_code = String::new();
    for (s, st) in stages.iter().enumerate() {
        let acc_t = acc_ctype(st.acc);
        let _ = writeln!(stage_code, "{ind}{{\n{ind}{acc_t} a = {};", reduce_ident(st.op, st.acc));
        let value = cast_expr(kp.body[st.value].dtype, st.acc, &format!("f{s}({})", args(true)));
        let inner = format!(
            "{ind}        #pragma unroll\n{ind}        for (int l = 0; l < {vec}; ++l) a = comb{s}(a, {value});\n"
        );
        stage_code.push_str(&over_row(&inner));
        let _ = writeln!(
            stage_code,
            "{ind}for (int d = 16; d > 0; d >>= 1) a = comb{s}(a, arr_shfl_xor(a, d, 32));"
        );
        if lanes > 32 {
            // every thread combines the warps' partials in the same order: all get the same result
            let _ = writeln!(
                stage_code,
                "{ind}if ((threadIdx.x & 31) == 0) sh{s}[threadIdx.x >> 5] = a;"
            );
            let _ = writeln!(stage_code, "{ind}__syncthreads();");
            let _ = writeln!(stage_code, "{ind}a = sh{s}[0];");
            let _ = writeln!(
                stage_code,
                "{ind}for (int w = 1; w < {}; ++w) a = comb{s}(a, sh{s}[w]);",
                kp.block / 32
            );
            let _ = writeln!(stage_code, "{ind}__syncthreads();");
        }
        let _ = writeln!(stage_code, "{ind}red{s} = a;\n{ind}}}");
    }
    let out_dtype_of_step = kp.body[*out].dtype;
    // a per-row value reads the row's constants and results, never its elements
    let mut write = String::new();
    for (k, o) in extra.iter().enumerate() {
        let v = cast_expr(
            kp.body[o.value].dtype,
            o.dtype,
            &format!("f_out{}({})", k + 1, args(false)),
        );
        let _ = writeln!(write, "{ind}if (active && lane == 0) out{}[row] = {v};", k + 1);
    }
    write += &if *per_row {
        let v = cast_expr(out_dtype_of_step, kp.out_dtype, &format!("f_out({})", args(false)));
        format!("{ind}if (active && lane == 0) out[row] = {v};\n")
    } else {
        let v = cast_expr(out_dtype_of_step, kp.out_dtype, &format!("f_out({})", args(true)));
        let mut inner = format!("{ind}        {out_t} r[{vec}];\n");
        let _ = writeln!(
            inner,
            "{ind}        #pragma unroll\n{ind}        for (int l = 0; l < {vec}; ++l) r[l] = {v};"
        );
        inner.push_str(&store_out(out_t, vec, "row * len + j", &format!("{ind}        ")));
        over_row(&inner)
    };
    src.push_str(&fill(
        section(ROWS, "rows"),
        &[
            ("PARAMS", ptext),
            ("BLOCK", kp.block.to_string()),
            ("LANES", lanes.to_string()),
            ("ROWS", kp.shape[0].to_string()),
            ("LEN", kp.shape[1].to_string()),
            ("SHARED", shared),
            ("SETUP", setup),
            ("STAGES", stage_code),
            ("WRITE", write),
        ],
    ));
    // this strategy has no shape-generic form yet
    Generated::single(src, plist, Kind::Specialised)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::dtype::DType;

    #[test]
    fn closure_keeps_only_what_the_target_reads() {
        let st = |inst| Step {
            inst,
            dtype: DType::F32,
        };
        let steps = vec![
            st(Inst::Load(0)),
            st(Inst::Load(1)),
            st(Inst::Unary(crate::graph::op::UnaryOp::Exp, 0)),
            st(Inst::Row(0)),
            st(Inst::Binary(crate::graph::op::BinaryOp::Div, 2, 3)),
        ];
        assert_eq!(closure(&steps, 4), vec![true, false, true, true, true]);
        assert_eq!(closure(&steps, 1), vec![false, true, false, false, false]);
    }
}
