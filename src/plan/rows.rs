//! Row-resident fusion, a pass over a finished plan: a run of kernels that
//! reduce the same rows and combine the results elementwise (softmax's max,
//! exponentials, sum and division; layer norm's mean, centred variance and
//! scaling; a variance's mean and sum of squares) becomes one
//! `Strategy::RowResident` kernel that reads each row once and reduces it as
//! often as needed. The merged kernel's body is the kernels' bodies in order,
//! with each stored intermediate replaced by the step that computed it (a
//! reduction by `Inst::Row`), so nothing between the first read and the last
//! write touches memory. Intermediates must be used only inside the run and
//! read element for element (or, for a reduction, row for row); otherwise the
//! run stops there and the kernels stay as they were. An intermediate with
//! one value per row may also be read after the run (an output, or a later
//! kernel's operand): the merged kernel writes it as an extra output
//! (`ExtraOut`), so sibling row reductions (n-body's three sums, `mean` and
//! `var` of one array) share one read of their rows (on the CPU, rows longer
//! than `CPU_EXTRA_COLS`). Identical steps of the merged bodies are computed
//! once, and identical reductions (the sum that `mean` and `var` each take)
//! reduce once.

use super::{
    DeviceInfo, ExtraOut, Inst, KernelPlan, Operand, ReduceOp, RowStage, Source, Step, Strategy, fits_32, operand_bytes,
};
use crate::graph::view::View;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

/// Cached values (in 4-byte words) a lane may hold per row before the row is
/// re-read for each pass instead: 64 words fit the register file at 256
/// threads a block; a 1024-thread block gets 64 registers a thread in all.
const HELD_WORDS: usize = 64;
const HELD_WORDS_BIG_BLOCK: usize = 24;

/// The most register bytes (steps x row length x 8) a row-resident kernel
/// may hold per thread on the CPU: past it the rows run as separate kernels.
const CPU_ROW_BYTES: usize = 1 << 20;

/// The shortest rows for which a CPU row-resident kernel writes per-row
/// values read after it (`ExtraOut`), rather than the run stopping there.
/// Measured on n-body (three sums of rows of n pairwise terms, one thread,
/// against the stored temporary and three short-row reductions): 17% faster
/// at 1000 bodies and 5% at 2040, even at 400, 8% slower at 204.
const CPU_EXTRA_COLS: usize = 512;

/// Accesses per lane the lane count aims at: enough independent loads in
/// flight per thread, few enough registers.
const UNITS_PER_LANE: usize = 4;

/// Replaces each fusable run of `kernels` by one row-resident kernel.
pub(super) fn fuse_rows(kernels: Vec<KernelPlan>, outputs: &HashSet<u64>, device: &DeviceInfo) -> Vec<KernelPlan> {
    // the runs that merge, found first, so that every other kernel moves
    // into the result instead of being copied (most graphs have none)
    let mut runs: Vec<(usize, usize, KernelPlan)> = Vec::new();
    let mut i = 0;
    while i < kernels.len() {
        match group_at(&kernels, i, outputs, device) {
            Some((end, merged)) => {
                runs.push((i, end, merged));
                i = end;
            }
            None => i += 1,
        }
    }
    if runs.is_empty() {
        return kernels;
    }
    let mut out = Vec::with_capacity(kernels.len());
    let mut runs = runs.into_iter().peekable();
    for (k, kp) in kernels.into_iter().enumerate() {
        match runs.peek() {
            Some(&(start, end, _)) if (start..end).contains(&k) => {
                if k + 1 == end
                    && let Some((_, _, merged)) = runs.next()
                {
                    out.push(merged);
                }
            }
            _ => out.push(kp),
        }
    }
    out
}

/// A reduction along the last axis of a [rows, cols] space that a row kernel can take.
fn row_reduction(kp: &KernelPlan) -> Option<(usize, usize)> {
    let ok = matches!(kp.strategy, Strategy::ReduceRows { split: 1, .. })
        && kp.shape.len() == 2
        && kp.kept == 1
        && kp.aux.is_empty()
        && !matches!(kp.reduce, Some(ReduceOp::ArgMin | ReduceOp::ArgMax) | None);
    ok.then(|| (kp.shape[0], kp.shape[1]))
}

