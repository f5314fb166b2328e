//! The lazy dataflow graph. Operations on arrays create nodes; nothing runs
//! until `realize` hands the pending part of the graph to a backend. An array
//! is a node's (eventual) contiguous buffer seen through a `View`.

pub mod alias;
pub mod data;
pub mod op;
pub mod random;
pub mod segment_index;
pub mod view;

use crate::check::dtype::DType;
use crate::diag::Diagnostic;
use crate::syntax::ast::Span;
use data::HostData;
use op::Op;
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use view::View;

/// Device-resident storage a backend other than the CPU keeps; the graph only
/// moves it around.
pub trait DeviceStorage: std::any::Any {
    fn as_any(&self) -> &dyn std::any::Any;
    fn as_any_mut(&mut self) -> &mut dyn std::any::Any;
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

pub enum Storage {
    Host(HostData),
    Device(Box<dyn DeviceStorage>),
}

/// A shared, mutable block of elements. Views of one array share it, and
/// slice assignment writes through it.
#[derive(Clone)]
pub struct Buffer(Rc<BufferCell>);

struct BufferCell {
    storage: RefCell<Storage>,
    /// Slice assignments into the buffer so far: what is derived from its
    /// values (a segment index) is stale once this moves.
    writes: Cell<u64>,
}

impl Buffer {
    fn new(storage: Storage) -> Buffer {
        Buffer(Rc::new(BufferCell {
            storage: RefCell::new(storage),
            writes: Cell::new(0),
        }))
    }

    pub fn host(data: HostData) -> Buffer {
        Buffer::new(Storage::Host(data))
    }

    pub fn device(data: Box<dyn DeviceStorage>) -> Buffer {
        Buffer::new(Storage::Device(data))
    }

    /// Whether this handle is the only one: nothing else can see a change.
    pub fn is_unique(&self) -> bool {
        Rc::strong_count(&self.0) == 1 && Rc::weak_count(&self.0) == 0
    }

    pub fn storage(&self) -> Ref<'_, Storage> {
        self.0.storage.borrow()
    }

    /// Mutable storage, for moving the same values elsewhere (an upload);
    /// changing them goes through [`write`], which counts the change.
    pub fn storage_mut(&self) -> RefMut<'_, Storage> {
        self.0.storage.borrow_mut()
    }

    /// Its elements.
    pub fn len(&self) -> usize {
        match &*self.storage() {
            Storage::Host(data) => data.len(),
            Storage::Device(data) => data.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn same(&self, other: &Buffer) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    /// How many times [`write`] has changed the values.
    pub fn writes(&self) -> u64 {
        self.0.writes.get()
    }
}

pub enum NodeState {
    Pending { op: Op, inputs: Vec<Array> },
    Ready(Buffer),
}

pub struct Node {
    /// Unique in the process; used for plan-cache keys and debugging output.
    pub id: u64,
    pub dtype: DType,
    /// The shape of the node's contiguous output.
    pub shape: view::Dims,
    /// The source expression that made the node, for runtime errors.
    pub span: Option<Span>,
    /// Longest chain of pending nodes ending here; bounds the graph's size.
    pub depth: usize,
    pub state: RefCell<NodeState>,
    /// Still pending, but a realize has already computed it inside a
    /// consumer's kernel: its value has been used, so a loop need not store it.
    pub fused_away: Cell<bool>,
}

static NEXT_NODE_ID: AtomicU64 = AtomicU64::new(1);

impl Node {
    pub fn is_ready(&self) -> bool {
        matches!(*self.state.borrow(), NodeState::Ready(_))
    }

    pub fn buffer(&self) -> Option<Buffer> {
        match &*self.state.borrow() {
            NodeState::Ready(b) => Some(b.clone()),
            NodeState::Pending { .. } => None,
        }
    }

    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether another node holds this node's realized buffer too.
    pub fn buffer_shared(&self) -> bool {
        match &*self.state.borrow() {
            NodeState::Ready(b) => !b.is_unique(),
            NodeState::Pending { .. } => false,
        }
    }

    /// Whether both nodes are realized into one buffer (so a write through one
    /// is seen through the other).
    pub fn shares_buffer(&self, other: &Node) -> bool {
        match (&*self.state.borrow(), &*other.state.borrow()) {
            (NodeState::Ready(a), NodeState::Ready(b)) => a.same(b),
            _ => false,
        }
    }
}

/// A (possibly lazy) array: a node's output seen through a view.
#[derive(Clone)]
pub struct Array {
    pub node: Rc<Node>,
    pub view: View,
    /// Literal-derived scalars adopt the dtype of what they meet (NumPy 2).
    pub weak: bool,
    /// A view that refuses writes, and so do its views (`broadcast_to`'s,
    /// NumPy's read-only broadcast views): its elements may share memory.
    pub readonly: bool,
}

impl Array {
    pub fn dtype(&self) -> DType {
        self.node.dtype
    }

    pub fn shape(&self) -> &[usize] {
        &self.view.shape
    }

    pub fn rank(&self) -> usize {
        self.view.rank()
    }

    pub fn size(&self) -> usize {
        self.view.size()
    }

    /// A realized array over `data`, viewed contiguously with `shape`.
    pub fn from_host(data: HostData, shape: &[usize]) -> Array {
        debug_assert_eq!(data.len(), shape.iter().product::<usize>());
        let dtype = data.dtype();
        Array::from_buffer(Buffer::host(data), dtype, shape)
    }

    pub fn from_buffer(buffer: Buffer, dtype: DType, shape: &[usize]) -> Array {
        let node = Node {
            id: NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed),
            dtype,
            shape: view::Dims::from_slice(shape),
            span: None,
            depth: 0,
            state: RefCell::new(NodeState::Ready(buffer)),
            fused_away: Cell::new(false),
        };
        Array {
            node: Rc::new(node),
            view: View::contiguous(shape),
            weak: false,
            readonly: false,
        }
    }

    /// A pending node computing `op` over `inputs`, seen contiguously.
    pub fn pending(op: Op, inputs: Vec<Array>, dtype: DType, shape: &[usize], span: Option<Span>) -> Array {
        let depth = 1 + inputs
            .iter()
            .map(|a| if a.node.is_ready() { 0 } else { a.node.depth })
            .max()
            .unwrap_or(0);
        let node = Node {
            id: NEXT_NODE_ID.fetch_add(1, Ordering::Relaxed),
            dtype,
            shape: view::Dims::from_slice(shape),
            span,
            depth,
            state: RefCell::new(NodeState::Pending { op, inputs }),
            fused_away: Cell::new(false),
        };
        Array {
            node: Rc::new(node),
            view: View::contiguous(shape),
            weak: false,
            readonly: false,
        }
    }

    pub fn with_view(&self, view: View) -> Array {
        Array {
            node: self.node.clone(),
            view,
            weak: self.weak,
            readonly: self.readonly,
        }
    }

    /// The same array seen through a view that refuses writes (`readonly`).
    pub fn read_only(mut self) -> Array {
        self.readonly = true;
        self
    }

    pub fn with_weak(mut self, weak: bool) -> Array {
        self.weak = weak;
        self
    }

    pub fn is_ready(&self) -> bool {
        self.node.is_ready()
    }
}

