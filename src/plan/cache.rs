//! The plan cache: a loop that builds the same graph every iteration plans
//! (and generates kernel source) once. A pending graph is keyed by its
//! structure — per node its operation, dtype and shape; per input edge the
//! producer's position (or the leaf's first-use number) with its dtype, view
//! shape and strides — and by which nodes are outputs. Node ids, random keys
//! and the offsets of views onto leaves are left out: a hit re-binds them from
//! the new graph. Offsets of views between pending nodes stay in the key,
//! because they decide what fuses.
//!
//! Why a leaf's offset can be re-bound: the planner composes a leaf's view
//! with the (keyed) views between pending nodes, and the composed offset is
//! the leaf's offset plus a constant; so when every view onto one leaf moves
//! by the same delta, every operand reading that leaf moves by it too. The
//! offset-dependent choices (vector width by alignment, 32-bit indexing) are
//! checked again on the re-bound plan; if one no longer holds it is a miss.
//!
//! A cache made `shape_generic` (the fused CPU executor's) also serves a graph
//! whose shapes changed but not its structure: LU's steps, each on a smaller
//! trailing slice, or a REPL user trying sizes. Its second key keeps only
//! which dimensions are equal (and which are 0 or 1), not their sizes. That
//! is sound where every kernel of the plan is a map reading leaves: its body
//! does not depend on sizes, each operand is a leaf's view with the new
//! sizes, and the finishing step (collapsing axes, vector width, strategy) is
//! run again for them. A view between pending nodes must then read its
//! producer axis for axis (or broadcast it), so that composing views does
//! not depend on sizes either; a graph with any other has no generic key.

use super::{DeviceInfo, KernelPlan, Operand, Plan, Source, Strategy, finish_elementwise, fits_32};
use crate::check::dtype::DType;
use crate::graph::op::Op;
use crate::graph::view::{View, contiguous_strides};
use crate::graph::{Node, NodeState};
use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// The structural key of a pending graph plus what a hit re-binds.
#[derive(Clone, Debug, Default)]
pub struct Signature {
    key: Vec<u64>,
    /// Canonical numbering: the nodes' ids in order, then leaves by first use.
    ids: Vec<u64>,
    /// Per input edge onto a leaf, in graph order: (canonical index, view offset).
    leaf_edges: Vec<(usize, usize)>,
    /// Random keys by canonical index.
    random_keys: Vec<(usize, u64)>,
    /// Canonical index by node id.
    pos: FxHashMap<u64, usize>,
    /// The shape-generic key (`fill_generic`).
    generic: Vec<u64>,
    /// The sizes the generic key's dimension symbols stand for, by symbol.
    dims: Vec<usize>,
}

/// In a shape-generic key, the i-th distinct dimension of at least 2 is
/// `SYM + i`; 0 and 1 stay themselves (they decide broadcasting and which
/// axes a kernel drops).
const SYM: u64 = 1 << 62;

/// A generic key's token for an axis of a view between pending nodes that
/// broadcasts (stride 0), and for one that reads the producer's same axis
/// whole (`aligned`).
const AXIS_BROADCAST: u64 = 1;
const AXIS_SAME: u64 = 2;

/// The symbol of dimension `d` in `dims`, added if new.
fn dim_symbol(d: usize, dims: &mut Vec<usize>) -> u64 {
    if d < 2 {
        return d as u64;
    }
    let i = dims.iter().position(|&x| x == d).unwrap_or_else(|| {
        dims.push(d);
        dims.len() - 1
    });
    SYM + i as u64
}

/// Tokens for `view` of a pending producer of `shape` that reads it axis
/// for axis, each axis broadcast or whole, from its start; `false` (nothing
/// pushed that matters) for any other view. The planner composes such a view
/// with the producer's inputs the same way whatever the sizes.
fn aligned(view: &View, shape: &[usize], key: &mut Vec<u64>) -> bool {
    if view.offset != 0 || view.rank() != shape.len() {
        return false;
    }
    let whole = contiguous_strides(shape);
    for j in 0..shape.len() {
        if view.strides[j] == 0 {
            key.push(AXIS_BROADCAST);
        } else if view.strides[j] == whole[j] && view.shape[j] == shape[j] {
            key.push(AXIS_SAME);
        } else {
            return false;
        }
    }
    true
}