fn elementwise(kp: &KernelPlan) -> bool {
    matches!(
        kp.strategy,
        Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. }
    ) && kp.aux.is_empty()
        && kp.window.is_none()
}

/// `view` (over an iteration space of rank 1 or 2) as a view over [rows, cols].
fn as_rows(view: &View, rows: usize, cols: usize) -> Option<View> {
    match view.shape.len() {
        2 if view.shape[..] == [rows, cols] => Some(view.clone()),
        // a collapsed map: linear element r * cols + c
        1 if view.shape[0] == rows * cols => Some(View {
            shape: smallvec::smallvec![rows, cols],
            strides: smallvec::smallvec![view.strides[0] * cols as isize, view.strides[0]],
            offset: view.offset,
        }),
        _ => None,
    }
}

/// The longest run of kernels from `start` that merges, with the merged kernel.
fn group_at(
    kernels: &[KernelPlan],
    start: usize,
    outputs: &HashSet<u64>,
    device: &DeviceInfo,
) -> Option<(usize, KernelPlan)> {
    let first = &kernels[start];
    let (rows, cols) = match row_reduction(first) {
        Some(rc) => rc,
        // an elementwise kernel that feeds the row reductions after it
        None if elementwise(first) => row_reduction(kernels.get(start + 1)?)?,
        None => return None,
    };
    if rows == 0 || cols == 0 {
        // empty rows: min/max must report their missing identity as before
        return None;
    }
    let mut m = Merger::new(rows, cols);
    let mut best = None;
    for (j, kp) in kernels.iter().enumerate().skip(start) {
        if m.add(kp).is_none() {
            break;
        }
        // Every intermediate stays inside the run (no output, no reader after
        // it), or is a value per row that the kernel writes too. On the CPU
        // only for long rows: short ones go several to a block there, where
        // the separate kernels' temporaries stay in cache and cost no more
        // (`CPU_EXTRA_COLS`).
        let escapes = |k: &KernelPlan| {
            outputs.contains(&k.output)
                || kernels[j + 1..].iter().any(|later| {
                    later
                        .operands
                        .iter()
                        .chain(&later.epi_operands)
                        .chain(&later.aux)
                        .any(|o| o.node == k.output)
                })
        };
        let mut extra = Vec::new();
        let mut fits = true;
        for (e, k) in kernels.iter().enumerate().take(j).skip(start) {
            if !escapes(k) {
                continue;
            }
            // the step computing its one value per row, in the kernel's dtype
            let step = m
                .values
                .get(&k.output)
                .filter(|&&(step, per_row)| per_row && m.steps[step].dtype == k.out_dtype)
                .map(|&(step, _)| step);
            match step {
                Some(step) if k.out_size() == rows && (device.gpu_kernels || cols > CPU_EXTRA_COLS) => {
                    extra.push((e, step))
                }
                _ => {
                    fits = false;
                    break;
                }
            }
        }
        if fits && j > start && !m.stages.is_empty() {
            best = Some((j + 1, m.clone(), extra));
        }
    }
    let (end, m, extra) = best?;
    let held = m.steps.len() * cols * 8;
    let extra: Vec<(&KernelPlan, usize)> = extra.into_iter().map(|(e, step)| (&kernels[e], step)).collect();
    let merged = m.finish(&kernels[start..end], &extra, device);
    // the fused CPU executor holds a row in one register per step (only rows
    // whose registers stay in L2), unless it streams the rows
    if !device.gpu_kernels && held > CPU_ROW_BYTES && !streams(&merged) {
        return None;
    }
    Some((end, merged))
}