/// Executes graphs. The CPU backend is the reference semantics; others must agree with it.
pub trait Backend {
    /// A short description for banners and `explain` ("cpu (2 threads)", "cuda: NVIDIA H200").
    fn describe(&self) -> String;

    /// Executes `nodes` (pending, in an order where every pending input
    /// precedes its consumer) and makes each one `Ready`. `outputs` are the
    /// nodes somebody needs; the others are intermediates a backend may
    /// fuse away, although it must still mark them ready if it computes them.
    fn execute(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> Result<(), Diagnostic>;

    /// Copies the elements a view of a ready buffer sees to the host, in
    /// row-major order of the view.
    fn read(&self, buffer: &Buffer, view: &View, dtype: DType) -> Result<HostData, Diagnostic>;

    /// Writes `src` (ready, same dtype, its view already broadcast to `dst_view`'s
    /// shape) into `dst` through `dst_view`.
    fn write(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic>;

    /// Slice assignment of a pending `src` (same dtype, broadcast to
    /// `dst_view`'s shape): computes it straight into `dst` through
    /// `dst_view` where the backend can and `alias::direct_ok` allows, and
    /// returns `true`; `false` (nothing done) sends the caller to
    /// realize-then-`write`. `src`'s pending nodes may be left pending: the
    /// caller holds its only handle and drops it.
    fn write_pending(&self, dst: &Buffer, dst_view: &View, src: &Array) -> Result<bool, Diagnostic> {
        let _ = (dst, dst_view, src);
        Ok(false)
    }

    /// Makes a host buffer usable by this backend (an upload on a GPU).
    fn adopt(&self, data: HostData) -> Result<Buffer, Diagnostic>;

    /// How this backend runs these nodes, for `explain`: its kernels, one a line.
    fn explain(&self, nodes: &[Rc<Node>], outputs: &[Rc<Node>]) -> String {
        let _ = outputs;
        nodes.iter().map(describe_node).collect::<Vec<_>>().join("\n")
    }

    /// Starts recording per-kernel timings (`--profile`).
    fn start_profiling(&self) {}

    /// How long starting the device took, for a backend that starts at its
    /// first computation: `arr run --time` leaves it out, as it leaves out
    /// the start-up before the script, so that a warm script's time compares
    /// with a peer's timed region.
    fn start_up_time(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }

    /// The timings recorded since `start_profiling`, as a table; `None` when
    /// the backend does not time kernels itself.
    fn profile_report(&self) -> Option<String> {
        None
    }

    /// The same timings as JSON lines (`--profile-json`); `None` as for `profile_report`.
    fn profile_json(&self) -> Option<String> {
        None
    }

    /// Whether this backend is recording kernel times (`--profile`): a
    /// caller that runs a kernel of its own on the host (a sort) times it
    /// only then, and hands the time to `record_host`.
    fn profiling(&self) -> bool {
        false
    }

    /// Records a kernel its caller ran on the host, `name` (`sort`,
    /// `argsort`, `unique`, ...) making `label` (the result's dtype and
    /// shape) in `elapsed`, reading and writing `bytes`, as a row of the
    /// profile; nothing where the backend keeps no profile of its own.
    fn record_host(&self, name: &str, label: &str, elapsed: std::time::Duration, bytes: u64) {
        let _ = (name, label, elapsed, bytes);
    }

    /// `inv`, `solve` or `det` of a stack on the backend's own device (see
    /// `linalg::LuJob` for the operands and the result); `None` when the
    /// backend has no such path and the caller factorises on the host.
    fn lu(&self, job: linalg::LuJob, a: &Array, b: Option<&Array>) -> Option<Result<Array, Diagnostic>> {
        let _ = (job, a, b);
        None
    }

    /// NumPy's `bincount` of a 1-D integer `x` (optional `weights` of its
    /// shape: f64 sums, else i64 counts) on the backend's device; `None` when
    /// the backend has no such path (or leaves this input, say one with a
    /// negative element, to the host path and its diagnostics).
    fn bincount(&self, x: &Array, weights: Option<&Array>, minlength: usize) -> Option<Result<Array, Diagnostic>> {
        let _ = (x, weights, minlength);
        None
    }

    /// Each row (last axis) of `x` sorted stably in NumPy's order (NaN
    /// last), or with `argsort` the i64 indices that sort it, on the
    /// backend's device; `None` when the backend has no such path (the
    /// caller sorts on the host).
    fn sort(&self, x: &Array, argsort: bool) -> Option<Result<Array, Diagnostic>> {
        let _ = (x, argsort);
        None
    }

    /// The elements of the flat `x` where the flat bool `mask` (same size)
    /// is true, in order, or with no `x` the i64 positions of the true
    /// elements (a 1-D result of data-dependent size), on the backend's
    /// device; `None` when the backend has no such path.
    fn compress(&self, x: Option<&Array>, mask: &Array) -> Option<Result<Array, Diagnostic>> {
        let _ = (x, mask);
        None
    }
}

/// One line for a node: `#12 f32[4, 5] = binary(add)(#10, #11)`.
pub fn describe_node(node: &Rc<Node>) -> String {
    let shape: Vec<String> = node.shape.iter().map(|d| d.to_string()).collect();
    let (op, inputs) = match &*node.state.borrow() {
        NodeState::Pending { op, inputs } => (
            format!("{op:?}"),
            inputs.iter().map(|i| format!("#{}", i.node.id)).collect::<Vec<_>>(),
        ),
        NodeState::Ready(_) => ("buffer".to_string(), vec![]),
    };
    format!(
        "#{} {}[{}] = {}({})",
        node.id,
        node.dtype,
        shape.join(", "),
        op.to_lowercase(),
        inputs.join(", ")
    )
}

/// Evaluates every pending node that `arrays` depend on.
pub fn realize(backend: &dyn Backend, arrays: &[&Array]) -> Result<(), Diagnostic> {
    realize_in_order(backend, arrays, None)
}

/// `realize`, given the pending nodes reachable from `arrays` in an order
/// `pending_in_order` made (from these roots or others that reach the same
/// nodes), when the caller has already walked the graph.
pub fn realize_in_order(
    backend: &dyn Backend,
    arrays: &[&Array],
    order: Option<Vec<Rc<Node>>>,
) -> Result<(), Diagnostic> {
    let outputs: Vec<Rc<Node>> = arrays
        .iter()
        .filter(|a| !a.is_ready())
        .map(|a| a.node.clone())
        .collect();
    if outputs.is_empty() {
        return Ok(());
    }
    let order = order.unwrap_or_else(|| pending_in_order(&outputs));
    backend.execute(&order, &outputs)?;
    for node in order.iter().filter(|n| !n.is_ready()) {
        node.fused_away.set(true);
    }
    Ok(())
}

/// The nodes of a pending graph (`pending_in_order`'s) and their inputs, by
/// id: what a backend's kernels look their operands and outputs up in.
pub fn nodes_by_id(nodes: &[Rc<Node>]) -> rustc_hash::FxHashMap<u64, Rc<Node>> {
    // sized for the nodes and about as many inputs: growing from empty rehashed
    // several times in every small statement's realize
    let mut by_id = rustc_hash::FxHashMap::with_capacity_and_hasher(2 * nodes.len(), Default::default());
    for n in nodes {
        by_id.insert(n.id, n.clone());
        if let NodeState::Pending { inputs, .. } = &*n.state.borrow() {
            for a in inputs {
                by_id.insert(a.node.id, a.node.clone());
            }
        }
    }
    by_id
}

/// The pending nodes reachable from `roots`, inputs before consumers
/// (iterative: graphs can be deep).
pub fn pending_in_order(roots: &[Rc<Node>]) -> Vec<Rc<Node>> {
    let mut order = Vec::new();
    let mut seen = Seen::default();
    let mut stack: smallvec::SmallVec<[(Rc<Node>, bool); 16]> =
        roots.iter().rev().map(|n| (n.clone(), false)).collect();
    while let Some((node, expanded)) = stack.pop() {
        if expanded {
            order.push(node);
            continue;
        }
        if node.is_ready() || !seen.insert(node.id) {
            continue;
        }
        stack.push((node.clone(), true));
        if let NodeState::Pending { inputs, .. } = &*node.state.borrow() {
            for input in inputs.iter().rev() {
                if !input.node.is_ready() && !seen.contains(input.node.id) {
                    stack.push((input.node.clone(), false));
                }
            }
        }
    }
    order
}

/// The node ids a graph walk has met: a few, looked up in a line, for the
/// graph of a small statement (a hash set was an allocation and most of the
/// walk's time there); a hash set past `Seen::LINE` of them.
#[derive(Default)]
struct Seen {
    line: smallvec::SmallVec<[u64; 16]>,
    set: Option<rustc_hash::FxHashSet<u64>>,
}

impl Seen {
    const LINE: usize = 16;

    fn contains(&self, id: u64) -> bool {
        match &self.set {
            Some(set) => set.contains(&id),
            None => self.line.contains(&id),
        }
    }

    /// Adds `id`; false when it was there already.
    fn insert(&mut self, id: u64) -> bool {
        if let Some(set) = &mut self.set {
            return set.insert(id);
        }
        if self.line.contains(&id) {
            return false;
        }
        if self.line.len() < Self::LINE {
            self.line.push(id);
        } else {
            let mut set: rustc_hash::FxHashSet<u64> = self.line.drain(..).collect();
            set.insert(id);
            self.set = Some(set);
        }
        true
    }
}

/// Slice assignment: writes `src` (ready, same dtype, broadcast to the
/// view's shape) into `dst`'s buffer through `dst_view`, and counts the write.
pub fn write(backend: &dyn Backend, dst: &Buffer, dst_view: &View, src: &Array) -> Result<(), Diagnostic> {
    // counted even if the backend fails part-way: the old values may be gone
    dst.0.writes.set(dst.0.writes.get() + 1);
    backend.write(dst, dst_view, src)
}

/// Counts a change its caller made to `dst`'s host values in place (through
/// `Buffer::storage_mut`), as `write` counts its own.
pub fn count_write(dst: &Buffer) {
    dst.0.writes.set(dst.0.writes.get() + 1);
}

/// Slice assignment of a possibly pending `src` (same dtype, broadcast to
/// `dst_view`'s shape): straight into the destination where the backend can
/// (`Backend::write_pending`), else realized and then written. Takes `src`
/// so that the caller keeps no handle on its nodes.
pub fn assign(backend: &dyn Backend, dst: &Buffer, dst_view: &View, src: Array) -> Result<(), Diagnostic> {
    if !src.is_ready() {
        dst.0.writes.set(dst.0.writes.get() + 1);
        if backend.write_pending(dst, dst_view, &src)? {
            return Ok(());
        }
        dst.0.writes.set(dst.0.writes.get() - 1);
        realize(backend, &[&src])?;
    }
    write(backend, dst, dst_view, &src)
}

/// Reads an array's elements to the host (realizing it first).
pub fn to_host(backend: &dyn Backend, array: &Array) -> Result<HostData, Diagnostic> {
    realize(backend, &[array])?;
    let buffer = array.node.buffer().expect("realized above");
    backend.read(&buffer, &array.view, array.dtype())
}
pub mod build;
pub mod decomp;
pub mod linalg;
