//! Multi-output fusion, a pass over a finished plan: whole-array reductions
//! of the same iteration space that do not read each other (Black-Scholes's
//! `mean(call)` and `mean(put)`, `min(x)` and `max(x)`, `sum(x)` and
//! `sum(x * x)`) become one `Strategy::ReduceAllMulti` kernel. Their bodies
//! are merged with common subexpressions shared (each operand loaded once,
//! each identical step computed once), so the inputs they share are read,
//! generated or computed once per element instead of once per reduction,
//! and one launch replaces several.
//!
//! The kernels between the group's members that do not need a group output
//! run before the merged kernel, the ones that do after it. The partitioner
//! plans for this (`sibling_roots`): an elementwise node only the members
//! consume streams into the merged kernel instead of being stored.

use super::{
    DeviceInfo, Inst, KernelPlan, MultiOut, Op, Operand, Planner, ReduceOp, Step, Strategy, fits_32, grid_for,
    operand_bytes,
};
use std::collections::{HashMap, HashSet};

/// Outputs one merged kernel may carry: each holds an accumulator per thread
/// and a shared-memory row per block.
const MAX_OUTPUTS: usize = 8;

/// A kernel that can join a group: a whole-array reduction with an identity
/// (argmin/argmax carry an index pair; empty inputs keep their own error path).
fn candidate(kp: &KernelPlan) -> bool {
    matches!(kp.strategy, Strategy::ReduceAll { .. })
        && kp.kept == 0
        && kp.aux.is_empty()
        && kp.work() > 0
        && kp.out_size() == 1
        && matches!(
            kp.reduce,
            Some(ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Min | ReduceOp::Max | ReduceOp::Any | ReduceOp::All)
        )
}

fn reads_any(kp: &KernelPlan, nodes: &HashSet<u64>) -> bool {
    kp.operands
        .iter()
        .chain(&kp.epi_operands)
        .chain(&kp.aux)
        .any(|o| nodes.contains(&o.node))
}

/// Replaces each group of sibling whole-array reductions by one multi-output
/// kernel. A group grows from its first member over the kernels after it:
/// a kernel that reads a group output (or a kernel that does) must run after
/// the merged kernel, and cannot join; the others run before it, in order.
pub(super) fn fuse_siblings(mut kernels: Vec<KernelPlan>, device: &DeviceInfo) -> Vec<KernelPlan> {
    let mut i = 0;
    while i < kernels.len() {
        if !candidate(&kernels[i]) {
            i += 1;
            continue;
        }
        let mut group = vec![i];
        // outputs of the group and of every kernel that needs one of them
        let mut after_outs: HashSet<u64> = HashSet::from([kernels[i].output]);
        let mut after = Vec::new();
        let mut before = Vec::new();
        for (j, kp) in kernels.iter().enumerate().skip(i + 1) {
            if reads_any(kp, &after_outs) {
                after_outs.insert(kp.output);
                after_outs.extend(kp.extra_outputs().into_iter().map(|(id, _, _)| id));
                after.push(j);
            } else if group.len() < MAX_OUTPUTS && candidate(kp) && kp.shape == kernels[i].shape {
                group.push(j);
                after_outs.insert(kp.output);
            } else {
                before.push(j);
            }
        }
        if group.len() < 2 {
            i += 1;
            continue;
        }
        let members: Vec<&KernelPlan> = group.iter().map(|&g| &kernels[g]).collect();
        let m = merge(&members, device);
        let mut slots: Vec<Option<KernelPlan>> = kernels.into_iter().map(Some).collect();
        let mut next: Vec<KernelPlan> = Vec::with_capacity(slots.len());
        next.extend(slots[..i].iter_mut().filter_map(Option::take));
        next.extend(before.iter().filter_map(|&j| slots[j].take()));
        let at = next.len();
        next.push(m);
        next.extend(after.iter().filter_map(|&j| slots[j].take()));
        kernels = next;
        i = at + 1;
    }
    kernels
}

/// Initial kernel roots for `Planner::share_within_kernels` on a GPU: the
/// kernels of whole-array reductions over the same number of elements that
/// do not depend on each other share a representative, so that an
/// elementwise node only they consume is computed inside the merged kernel
/// (once per element, the merge shares it) rather than stored and re-read.
pub(super) fn sibling_roots(p: &Planner) -> Vec<usize> {
    let n = p.nodes.len();
    let mut root: Vec<usize> = (0..n).collect();
    // (kernel root, reduced elements); at most 64, for the bit sets below
    let mut cand: Vec<(usize, usize)> = Vec::new();
    let mut cand_of = vec![usize::MAX; n];
    for (i, info) in p.info.iter().enumerate() {
        if !p.materialised[i] || cand.len() == 64 {
            continue;
        }
        let r = match info.op {
            Op::Reduce { .. } => i,
            _ => match p.red[i] {
                Some(r) => r,
                None => continue,
            },
        };
        let Op::Reduce { op, axes } = &p.info[r].op else {
            continue;
        };
        let inputs = p.inputs(r);
        let Some(input) = inputs.first() else {
            continue;
        };
        let elems: usize = input.view.shape.iter().product();
        let whole = axes.len() == input.view.shape.len() && p.nodes[i].size() == 1 && elems > 0;
        let op_ok = matches!(
            op,
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Min | ReduceOp::Max | ReduceOp::Any | ReduceOp::All
        );
        if whole && op_ok {
            cand_of[i] = cand.len();
            cand.push((i, elems));
        }
    }
    if cand.len() < 2 {
        return root;
    }
    // the candidates each node depends on
    let mut anc = vec![0u64; n];
    for i in 0..n {
        let mut m = 0u64;
        for a in p.inputs(i).iter() {
            if let Some(&q) = p.pos.get(&a.node.id) {
                m |= anc[q];
                if cand_of[q] != usize::MAX {
                    m |= 1 << cand_of[q];
                }
            }
        }
        anc[i] = m;
    }
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for c in 0..cand.len() {
        let fits = |g: &Vec<usize>| {
            g.len() < MAX_OUTPUTS && cand[g[0]].1 == cand[c].1 && g.iter().all(|&m| anc[cand[c].0] & (1 << m) == 0)
        };
        match groups.iter().position(fits) {
            Some(g) => groups[g].push(c),
            None => groups.push(vec![c]),
        }
    }
    for g in groups.iter().filter(|g| g.len() > 1) {
        for &m in g {
            root[cand[m].0] = cand[g[0]].0;
        }
    }
    root
}