/// Appends the outputs to `key` as a set (sorted, without repeats), each by
/// its canonical index.
fn push_outputs(key: &mut Vec<u64>, outputs: &[Rc<Node>], pos: &FxHashMap<u64, usize>) {
    let start = key.len();
    key.extend(
        outputs
            .iter()
            .map(|o| pos.get(&o.id).map_or(u64::MAX - 1, |&p| p as u64)),
    );
    key[start..].sort_unstable();
    let mut kept = start;
    for r in start..key.len() {
        if kept == start || key[r] != key[kept - 1] {
            key[kept] = key[r];
            kept += 1;
        }
    }
    key.truncate(kept);
}

fn dtype_code(d: DType) -> u64 {
    match d {
        DType::Bool => 1,
        DType::I32 => 2,
        DType::I64 => 3,
        DType::F32 => 4,
        DType::F64 => 5,
        DType::F16 => 6,
        DType::BF16 => 7,
        DType::U8 => 8,
        DType::I8 => 9,
        DType::I16 => 10,
        DType::U16 => 11,
        DType::U32 => 12,
    }
}

/// Tokens for an operation, random keys left out.
fn op_tokens(op: &Op, key: &mut Vec<u64>) {
    match op {
        Op::Buffer => key.push(1),
        Op::Copy => key.push(2),
        Op::Cast => key.push(3),
        Op::Unary(u) => key.extend([4, *u as u64]),
        Op::Binary(b) => key.extend([5, b.code()]),
        Op::Where => key.push(6),
        Op::MatMul => key.push(7),
        Op::Random { dist, .. } => key.extend([8, *dist as u64]),
        Op::Arange { start, step } => key.extend([9, start.to_bits(), step.to_bits()]),
        Op::Reduce { op, axes } => {
            key.extend([10, *op as u64, axes.len() as u64]);
            key.extend(axes.iter().map(|&a| a as u64));
        }
        other => {
            // rarer operations with parameters: their printed form is exact
            let text = format!("{other:?}");
            key.extend([11, text.len() as u64]);
            key.extend(text.as_bytes().chunks(8).map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            }));
        }
    }
}

impl Signature {
    /// Makes this the signature of `nodes` (pending, inputs before
    /// consumers) with `outputs` materialised, reusing its
    /// vectors: a loop computes one signature per realize, and fresh ones
    /// were a tenth of a small statement's allocations.
    pub fn fill(&mut self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) {
        let Signature {
            key,
            ids,
            leaf_edges,
            random_keys,
            pos,
            ..
        } = self;
        key.clear();
        ids.clear();
        leaf_edges.clear();
        random_keys.clear();
        pos.clear();
        // after an insert took the vectors, this is a fresh signature: size it once
        key.reserve(nodes.len() * 16);
        ids.reserve(nodes.len() * 2);
        pos.reserve(nodes.len() * 2);
        for (i, n) in nodes.iter().enumerate() {
            pos.insert(n.id, i);
            ids.push(n.id);
        }
        key.push(nodes.len() as u64);
        for (i, n) in nodes.iter().enumerate() {
            key.push(dtype_code(n.dtype));
            key.push(n.shape.len() as u64);
            key.extend(n.shape.iter().map(|&d| d as u64));
            match &*n.state.borrow() {
                NodeState::Ready(_) => key.push(0),
                NodeState::Pending { op, inputs } => {
                    op_tokens(op, key);
                    if let Op::Random { key: k, .. } = op {
                        random_keys.push((i, *k));
                    }
                    key.push(inputs.len() as u64);
                    for a in inputs {
                        // a producer that is pending here fuses through its view: the offset is structure
                        let pending_producer = pos
                            .get(&a.node.id)
                            .copied()
                            .filter(|&p| p < nodes.len() && !matches!(&*nodes[p].state.borrow(), NodeState::Ready(_)));
                        let c = match pos.get(&a.node.id) {
                            Some(&p) => p,
                            None => {
                                let c = ids.len();
                                pos.insert(a.node.id, c);
                                ids.push(a.node.id);
                                c
                            }
                        };
                        key.push(c as u64);
                        key.push(dtype_code(a.dtype()));
                        key.push(a.view.shape.len() as u64);
                        key.extend(a.view.shape.iter().map(|&d| d as u64));
                        key.extend(a.view.strides.iter().map(|&s| s as u64));
                        if pending_producer.is_some() {
                            key.push(a.view.offset as u64);
                        } else {
                            leaf_edges.push((c, a.view.offset));
                        }
                    }
                }
            }
        }
        key.push(u64::MAX);
        push_outputs(key, outputs, pos);
    }

