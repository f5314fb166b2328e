//! Multi-output maps, a pass over a finished plan for the CPU: elementwise
//! kernels over the same output shape that do not need each other's values
//! at other positions become one `Strategy::MapMulti` kernel. A stencil step
//! computes several fields from the same shifted views of the same arrays
//! (shallow water's `Hx`, `Ux`, `Vx`, then `gx` and `gxy` from them): as one
//! pass, each shared operand is read once per element instead of once per
//! kernel, a value that one member reads at the same position from another
//! comes from a register instead of memory, and a value only the members
//! read (shallow water's `Vx`) is never stored.
//!
//! A group grows as `multi::fuse_siblings`'s does, over the kernels after
//! its first member: one that reads a group output at the same position
//! joins; one that reads it at another position (a shifted view), or reads
//! what such a kernel wrote, runs after the merged kernel; the rest run
//! before it. Members' operand views are expanded from their collapsed
//! iteration spaces to the shared output shape, merged, and collapsed again.

use super::multi::{operand_in, remap};
use super::{DeviceInfo, ExtraOut, KernelPlan, Operand, Step, Strategy, finish_elementwise, operand_bytes};
use crate::graph::view::{Dims, View, contiguous_strides};
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Kernels one merged kernel may take: each adds an output stream, and the
/// body's registers grow with every member.
const MAX_MEMBERS: usize = 8;

/// An elementwise kernel that can join a group: a plain map whose last step
/// is its output.
fn candidate(kp: &KernelPlan) -> bool {
    matches!(
        kp.strategy,
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. }
    ) && kp.reduce.is_none()
        && kp.epilogue.is_empty()
        && kp.aux.is_empty()
        && kp.window.is_none()
        && kp.work() > 0
        && kp.body.last().is_some_and(|s| s.dtype == kp.out_dtype)
}

/// Every node `kp` reads.
fn reads(kp: &KernelPlan) -> impl Iterator<Item = u64> + '_ {
    kp.operands
        .iter()
        .chain(&kp.epi_operands)
        .chain(&kp.aux)
        .map(|o| o.node)
}

/// `view`, over `shape` (a collapse of `full`: size-1 axes dropped, runs of
/// axes merged), as a view over `full` itself.
fn expand(view: &View, full: &[usize]) -> Option<View> {
    let mut strides = vec![0isize; full.len()];
    let mut j = 0;
    let mut rest = view.shape.first().copied().unwrap_or(1);
    for (k, &d) in full.iter().enumerate() {
        if d == 1 {
            continue;
        }
        if j >= view.shape.len() || !rest.is_multiple_of(d) {
            return None;
        }
        rest /= d;
        strides[k] = view.strides[j] * rest as isize;
        if rest == 1 {
            j += 1;
            rest = view.shape.get(j).copied().unwrap_or(1);
        }
    }
    (j == view.shape.len()).then(|| View {
        shape: Dims::from_slice(full),
        strides: strides.into(),
        offset: view.offset,
    })
}

/// A member's operands over the group's output shape.
fn expanded(kp: &KernelPlan) -> Option<Vec<Operand>> {
    kp.operands
        .iter()
        .map(|o| {
            Some(Operand {
                view: expand(&o.view, &kp.out_shape)?,
                ..o.clone()
            })
        })
        .collect()
}

/// Whether `view` (over `shape`) reads a contiguous array of `shape` element
/// for element.
fn same_position(view: &View, shape: &[usize]) -> bool {
    let contiguous = contiguous_strides(shape);
    view.offset == 0
        && shape
            .iter()
            .zip(&view.strides)
            .zip(&contiguous)
            .all(|((&d, &s), &c)| d == 1 || s == c)
}