/// The position of `o` in `list`, added (with a label unique within the list) if new.
pub(super) fn operand_in(list: &mut Vec<Operand>, o: &Operand) -> usize {
    if let Some(k) = list
        .iter()
        .position(|x| x.node == o.node && x.view == o.view && x.source == o.source)
    {
        return k;
    }
    let same = list.iter().filter(|x| x.node == o.node).count();
    let base = o.label.split('.').next().unwrap_or(&o.label).to_string();
    let label = if same == 0 { base } else { format!("{base}.{same}") };
    list.push(Operand { label, ..o.clone() });
    list.len() - 1
}

pub(super) fn remap(inst: &Inst, map: &[usize], loads: &[usize]) -> Inst {
    match inst {
        Inst::Load(k) => Inst::Load(loads[*k]),
        Inst::Acc => Inst::Acc,
        Inst::Row(k) => Inst::Row(*k),
        Inst::Cast(a) => Inst::Cast(map[*a]),
        Inst::Unary(u, a) => Inst::Unary(*u, map[*a]),
        Inst::Binary(b, x, y) => Inst::Binary(*b, map[*x], map[*y]),
        Inst::Where(c, x, y) => Inst::Where(map[*c], map[*x], map[*y]),
    }
}

fn merge(members: &[&KernelPlan], device: &DeviceInfo) -> KernelPlan {
    let first = members[0];
    let mut operands: Vec<Operand> = Vec::new();
    let mut epi_operands: Vec<Operand> = Vec::new();
    let mut body: Vec<Step> = Vec::new();
    // identical steps (after operand and step renumbering) are computed once
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut nodes: Vec<u64> = members.iter().map(|m| m.output).collect();
    let mut outs = Vec::with_capacity(members.len());
    for (m, kp) in members.iter().enumerate() {
        let loads: Vec<usize> = kp.operands.iter().map(|o| operand_in(&mut operands, o)).collect();
        let mut map = Vec::with_capacity(kp.body.len());
        for st in &kp.body {
            let step = Step {
                inst: remap(&st.inst, &map, &loads),
                dtype: st.dtype,
            };
            let key = format!("{step:?}");
            let at = *seen.entry(key).or_insert_with(|| {
                body.push(step);
                body.len() - 1
            });
            map.push(at);
        }
        let epi_loads: Vec<usize> = kp
            .epi_operands
            .iter()
            .map(|o| operand_in(&mut epi_operands, o))
            .collect();
        let mut emap = Vec::with_capacity(kp.epilogue.len());
        let mut epilogue = Vec::with_capacity(kp.epilogue.len());
        for st in &kp.epilogue {
            epilogue.push(Step {
                inst: remap(&st.inst, &emap, &epi_loads),
                dtype: st.dtype,
            });
            emap.push(epilogue.len() - 1);
        }
        let acc = kp
            .epilogue
            .iter()
            .find(|s| s.inst == Inst::Acc)
            .map(|s| s.dtype)
            .unwrap_or(kp.out_dtype);
        outs.push(MultiOut {
            node: m,
            label: kp.out_label.clone(),
            dtype: kp.out_dtype,
            op: kp.reduce.expect("candidates reduce"),
            value: *map.last().expect("a reduction has a body"),
            acc,
            epilogue,
        });
        for n in &kp.nodes {
            if !nodes.contains(n) {
                nodes.push(*n);
            }
        }
    }
    let vec = members.iter().map(|m| m.vec).min().unwrap_or(1).max(1);
    let mut kp = KernelPlan {
        strategy: Strategy::Map,
        output: first.output,
        out_label: first.out_label.clone(),
        out_dtype: first.out_dtype,
        out_shape: first.out_shape.clone(),
        nodes,
        ops: members.iter().flat_map(|m| m.ops.iter().cloned()).collect(),
        operands,
        body,
        reduce: first.reduce,
        kept: 0,
        epi_operands,
        epilogue: Vec::new(),
        shape: first.shape.clone(),
        vec,
        index32: false,
        grid: (1, 1),
        block: 256,
        bytes_read: 0,
        bytes_written: members.iter().map(|m| m.bytes_written).sum(),
        aux: Vec::new(),
        window: None,
    };
    kp.bytes_read =
        kp.operands.iter().map(operand_bytes).sum::<u64>() + kp.epi_operands.iter().map(operand_bytes).sum::<u64>();
    kp.index32 = fits_32(&kp);
    let red = kp.work() as u64;
    let blocks = grid_for(red.div_ceil(vec as u64), 256, device, 1).min(1024);
    kp.grid = (blocks, 1);
    kp.strategy = Strategy::ReduceAllMulti { blocks, outs };
    kp
}