    /// Makes `generic` the shape-generic key of the graph `fill` was last
    /// given (the same `nodes` and `outputs`), and `dims` the sizes of its
    /// symbols; `false` when the graph has none (a view between pending
    /// nodes that is not `aligned`).
    pub fn fill_generic(&mut self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> bool {
        let Signature { generic, dims, pos, .. } = self;
        generic.clear();
        dims.clear();
        generic.push(nodes.len() as u64);
        for n in nodes {
            generic.push(dtype_code(n.dtype));
            generic.push(n.shape.len() as u64);
            for &d in n.shape.iter() {
                let t = dim_symbol(d, dims);
                generic.push(t);
            }
            match &*n.state.borrow() {
                NodeState::Ready(_) => generic.push(0),
                NodeState::Pending { op, inputs } => {
                    op_tokens(op, generic);
                    generic.push(inputs.len() as u64);
                    for a in inputs {
                        let Some(&c) = pos.get(&a.node.id) else { return false };
                        generic.extend([c as u64, dtype_code(a.dtype()), a.view.rank() as u64]);
                        for &d in a.view.shape.iter() {
                            let t = dim_symbol(d, dims);
                            generic.push(t);
                        }
                        let producer = nodes
                            .get(c)
                            .filter(|p| !matches!(&*p.state.borrow(), NodeState::Ready(_)));
                        match producer {
                            Some(p) => {
                                if !aligned(&a.view, &p.shape, generic) {
                                    return false;
                                }
                            }
                            // a leaf's strides are its buffer's: literal; its offset is re-bound
                            None => generic.extend(a.view.strides.iter().map(|&s| s as u64)),
                        }
                    }
                }
            }
        }
        generic.push(u64::MAX);
        push_outputs(generic, outputs, pos);
        true
    }
}

/// A cached plan with node ids replaced by canonical indices, and what the
/// backend attached to each kernel (its compiled module).
struct Entry<T> {
    template: Plan,
    leaf_edges: Vec<(usize, usize)>,
    payload: Vec<Option<T>>,
    /// Which insert made this entry, so a plan handed back (`recycle`) for
    /// an entry that was since replaced is not taken for the new one.
    generation: u64,
    /// A plan re-bound from this template and handed back after it ran: the
    /// next hit overwrites its ids and offsets in place instead of cloning
    /// the template (a clone is a dozen small allocations per kernel, about
    /// a fifth of those a statement of a loop makes).
    spare: Option<Plan>,
}

/// Counts for `--profile` and tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Graphs planned from scratch.
    pub plans: u64,
    /// Graphs whose plan came from the cache.
    pub hits: u64,
    /// Of those, the graphs whose plan was a shape-generic entry's, finished
    /// for their sizes.
    pub generic_hits: u64,
}

/// A plan kept by its graph's shape-generic key: node ids canonical, and
/// the sizes its dimension symbols stood for.
struct GenericEntry {
    template: Plan,
    leaf_edges: Vec<(usize, usize)>,
    dims: Vec<usize>,
    /// The plan of the last hit, handed back (`recycle`): the next hit
    /// re-binds it in place instead of cloning the template (a loop whose
    /// slices change size every iteration hits this entry every statement).
    spare: Option<Plan>,
}

/// The shape-generic side of a cache (`PlanCache::shape_generic`).
struct Generic {
    /// The device the planner finishes kernels for.
    device: DeviceInfo,
    index: FxHashMap<Vec<u64>, usize>,
    entries: Vec<GenericEntry>,
    /// Bumped when `entries` is cleared, so that a stale `recycle` is dropped.
    generation: u64,
    /// Hashes of the generic keys planned once and not kept.
    seen: FxHashSet<u64>,
}