/// Replaces each group of sibling maps by one multi-output map. `outputs`
/// are the nodes the realize must leave materialised.
pub(super) fn fuse_maps(mut kernels: Vec<KernelPlan>, outputs: &HashSet<u64>, device: &DeviceInfo) -> Vec<KernelPlan> {
    let mut i = 0;
    while i < kernels.len() {
        let first = &kernels[i];
        let Some(first_ops) = candidate(first).then(|| expanded(first)).flatten() else {
            i += 1;
            continue;
        };
        let mut group = vec![(i, first_ops)];
        let mut group_outs: HashSet<u64> = std::iter::once(first.output).collect();
        // outputs of the kernels that need a group output, so run after it
        let mut after_outs: HashSet<u64> = HashSet::default();
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for (j, kp) in kernels.iter().enumerate().skip(i + 1) {
            let needs_after = reads(kp).any(|n| after_outs.contains(&n));
            let fits =
                !needs_after && group.len() < MAX_MEMBERS && candidate(kp) && kp.out_shape == kernels[i].out_shape;
            let joins = fits.then(|| expanded(kp)).flatten().filter(|ops| {
                ops.iter()
                    .all(|o| !group_outs.contains(&o.node) || same_position(&o.view, &kp.out_shape))
            });
            match joins {
                Some(ops) => {
                    group.push((j, ops));
                    group_outs.insert(kp.output);
                }
                None if needs_after || reads(kp).any(|n| group_outs.contains(&n)) => {
                    after_outs.insert(kp.output);
                    after_outs.extend(kp.extra_outputs().into_iter().map(|(id, _, _)| id));
                    after.push(j);
                }
                None => before.push(j),
            }
        }
        if group.len() < 2 {
            i += 1;
            continue;
        }
        let members: HashSet<usize> = group.iter().map(|(j, _)| *j).collect();
        // a member's output is stored when the realize wants it or another kernel reads it
        let read_outside: HashSet<u64> = kernels
            .iter()
            .enumerate()
            .filter(|(j, _)| !members.contains(j))
            .flat_map(|(_, kp)| reads(kp).collect::<Vec<_>>())
            .collect();
        let stored: Vec<bool> = group
            .iter()
            .enumerate()
            .map(|(m, (j, _))| {
                let out = kernels[*j].output;
                m + 1 == group.len() || outputs.contains(&out) || read_outside.contains(&out)
            })
            .collect();
        let merged = merge(&kernels, &group, &stored, device);
        let mut slots: Vec<Option<KernelPlan>> = kernels.into_iter().map(Some).collect();
        let mut next: Vec<KernelPlan> = Vec::with_capacity(slots.len());
        next.extend(slots[..i].iter_mut().filter_map(Option::take));
        next.extend(before.iter().filter_map(|&j| slots[j].take()));
        next.push(merged);
        next.extend(after.iter().filter_map(|&j| slots[j].take()));
        kernels = next;
        // the kernels moved before the merged one may form groups of their own
    }
    kernels
}

/// One kernel computing every member of `group` (indices into `kernels`
/// with their operands over the output shape, in plan order); the last
/// member is its output, the other `stored` ones extra outputs.
fn merge(kernels: &[KernelPlan], group: &[(usize, Vec<Operand>)], stored: &[bool], device: &DeviceInfo) -> KernelPlan {
    let last = &kernels[group[group.len() - 1].0];
    let mut operands: Vec<Operand> = Vec::new();
    let mut body: Vec<Step> = Vec::new();
    // identical steps (after operand and step renumbering) are computed once
    let mut seen: HashMap<String, usize> = HashMap::default();
    // the body step holding each member's output, by node
    let mut value_of: HashMap<u64, usize> = HashMap::default();
    let mut nodes: Vec<u64> = vec![last.output];
    let mut extra = Vec::new();
    let mut ops = Vec::new();
    for (m, (j, member_ops)) in group.iter().enumerate() {
        let kp = &kernels[*j];
        let is_last = m + 1 == group.len();
        // an operand that is an earlier member's output at the same position is that member's value
        let loads: Vec<Result<usize, usize>> = member_ops
            .iter()
            .map(|o| match value_of.get(&o.node) {
                Some(&step) => Err(step),
                None => Ok(operand_in(&mut operands, o)),
            })
            .collect();
        let mut map: Vec<usize> = Vec::with_capacity(kp.body.len());
        for (s, st) in kp.body.iter().enumerate() {
            let step = match st.inst {
                super::Inst::Load(k) => match loads[k] {
                    Err(value) => {
                        map.push(value);
                        continue;
                    }
                    Ok(at) => Step {
                        inst: super::Inst::Load(at),
                        dtype: st.dtype,
                    },
                },
                ref inst => Step {
                    inst: remap(inst, &map, &[]),
                    dtype: st.dtype,
                },
            };
            // the output is the last step, computed there even if an earlier step is the same
            let at = if is_last && s + 1 == kp.body.len() {
                body.push(step);
                body.len() - 1
            } else {
                *seen.entry(format!("{step:?}")).or_insert_with(|| {
                    body.push(step);
                    body.len() - 1
                })
            };
            map.push(at);
        }
        let value = *map.last().expect("candidates have a body");
        value_of.insert(kp.output, value);
        if stored[m] && !is_last {
            extra.push(ExtraOut {
                node: nodes.len(),
                label: kp.out_label.clone(),
                value,
                dtype: kp.out_dtype,
                shape: kp.out_shape.clone(),
            });
            nodes.push(kp.output);
        }
        ops.extend(kp.ops.iter().cloned());
    }
    for (j, _) in group {
        let kp = &kernels[*j];
        for n in std::iter::once(&kp.output).chain(&kp.nodes) {
            if !nodes.contains(n) {
                nodes.push(*n);
            }
        }
    }
    let bytes_written = group
        .iter()
        .zip(stored)
        .filter(|(_, s)| **s)
        .map(|((j, _), _)| kernels[*j].bytes_written)
        .sum();
    let mut kp = KernelPlan {
        nodes,
        ops,
        operands,
        body,
        ..last.clone()
    };
    finish_elementwise(&mut kp, device);
    kp.bytes_read = kp.operands.iter().map(operand_bytes).sum();
    kp.bytes_written = bytes_written;
    kp.strategy = Strategy::MapMulti { extra };
    kp
}
