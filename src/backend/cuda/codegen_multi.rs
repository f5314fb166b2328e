//! CUDA C for `Strategy::ReduceAllMulti` kernels (the template is
//! `kernels/multi.cu`): one grid-stride pass over the iteration space loads
//! each operand once per element, computes every output's value from the
//! shared body, and folds each into its own accumulator; each block writes
//! one partial per output, and a finishing block combines them in a fixed
//! order and applies each output's epilogue. A child of `codegen` so that it
//! shares the expression and load helpers.

use super::{
    Generated, Kind, Param, acc_ctype, cast_expr, comb_fn, ctype, expr_fn, fill, header, load, offset, params,
    reduce_ident, section, step_expr, unravel,
};
use crate::plan::{KernelPlan, Operand, Source, Strategy};
use std::fmt::Write;

const MULTI: &str = include_str!("../../../kernels/multi.cu");

/// Bytes of partials each output gets per block (the widest accumulator).
const PART_SLOT: usize = 8;

/// Generates the module for a multi-output whole-array reduction.
pub fn generate(kp: &KernelPlan) -> Generated {
    let Strategy::ReduceAllMulti { blocks, outs } = &kp.strategy else {
        unreachable!("codegen_multi takes multi-output reductions")
    };
    let dims = super::Dims::new(Kind::Specialised);
    let vec = kp.vec;
    let ops: Vec<&Operand> = kp.operands.iter().collect();
    let epi: Vec<&Operand> = kp.epi_operands.iter().collect();
    let nb = ops.len();
    let (mut ptext, mut plist) = params(kp, "unsigned char");
    for (k, o) in outs.iter().enumerate().skip(1) {
        let _ = write!(ptext, ", {}* __restrict__ out{k}", ctype(o.dtype));
        plist.push(Param::OutN(k));
    }
    let mut src = header(kp);
    // the shared body: every step once, each output's value handed back by reference
    let mut args: Vec<String> = ops
        .iter()
        .enumerate()
        .map(|(k, o)| format!("{} v{k}", ctype(o.dtype)))
        .collect();
    args.extend(
        outs.iter()
            .enumerate()
            .map(|(s, o)| format!("{}& r{s}", acc_ctype(o.acc))),
    );
    let _ = writeln!(src, "__device__ __forceinline__ void f_body({}) {{", args.join(", "));
    for (i, st) in kp.body.iter().enumerate() {
        let zero = format!("({})0", ctype(st.dtype));
        let e = step_expr(&kp.body, i, &zero, |_| zero.clone());
        let _ = writeln!(src, "    const {} s{i} = {e};", ctype(st.dtype));
    }
    for (s, o) in outs.iter().enumerate() {
        let v = cast_expr(kp.body[o.value].dtype, o.acc, &format!("s{}", o.value));
        let _ = writeln!(src, "    r{s} = {v};");
    }
    src.push_str("}\n");
    for (s, o) in outs.iter().enumerate() {
        src.push_str(&comb_fn(o.op, o.acc).replace("arr_comb", &format!("comb{s}")));
        if !o.epilogue.is_empty() {
            src.push_str(&expr_fn(&format!("f_epi{s}"), &o.epilogue, &epi, Some(o.acc)));
        }
    }

    let ind = "        ";
    let mut shared = String::new();
    let mut init = String::new();
    let mut part_ptrs = String::new();
    for (s, o) in outs.iter().enumerate() {
        let t = acc_ctype(o.acc);
        let _ = writeln!(shared, "    __shared__ {t} sh{s}[8];");
        let _ = writeln!(init, "    {t} a{s} = {};", reduce_ident(o.op, o.acc));
        let _ = writeln!(
            part_ptrs,
            "    {t}* part{s} = reinterpret_cast<{t}*>(part + {});",
            s * *blocks as usize * PART_SLOT
        );
    }
    let mut bases = String::new();
    for k in 0..nb {
        let _ = writeln!(bases, "    const IDX b{k} = (IDX)off{k};");
    }
    let red_dims = kp.shape.clone();
    let step_with = |vec: u32| -> String {
        let mut s = unravel(&dims, "j", &red_dims, 0, ind);
        for (k, o) in ops.iter().enumerate() {
            let t = ctype(o.dtype);
            let off = offset(&dims, &format!("b{k}"), k, &o.view.strides, 0);
            let inner = o.view.strides.last().copied().unwrap_or(0);
            if vec == 1 {
                let _ = writeln!(s, "{ind}const {t} v{k}[1] = {{{}}};", load(o, k, &off));
            } else if inner == 0 {
                let _ = writeln!(
                    s,
                    "{ind}{t} v{k}[{vec}];\n{ind}{{ const {t} b = {}; for (int l = 0; l < {vec}; ++l) v{k}[l] = b; }}",
                    load(o, k, &off)
                );
            } else if o.source == Source::Buffer {
                let _ = writeln!(
                    s,
                    "{ind}{t} v{k}[{vec}];\n{ind}{{ const Vec<{t}, {vec}> q = *reinterpret_cast<const Vec<{t}, {vec}>*>(p{k} + ({off})); for (int l = 0; l < {vec}; ++l) v{k}[l] = q.x[l]; }}"
                );
            } else {
                let _ = writeln!(
                    s,
                    "{ind}{t} v{k}[{vec}];\n{ind}for (int l = 0; l < {vec}; ++l) v{k}[l] = {};",
                    load(o, k, &format!("({off}) + l"))
                );
            }
        }
        let _ = writeln!(s, "{ind}#pragma unroll\n{ind}for (int l = 0; l < {vec}; ++l) {{");
        let mut call: Vec<String> = (0..nb).map(|k| format!("v{k}[l]")).collect();
        for (o_, o) in outs.iter().enumerate() {
            let _ = writeln!(s, "{ind}    {} r{o_};", acc_ctype(o.acc));
            call.push(format!("r{o_}"));
        }
        let _ = writeln!(s, "{ind}    f_body({});", call.join(", "));
        for s_ in 0..outs.len() {
            let _ = writeln!(s, "{ind}    a{s_} = comb{s_}(a{s_}, r{s_});");
        }
        let _ = writeln!(s, "{ind}}}");
        s
    };
    // each block: warp shuffles, then thread 0 combines the warps in order
    let mut partials = String::new();
    for s in 0..outs.len() {
        let _ = writeln!(
            partials,
            "    for (int d = 16; d > 0; d >>= 1) a{s} = comb{s}(a{s}, arr_shfl_xor(a{s}, d, 32));\n    if (lane == 0) sh{s}[warp] = a{s};"
        );
    }
    partials.push_str("    __syncthreads();\n    if (threadIdx.x == 0) {\n");
    for s in 0..outs.len() {
        let _ = writeln!(
            partials,
            "        for (int w = 1; w < 8; ++w) sh{s}[0] = comb{s}(sh{s}[0], sh{s}[w]);\n        part{s}[blockIdx.x] = sh{s}[0];"
        );
    }
    partials.push_str("    }\n");
    // the finishing block: each output's partials in a fixed order, then its epilogue
    let mut finish = String::new();
    for (s, o) in outs.iter().enumerate() {
        let _ = writeln!(
            finish,
            "    {{\n        {} a = {};\n        for (int k = threadIdx.x; k < {blocks}; k += blockDim.x) a = comb{s}(a, part{s}[k]);",
            acc_ctype(o.acc),
            reduce_ident(o.op, o.acc)
        );
        let _ = writeln!(
            finish,
            "        for (int d = 16; d > 0; d >>= 1) a = comb{s}(a, arr_shfl_xor(a, d, 32));\n        if (lane == 0) sh{s}[warp] = a;\n    }}"
        );
    }
    finish.push_str("    __syncthreads();\n    if (threadIdx.x == 0) {\n");
    for (s, o) in outs.iter().enumerate() {
        let _ = writeln!(
            finish,
            "        for (int w = 1; w < 8; ++w) sh{s}[0] = comb{s}(sh{s}[0], sh{s}[w]);"
        );
        let target = if s == 0 { "out".to_string() } else { format!("out{s}") };
        let value = if o.epilogue.is_empty() {
            cast_expr(o.acc, o.dtype, &format!("sh{s}[0]"))
        } else {
            let mut a = vec![format!("sh{s}[0]")];
            a.extend(
                epi.iter()
                    .enumerate()
                    .map(|(e, op)| load(op, nb + e, &format!("(IDX)off{}", nb + e))),
            );
            let epi_t = o.epilogue.last().map(|s| s.dtype).unwrap_or(o.acc);
            cast_expr(epi_t, o.dtype, &format!("f_epi{s}({})", a.join(", ")))
        };
        let _ = writeln!(finish, "        {target}[0] = {value};");
    }
    finish.push_str("    }\n");
    let text = fill(
        section(MULTI, "all_multi"),
        &[
            ("SHARED", shared),
            ("PART_PTRS", part_ptrs),
            ("LEN", dims.c(super::Dim::Work, kp.work())),
            ("V", vec.to_string()),
            ("BASES", bases),
            ("INIT", init),
            ("STEP", step_with(vec)),
            ("SCALAR_STEP", step_with(1)),
            ("PARTIALS", partials),
            ("FINISH", finish),
        ],
    );
    dims.finish(&mut ptext, &mut plist);
    src.push_str(&super::fill_shared(text, &[("PARAMS", ptext)]));
    Generated {
        source: src,
        params: plist,
        finish: true,
        part_bytes: outs.len() * *blocks as usize * PART_SLOT,
        raises: false,
        kind: Kind::Specialised,
        problems: Vec::new(),
        label: String::new(),
    }
}