/// Plans by graph structure, each with a payload per kernel (`T`: whatever
/// the backend keeps to launch that kernel again without generating it).
pub struct PlanCache<T> {
    index: FxHashMap<Vec<u64>, usize>,
    entries: Vec<Entry<T>>,
    /// With `admit_on_repeat`: hashes of the keys planned once and not cached.
    seen: Option<FxHashSet<u64>>,
    generations: u64,
    /// The signature of the graph being looked up, its vectors reused.
    scratch: Signature,
    generic: Option<Generic>,
    pub stats: CacheStats,
}

/// Key hashes `admit_on_repeat` remembers before it starts over.
const MAX_SEEN: usize = 4096;

/// Graphs of more pending nodes than this are cached at once even under
/// `admit_on_repeat`: planning n-body's step (about 30 nodes) costs far more
/// than copying its plan.
const ADMIT_AT_ONCE: usize = 8;

/// Entries kept before the cache starts over (a program with more distinct
/// graph shapes than this is not looping over them).
const MAX_ENTRIES: usize = 512;

impl<T> Default for PlanCache<T> {
    fn default() -> Self {
        PlanCache {
            index: FxHashMap::default(),
            entries: Vec::new(),
            seen: None,
            generations: 0,
            scratch: Signature::default(),
            generic: None,
            stats: CacheStats::default(),
        }
    }
}

/// A plan ready to run: from the cache (`entry` names it) or freshly made.
pub struct Planned {
    pub plan: Plan,
    pub entry: usize,
    /// The entry's generation, for `recycle`.
    pub generation: u64,
    pub hit: bool,
    /// `entry` is a shape-generic entry's.
    pub generic: bool,
}

impl<T> PlanCache<T> {
    pub fn new() -> PlanCache<T> {
        PlanCache::default()
    }

    /// A cache that keeps the plan of a small graph (at most `ADMIT_AT_ONCE`
    /// pending nodes) only when the graph comes a second time. For the fused
    /// CPU executor, where planning a small graph is cheap and a cached
    /// template is one more copy of the plan: a loop whose graphs change
    /// shape every iteration (LU's shrinking trailing slice) never hits, and
    /// copying each plan into the cache was about 6% of the loop's
    /// instructions; a loop of unchanging small graphs plans twice, then hits.
    pub fn admit_on_repeat() -> PlanCache<T> {
        PlanCache {
            seen: Some(FxHashSet::default()),
            ..PlanCache::default()
        }
    }

    /// This cache also serves graphs whose sizes changed but not their
    /// structure (see the module's doc), finishing their kernels for `device`,
    /// the device `get_or_plan`'s planner plans for. A generic entry is kept
    /// when its key comes a second time, as `admit_on_repeat` keeps exact ones.
    pub fn shape_generic(mut self, device: DeviceInfo) -> PlanCache<T> {
        self.generic = Some(Generic {
            device,
            index: FxHashMap::default(),
            entries: Vec::new(),
            generation: 0,
            seen: FxHashSet::default(),
        });
        self
    }

    /// The plan for `nodes`: re-bound from the cache, or made by `make` and cached.
    pub fn get_or_plan(&mut self, nodes: &[Rc<Node>], outputs: &[Rc<Node>], make: impl FnOnce() -> Plan) -> Planned {
        let mut sig = std::mem::take(&mut self.scratch);
        sig.fill(nodes, outputs);
        if let Some(&e) = self.index.get(&sig.key)
            && let Some(plan) = self.rebind(e, &sig)
        {
            self.scratch = sig;
            self.stats.hits += 1;
            return Planned {
                plan,
                entry: e,
                generation: self.entries[e].generation,
                hit: true,
                generic: false,
            };
        }
        let has_generic = self.generic.is_some() && sig.fill_generic(nodes, outputs);
        if has_generic
            && let Some(g) = &mut self.generic
            && let Some(&e) = g.index.get(&sig.generic)
            && let Some(plan) = rebind_generic(&mut g.entries[e], &sig, &g.device)
        {
            let generation = g.generation;
            self.scratch = sig;
            self.stats.hits += 1;
            self.stats.generic_hits += 1;
            return Planned {
                plan,
                entry: e,
                generation,
                hit: true,
                generic: true,
            };
        }
        let plan = make();
        self.stats.plans += 1;
        if has_generic {
            self.keep_generic(&sig, nodes.len(), &plan);
        }
        if let Some(seen) = &mut self.seen
            && nodes.len() <= ADMIT_AT_ONCE
        {
            let mut h = FxHasher::default();
            sig.key.hash(&mut h);
            // a collision only admits a graph early
            if seen.len() >= MAX_SEEN {
                seen.clear();
            }
            if seen.insert(h.finish()) {
                self.scratch = sig;
                return Planned {
                    plan,
                    entry: usize::MAX,
                    generation: 0,
                    hit: false,
                    generic: false,
                };
            }
        }
        let entry = self.insert(sig, &plan);
        Planned {
            plan,
            entry,
            generation: self.generations,
            hit: false,
            generic: false,
        }
    }