/// Whether the CPU runs a row-resident kernel's rows streamed
/// (`block::eval_resident_streamed`, through `plan::rows_stream`): one value per row comes out, each
/// reduction reads values computed from loads alone (none depends on
/// another's result), and everything computed from a reduction reads only
/// operands constant along the row. Then a row goes through in blocks, each
/// stage's values are the only ones held a row long, and rows of any length
/// stay in cache: n-body's pairwise terms and their three sums in one pass,
/// with no n x n temporary.
pub fn streams(kp: &KernelPlan) -> bool {
    let Strategy::RowResident {
        stages,
        out,
        per_row: true,
        extra,
        ..
    } = &kp.strategy
    else {
        return false;
    };
    // per step: whether it reads a reduction's result, and whether it varies along the row
    let n = kp.body.len();
    let (mut after_row, mut along) = (vec![false; n], vec![false; n]);
    for (i, step) in kp.body.iter().enumerate() {
        match step.inst {
            Inst::Load(k) => match kp.operands.get(k).map(|o| o.view.strides.as_slice()) {
                Some([_, inner]) => along[i] = *inner != 0,
                _ => return false,
            },
            Inst::Row(_) => after_row[i] = true,
            Inst::Acc => return false,
            ref inst => {
                for a in inst.args() {
                    after_row[i] |= after_row[a];
                    along[i] |= along[a];
                }
            }
        }
        if after_row[i] && along[i] {
            return false;
        }
    }
    let per_row = |k: usize| k < n && !along[k];
    per_row(*out)
        && extra.iter().all(|e| per_row(e.value))
        && stages.iter().all(|st| st.value < n && !after_row[st.value])
}

#[derive(Clone)]
struct Merger {
    rows: usize,
    cols: usize,
    operands: Vec<Operand>,
    steps: Vec<Step>,
    stages: Vec<RowStage>,
    /// Outputs of the merged kernels: the step computing each, and whether it is per row.
    values: HashMap<u64, (usize, bool)>,
    last: (usize, bool),
}

impl Merger {
    fn new(rows: usize, cols: usize) -> Merger {
        Merger {
            rows,
            cols,
            operands: Vec::new(),
            steps: Vec::new(),
            stages: Vec::new(),
            values: HashMap::default(),
            last: (0, false),
        }
    }

    /// The step computing `inst`: an identical earlier one (the merged
    /// kernels' bodies repeat what they each recomputed, n-body's differences
    /// in its three sums), or a new one.
    fn push(&mut self, inst: Inst, dtype: crate::check::dtype::DType) -> usize {
        if let Some(s) = self.steps.iter().position(|s| s.inst == inst && s.dtype == dtype) {
            return s;
        }
        self.steps.push(Step { inst, dtype });
        self.steps.len() - 1
    }

    /// The step reading `o` through `view` ([rows, cols]); None when it reads
    /// an earlier kernel's output other than element for element (row for row).
    fn load(&mut self, o: &Operand, view: View) -> Option<usize> {
        if let Some(&(step, per_row)) = self.values.get(&o.node) {
            let want: [isize; 2] = if per_row { [1, 0] } else { [self.cols as isize, 1] };
            return (view.offset == 0 && view.strides[..] == want).then_some(step);
        }
        let k = match self.operands.iter().position(|x| x.node == o.node && x.view == view) {
            Some(k) => k,
            None => {
                let same = self.operands.iter().filter(|x| x.node == o.node).count();
                let base = o.label.split('.').next().unwrap_or(&o.label).to_string();
                let label = if same == 0 { base } else { format!("{base}.{same}") };
                self.operands.push(Operand {
                    label,
                    view,
                    ..o.clone()
                });
                self.operands.len() - 1
            }
        };
        if let Some(s) = self.steps.iter().position(|s| s.inst == Inst::Load(k)) {
            return Some(s);
        }
        Some(self.push(Inst::Load(k), o.dtype))
    }

    /// Appends `steps` (reading `operands` through `views`), `acc` standing
    /// for `Inst::Acc`; returns the step of the last one.
    fn append(&mut self, steps: &[Step], operands: &[Operand], views: &[View], acc: Option<usize>) -> Option<usize> {
        let mut map = Vec::with_capacity(steps.len());
        for st in steps {
            let new = match &st.inst {
                Inst::Load(k) => self.load(&operands[*k], views[*k].clone())?,
                Inst::Acc => acc?,
                Inst::Row(_) => return None,
                Inst::Cast(a) => self.push(Inst::Cast(map[*a]), st.dtype),
                Inst::Unary(u, a) => self.push(Inst::Unary(*u, map[*a]), st.dtype),
                Inst::Binary(b, x, y) => self.push(Inst::Binary(*b, map[*x], map[*y]), st.dtype),
                Inst::Where(c, x, y) => self.push(Inst::Where(map[*c], map[*x], map[*y]), st.dtype),
            };
            map.push(new);
        }
        map.last().copied()
    }

