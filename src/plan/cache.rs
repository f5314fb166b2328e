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

use super::{Operand, Plan, Source, fits_32};
use crate::check::dtype::DType;
use crate::graph::op::Op;
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
    /// Canonical index by node id (kept only to reuse its allocation).
    pos: FxHashMap<u64, usize>,
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
    }
}

/// Tokens for an operation, random keys left out.
fn op_tokens(op: &Op, key: &mut Vec<u64>) {
    match op {
        Op::Buffer => key.push(1),
        Op::Copy => key.push(2),
        Op::Cast => key.push(3),
        Op::Unary(u) => key.extend([4, *u as u64]),
        Op::Binary(b) => key.extend([5, *b as u64]),
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
        // the outputs as a set: sorted, without repeats
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
            };
        }
        let plan = make();
        self.stats.plans += 1;
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
                };
            }
        }
        let entry = self.insert(sig, &plan);
        Planned {
            plan,
            entry,
            generation: self.generations,
            hit: false,
        }
    }

    /// Hands back a plan that `get_or_plan` returned for `entry` and that
    /// has run, so that the entry's next hit re-binds it in place.
    pub fn recycle(&mut self, entry: usize, generation: u64, plan: Plan) {
        if let Some(e) = self.entries.get_mut(entry)
            && e.generation == generation
        {
            e.spare = Some(plan);
        }
    }

    /// What the backend attached to kernel `k` of entry `entry`.
    pub fn payload(&self, entry: usize, k: usize) -> Option<&T> {
        self.entries.get(entry)?.payload.get(k)?.as_ref()
    }

    pub fn set_payload(&mut self, entry: usize, k: usize, value: T) {
        if let Some(slot) = self.entries.get_mut(entry).and_then(|e| e.payload.get_mut(k)) {
            *slot = Some(value);
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
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
        if entry.leaf_edges.len() != sig.leaf_edges.len() {
            return None;
        }
        // one delta per leaf, the same on all its edges
        let mut delta: FxHashMap<usize, isize> =
            FxHashMap::with_capacity_and_hasher(sig.leaf_edges.len(), Default::default());
        for (&(c, old), &(c2, new)) in entry.leaf_edges.iter().zip(&sig.leaf_edges) {
            if c != c2 {
                return None;
            }
            let d = new as isize - old as isize;
            if *delta.entry(c).or_insert(d) != d {
                return None;
            }
        }
        let id = |c: u64| sig.ids.get(c as usize).copied();
        let mut plan = match entry.spare.take() {
            Some(mut spare) => {
                rebind_in_place(&entry.template, &mut spare, id)?;
                spare
            }
            None => map_ids(&entry.template, id)?,
        };
        let keys: FxHashMap<u64, u64> = sig.random_keys.iter().map(|&(c, k)| (sig.ids[c], k)).collect();
        let leaf = |node: u64| -> isize {
            delta
                .iter()
                .find(|(c, _)| sig.ids.get(**c) == Some(&node))
                .map_or(0, |(_, d)| *d)
        };
        let any_moved = delta.values().any(|&d| d != 0);
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
                    let d = leaf(o.node);
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