    /// Hands back a plan that `get_or_plan` returned and that has run, so
    /// that its entry's next hit re-binds it in place.
    pub fn recycle(&mut self, planned: Planned) {
        if planned.generic {
            if let Some(g) = &mut self.generic
                && g.generation == planned.generation
                && let Some(e) = g.entries.get_mut(planned.entry)
            {
                e.spare = Some(planned.plan);
            }
        } else if let Some(e) = self.entries.get_mut(planned.entry)
            && e.generation == planned.generation
        {
            e.spare = Some(planned.plan);
        }
    }

    /// What the backend attached to kernel `k` of `planned`'s entry (never
    /// a shape-generic entry's: its kernels differ from size to size).
    pub fn payload(&self, planned: &Planned, k: usize) -> Option<&T> {
        if planned.generic {
            return None;
        }
        self.entries.get(planned.entry)?.payload.get(k)?.as_ref()
    }

    pub fn set_payload(&mut self, planned: &Planned, k: usize, value: T) {
        if planned.generic {
            return;
        }
        if let Some(slot) = self.entries.get_mut(planned.entry).and_then(|e| e.payload.get_mut(k)) {
            *slot = Some(value);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Keeps `plan` under `sig`'s generic key if that key came before and
    /// the plan is one a generic entry may serve (`generic_ok`).
    fn keep_generic(&mut self, sig: &Signature, pending: usize, plan: &Plan) {
        let Some(g) = &mut self.generic else { return };
        let mut h = FxHasher::default();
        sig.generic.hash(&mut h);
        if g.seen.len() >= MAX_SEEN {
            g.seen.clear();
        }
        if g.seen.insert(h.finish()) || g.index.contains_key(&sig.generic) {
            return;
        }
        let canon: FxHashMap<u64, usize> = sig.ids.iter().enumerate().map(|(c, &id)| (id, c)).collect();
        let Some(template) = map_ids(plan, |id| canon.get(&id).map(|&c| c as u64)) else {
            return;
        };
        if !generic_ok(&template, pending) {
            return;
        }
        if g.entries.len() >= MAX_ENTRIES {
            g.entries.clear();
            g.index.clear();
            g.generation += 1;
        }
        g.index.insert(sig.generic.clone(), g.entries.len());
        g.entries.push(GenericEntry {
            template,
            leaf_edges: sig.leaf_edges.clone(),
            dims: sig.dims.clone(),
            spare: None,
        });
    }

    fn insert(&mut self, sig: Signature, plan: &Plan) -> usize {
        let canon: FxHashMap<u64, usize> = sig.ids.iter().enumerate().map(|(c, &id)| (id, c)).collect();
        let Some(template) = map_ids(plan, |id| canon.get(&id).map(|&c| c as u64)) else {
            // a plan naming a node outside the graph: never cache it
            return usize::MAX;
        };
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
            self.index.clear();
        }
        self.generations += 1;
        let entry = Entry {
            payload: (0..plan.kernels.len()).map(|_| None).collect(),
            template,
            leaf_edges: sig.leaf_edges,
            generation: self.generations,
            spare: None,
        };
        match self.index.get(&sig.key) {
            Some(&e) => {
                self.entries[e] = entry;
                e
            }
            None => {
                self.entries.push(entry);
                self.index.insert(sig.key, self.entries.len() - 1);
                self.entries.len() - 1
            }
        }
    }

    /// The cached plan with the new graph's ids, offsets and keys, or `None`
    /// when the new offsets would change a choice the planner made.
    fn rebind(&mut self, e: usize, sig: &Signature) -> Option<Plan> {
        let entry = self.entries.get_mut(e)?;
        let moves = LeafMoves::between(&entry.leaf_edges, sig)?;
        let id = |c: u64| sig.ids.get(c as usize).copied();
        let mut plan = match entry.spare.take() {
            Some(mut spare) => {
                rebind_in_place(&entry.template, &mut spare, id)?;
                spare
            }
            None => map_ids(&entry.template, id)?,
        };
        let keys: FxHashMap<u64, u64> = sig.random_keys.iter().map(|&(c, k)| (sig.ids[c], k)).collect();
        let any_moved = moves.any();
        for kp in &mut plan.kernels {
            let vec = kp.vec as isize;
            let mut ok = true;
            let mut fix = |o: &mut Operand| {
                if let Source::Random { key, .. } = &mut o.source
                    && let Some(&k) = keys.get(&o.node)
                {
                    *key = k;
                }
                if any_moved && o.source == Source::Buffer {
                    let d = moves.of(o.node);
                    if d != 0 {
                        let off = o.view.offset as isize + d;
                        // a vectorised kernel relies on each operand's alignment
                        if off < 0 || (vec > 1 && d % vec != 0) {
                            ok = false;
                        }
                        o.view.offset = off.max(0) as usize;
                    }
                }
            };
            kp.operands.iter_mut().for_each(&mut fix);
            kp.epi_operands.iter_mut().for_each(&mut fix);
            kp.aux.iter_mut().for_each(&mut fix);
            if !ok || (any_moved && kp.index32 != fits_32(kp)) {
                return None;
            }
        }
        Some(plan)
    }
}

/// Whether a generic entry may serve `template` (canonical ids; `pending`
/// pending nodes) to graphs of other sizes: every kernel a map over its
/// output's own axes (none merged or dropped, so the operands' views are the
/// graph's edges onto leaves, in the output's shape), reading only leaves.
fn generic_ok(template: &Plan, pending: usize) -> bool {
    template.kernels.iter().all(|kp| {
        matches!(
            kp.strategy,
            Strategy::Map | Strategy::Broadcast | Strategy::Sliding { .. }
        ) && kp.window.is_none()
            && kp.reduce.is_none()
            && kp.epilogue.is_empty()
            && kp.epi_operands.is_empty()
            && kp.aux.is_empty()
            && kp.shape == kp.out_shape
            && kp.operands.iter().all(|o| {
                o.source == Source::Buffer
                    && o.node as usize >= pending
                    && o.view.shape.as_slice() == kp.out_shape.as_slice()
            })
    })
}

/// How far each leaf's views moved from a cached plan's graph to the new
/// one: by node id, one delta per leaf, the same on all its edges (see the
/// module's doc).
struct LeafMoves(Vec<(u64, isize)>);

impl LeafMoves {
    /// The moves from the cached `leaf_edges` to `sig`'s; `None` when the
    /// edges differ or one leaf's edges moved by different amounts.
    fn between(leaf_edges: &[(usize, usize)], sig: &Signature) -> Option<LeafMoves> {
        if leaf_edges.len() != sig.leaf_edges.len() {
            return None;
        }
        let mut moves: Vec<(u64, isize)> = Vec::with_capacity(4);
        for (&(c, old), &(c2, new)) in leaf_edges.iter().zip(&sig.leaf_edges) {
            if c != c2 {
                return None;
            }
            let id = *sig.ids.get(c)?;
            let d = new as isize - old as isize;
            match moves.iter().find(|(l, _)| *l == id) {
                Some(&(_, seen)) if seen != d => return None,
                Some(_) => {}
                None => moves.push((id, d)),
            }
        }
        Some(LeafMoves(moves))
    }