    /// Merges one more kernel; None when it does not fit the run.
    fn add(&mut self, kp: &KernelPlan) -> Option<()> {
        let (rows, cols) = (self.rows, self.cols);
        if kp.shape == [rows] && rows != rows * cols {
            return self.add_per_row(kp);
        }
        let views: Vec<View> = kp
            .operands
            .iter()
            .map(|o| as_rows(&o.view, rows, cols))
            .collect::<Option<_>>()?;
        if let Some(rc) = row_reduction(kp) {
            if rc != (rows, cols) {
                return None;
            }
            let op = kp.reduce?;
            let value = self.append(&kp.body, &kp.operands, &views, None)?;
            let acc = kp
                .epilogue
                .iter()
                .find(|s| s.inst == Inst::Acc)
                .map(|s| s.dtype)
                .unwrap_or(kp.out_dtype);
            // a reduction of a value already reduced the same way (`mean` and
            // `var` of one array both sum it) is the earlier stage's result
            let stage = RowStage { op, value, acc };
            let k = match self.stages.iter().position(|s| *s == stage) {
                Some(k) => k,
                None => {
                    self.stages.push(stage);
                    self.stages.len() - 1
                }
            };
            let row = self.push(Inst::Row(k), acc);
            let result = if kp.epilogue.is_empty() {
                row
            } else {
                // epilogue operands live in the kept space [rows]: constant along a row
                let epi_views: Vec<View> = kp
                    .epi_operands
                    .iter()
                    .map(|o| match o.view.shape.as_slice() {
                        [r] if *r == rows => Some(View {
                            shape: smallvec::smallvec![rows, cols],
                            strides: smallvec::smallvec![o.view.strides[0], 0],
                            offset: o.view.offset,
                        }),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                self.append(&kp.epilogue, &kp.epi_operands, &epi_views, Some(row))?
            };
            self.values.insert(kp.output, (result, true));
            self.last = (result, true);
            return Some(());
        }
        if !elementwise(kp) || kp.out_size() != rows * cols {
            return None;
        }
        let result = self.append(&kp.body, &kp.operands, &views, None)?;
        // a value the same along each row stays per row (written once per row if last)
        self.values.insert(kp.output, (result, false));
        self.last = (result, false);
        Some(())
    }

    /// A kernel in the rows' own space [rows]: a map of row values (a
    /// logsumexp's shift), or a reduction over nothing (of a kept size-1 axis).
    fn add_per_row(&mut self, kp: &KernelPlan) -> Option<()> {
        let (rows, cols) = (self.rows, self.cols);
        let per_row = |ops: &[Operand]| -> Option<Vec<View>> {
            ops.iter()
                .map(|o| match o.view.shape.as_slice() {
                    [r] if *r == rows => Some(View {
                        shape: smallvec::smallvec![rows, cols],
                        strides: smallvec::smallvec![o.view.strides[0], 0],
                        offset: o.view.offset,
                    }),
                    _ => None,
                })
                .collect()
        };
        let result = if elementwise(kp) {
            self.append(&kp.body, &kp.operands, &per_row(&kp.operands)?, None)?
        } else if kp.strategy == Strategy::ReduceGeneral
            && kp.kept == 1
            && matches!(
                kp.reduce,
                Some(ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Min | ReduceOp::Max)
            )
            && kp.aux.is_empty()
        {
            // one element per output: the reduction is its value in the accumulator's dtype
            let value = self.append(&kp.body, &kp.operands, &per_row(&kp.operands)?, None)?;
            let acc = kp
                .epilogue
                .iter()
                .find(|s| s.inst == Inst::Acc)
                .map(|s| s.dtype)
                .unwrap_or(kp.out_dtype);
            let one = if self.steps[value].dtype == acc {
                value
            } else {
                self.push(Inst::Cast(value), acc)
            };
            if kp.epilogue.is_empty() {
                one
            } else {
                self.append(&kp.epilogue, &kp.epi_operands, &per_row(&kp.epi_operands)?, Some(one))?
            }
        } else {
            return None;
        };
        self.values.insert(kp.output, (result, true));
        self.last = (result, true);
        Some(())
    }

    /// The merged kernel of `run`, also writing the per-row values of `extra`
    /// (kernels of the run whose outputs are read after it, each with the
    /// step that computes it).
    fn finish(self, run: &[KernelPlan], extra: &[(&KernelPlan, usize)], device: &DeviceInfo) -> KernelPlan {
        let last = run.last().expect("a run has kernels");
        let (rows, cols) = (self.rows, self.cols);
        let mut kp = KernelPlan {
            strategy: Strategy::Map,
            output: last.output,
            out_label: last.out_label.clone(),
            out_dtype: last.out_dtype,
            out_shape: last.out_shape.clone(),
            nodes: Vec::new(),
            ops: Vec::new(),
            operands: self.operands,
            body: self.steps,
            reduce: None,
            kept: 1,
            epi_operands: Vec::new(),
            epilogue: Vec::new(),
            shape: vec![rows, cols],
            vec: 1,
            index32: false,
            grid: (1, 1),
            block: 256,
            bytes_read: 0,
            bytes_written: last.bytes_written,
            aux: Vec::new(),
            window: None,
        };
        for k in run {
            for n in &k.nodes {
                if !kp.nodes.contains(n) {
                    kp.nodes.push(*n);
                }
            }
            kp.ops.extend(k.ops.iter().cloned());
        }
        let extra: Vec<ExtraOut> = extra
            .iter()
            .map(|&(k, value)| {
                let node = kp.nodes.iter().position(|&n| n == k.output).unwrap_or_else(|| {
                    kp.nodes.push(k.output);
                    kp.nodes.len() - 1
                });
                ExtraOut {
                    node,
                    label: k.out_label.clone(),
                    value,
                    dtype: k.out_dtype,
                    shape: k.out_shape.clone(),
                }
            })
            .collect();
        kp.bytes_written += extra.iter().map(|o| (rows * o.dtype.size_bytes()) as u64).sum::<u64>();
        kp.bytes_read = kp.operands.iter().map(operand_bytes).sum();
        kp.index32 = fits_32(&kp);
        // 16-byte accesses when every operand that moves along the row moves by 1, rows aligned
        let along = |o: &Operand| o.view.strides[1] != 0;
        // the widest dtype that moves along the row sets the access width
        let widest = kp
            .operands
            .iter()
            .filter(|o| along(o) && o.source == Source::Buffer)
            .map(|o| o.dtype.size_bytes())
            .chain((!self.last.1).then_some(kp.out_dtype.size_bytes()))
            .max()
            .unwrap_or(4);
        let full = (16 / widest.max(4)) as u32;
        let vec_ok = cols.is_multiple_of(full as usize)
            && kp.operands.iter().filter(|o| along(o)).all(|o| {
                o.source != Source::Buffer
                    || (o.view.strides[1] == 1
                        && o.view.offset.is_multiple_of(full as usize)
                        && o.view.strides[0] % full as isize == 0)
            });
        kp.vec = if vec_ok { full } else { 1 };
        let units = cols.div_ceil(kp.vec as usize);
        let lanes = units.div_ceil(UNITS_PER_LANE).next_power_of_two().clamp(32, 1024);
        let per_lane = units.div_ceil(lanes);
        let words: usize = kp
            .operands
            .iter()
            .filter(|o| along(o))
            .map(|o| o.dtype.size_bytes().div_ceil(4))
            .sum::<usize>()
            * per_lane
            * kp.vec as usize;
        let budget = if lanes >= 512 { HELD_WORDS_BIG_BLOCK } else { HELD_WORDS };
        let held = if words <= budget { per_lane as u32 } else { 0 };
        kp.block = if lanes == 32 { 256 } else { lanes as u32 };
        let rows_per_block = (kp.block as usize / lanes) as u64;
        let needed = (rows as u64).div_ceil(rows_per_block).max(1);
        kp.grid = (needed.min(device.resident_blocks(kp.block) * 16) as u32, 1);
        kp.strategy = Strategy::RowResident {
            stages: self.stages,
            out: self.last.0,
            per_row: self.last.1,
            lanes: lanes as u32,
            units: held,
            extra,
        };
        kp
    }
}