    /// The delta of `node`'s views (0 for a node that is not a moved leaf).
    fn of(&self, node: u64) -> isize {
        self.0.iter().find(|(l, _)| *l == node).map_or(0, |&(_, d)| d)
    }

    fn any(&self) -> bool {
        self.0.iter().any(|&(_, d)| d != 0)
    }
}

/// The plan of `entry` for the graph of `sig`: ids and leaf offsets re-bound
/// as `PlanCache::rebind` does, every size replaced by the one its symbol
/// stands for now, and each kernel finished again for those sizes; `None`
/// when the leaves moved unevenly or a size has no symbol.
fn rebind_generic(entry: &mut GenericEntry, sig: &Signature, device: &DeviceInfo) -> Option<Plan> {
    if entry.dims.len() != sig.dims.len() {
        return None;
    }
    let moves = LeafMoves::between(&entry.leaf_edges, sig)?;
    let id = |c: u64| sig.ids.get(c as usize).copied();
    let mut plan = match entry.spare.take() {
        Some(mut spare) => {
            for (t, kp) in entry.template.kernels.iter().zip(&mut spare.kernels) {
                restore_sized(t, kp);
            }
            rebind_in_place(&entry.template, &mut spare, id)?;
            spare
        }
        None => map_ids(&entry.template, id)?,
    };
    let size = |d: usize| -> Option<usize> {
        if d < 2 {
            return Some(d);
        }
        entry.dims.iter().position(|&x| x == d).map(|i| sig.dims[i])
    };
    for kp in &mut plan.kernels {
        for d in kp.out_shape.iter_mut() {
            *d = size(*d)?;
        }
        for o in &mut kp.operands {
            for d in o.view.shape.iter_mut() {
                *d = size(*d)?;
            }
            o.view.offset = usize::try_from(o.view.offset as isize + moves.of(o.node)).ok()?;
        }
        // as `Planner::blank_kernel` counts it; `finish_elementwise` counts the reads
        kp.bytes_written = (kp.out_size() * kp.out_dtype.size_bytes()) as u64;
        finish_elementwise(kp, device);
    }
    Some(plan)
}

/// Overwrites in `kp` (a re-binding of the generic template `t` for other
/// sizes) everything that depends on sizes with `t`'s values, keeping its
/// allocations; the fields that do not (labels, ops, body) stay as they are.
fn restore_sized(t: &KernelPlan, kp: &mut KernelPlan) {
    // spelled out so that a new field is a compile error here until decided
    let KernelPlan {
        strategy,
        output: _,
        out_label: _,
        out_dtype: _,
        out_shape,
        nodes: _,
        ops: _,
        operands,
        body: _,
        reduce: _,
        kept,
        epi_operands: _,
        epilogue: _,
        shape,
        vec,
        index32,
        grid,
        block,
        bytes_read,
        bytes_written,
        aux: _,
        window,
    } = kp;
    *strategy = t.strategy.clone();
    out_shape.clone_from(&t.out_shape);
    for (o, to) in operands.iter_mut().zip(&t.operands) {
        o.view.clone_from(&to.view);
    }
    *kept = t.kept;
    shape.clone_from(&t.shape);
    *vec = t.vec;
    *index32 = t.index32;
    *grid = t.grid;
    *block = t.block;
    *bytes_read = t.bytes_read;
    *bytes_written = t.bytes_written;
    window.clone_from(&t.window);
}

/// Overwrites what a hit re-binds (node ids, view offsets, random keys) in
/// `plan`, an earlier re-binding of `template`, with `template`'s values,
/// ids mapped by `f`; `None` if one does not map.
fn rebind_in_place(template: &Plan, plan: &mut Plan, f: impl Fn(u64) -> Option<u64>) -> Option<()> {
    for (t, kp) in template.kernels.iter().zip(&mut plan.kernels) {
        kp.output = f(t.output)?;
        for (n, &c) in kp.nodes.iter_mut().zip(&t.nodes) {
            *n = f(c)?;
        }
        let operands = kp.operands.iter_mut().chain(&mut kp.epi_operands).chain(&mut kp.aux);
        let from = t.operands.iter().chain(&t.epi_operands).chain(&t.aux);
        for (o, c) in operands.zip(from) {
            o.node = f(c.node)?;
            o.view.offset = c.view.offset;
            o.source = c.source.clone();
        }
    }
    Some(())
}

/// The plan with every node id mapped by `f`; `None` if one does not map.
fn map_ids(plan: &Plan, f: impl Fn(u64) -> Option<u64>) -> Option<Plan> {
    let mut out = plan.clone();
    rebind_in_place(plan, &mut out, f)?;
    Some(out)
}
