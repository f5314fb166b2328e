//! Shape classes: which kind of module (`codegen::Kind`) a kernel gets.
//!
//! A kernel's first shape gets a specialised module (sizes and strides as
//! constants: the compiler folds the index arithmetic). When the same kernel
//! meets a second shape of its class (a loop over shrinking slices, a REPL
//! user trying sizes), it gets the shape-generic module, which then serves
//! every later shape of the class, as torch.compile's automatic dynamic
//! shapes do after a recompile. So a kernel costs at most two modules however
//! many shapes it meets, and a program that meets one shape keeps the faster
//! code. The class is the generic source itself: it names everything the
//! generic code depends on (strategy, vector width, rank, dtypes, 32-bit
//! indexing, which strides are zero or one).
//!
//! A specialised source is the generic one with its dimension parameters
//! written as constants, so the class plus the dimension values name it: a
//! shape is told apart from the class's first by those values, and the
//! specialised source is generated for the first shape only.
//!
//! Both modules are remembered by what the generic source depends on
//! (`codegen::generic_key`), so that a kernel met again, at its first shape
//! or another of its class, takes its module, parameters included, without
//! generating any text: LU's thousand steps generate each kernel's sources
//! once, where they generated the generic one at every step (75 of LU's 97
//! ms of host time on an H200, session 15). The launch reads the dimension
//! values from its own plan (`codegen::Sizes`).
//!
//! Pure bookkeeping over generated text, so it is tested without a GPU.

use super::codegen::{self, Generated, GenericKey, Kind, Param, Sizes};
use crate::check::dtype::DType;
use crate::graph::view::View;
use crate::plan::{KernelPlan, Plan};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};

/// When set, every remembered module handed out is checked against the one
/// generation gives afresh, and a difference panics: how the tests check
/// that `codegen::generic_key` names everything a generic source depends on.
/// On in debug builds.
pub static CHECK_MEMO: AtomicBool = AtomicBool::new(cfg!(debug_assertions));

/// Panics unless `fresh` is `remembered` (labels aside).
fn check_same(fresh: &Generated, remembered: &Generated) {
    let same = fresh.source == remembered.source
        && fresh.params == remembered.params
        && fresh.finish == remembered.finish
        && fresh.part_bytes == remembered.part_bytes
        && fresh.raises == remembered.raises
        && fresh.kind == remembered.kind
        && fresh.problems == remembered.problems;
    assert!(
        same,
        "a remembered module differs from the one generated afresh (codegen::generic_key misses something):\n{}\n---\n{}",
        remembered.source, fresh.source
    );
}

/// The hash a module's source is known by (`Compiler::key` adds the compiler's options).
pub fn source_hash(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The values `subject` gives a module's dimension parameters.
fn dims_hash(params: &[Param], subject: &dyn Sizes) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in params {
        if let Param::Dim(d) = p {
            subject.dim(*d).hash(&mut h);
        }
    }
    h.finish()
}

/// One class met so far.
struct Class {
    /// Its order among the classes, for `explain`.
    number: usize,
    /// The dimension values of its first shape, which got the specialised module.
    first_dims: u64,
}

/// What a module is remembered by before any of its text is generated.
#[derive(PartialEq, Eq, Hash)]
enum MemoKey {
    Kernel(GenericKey),
    /// A scatter's generic source depends on the dtype and, per axis,
    /// whether the destination's stride is zero.
    Scatter(DType, Vec<bool>),
}

/// The modules of one `MemoKey`.
struct Memo {
    generic: Generated,
    hash: u64,
    class: usize,
    /// Its class's `first_dims`.
    first_dims: u64,
    /// The first shape's module, once asked for.
    specialised: Option<(Generated, u64)>,
}

/// The classes met so far, by the hash of their generic source.
#[derive(Default)]
pub struct ShapeClasses {
    classes: HashMap<u64, Class>,
    memo: HashMap<MemoKey, Memo>,
    /// Sources generated so far (checks under `CHECK_MEMO` aside).
    generated: usize,
}

/// A chosen module: its source (with parameters), the source's hash, and the
/// number of its shape class (`None` for a strategy with no generic form).
pub struct Chosen {
    pub generated: Generated,
    pub hash: u64,
    pub class: Option<usize>,
}

impl ShapeClasses {
    pub fn new() -> ShapeClasses {
        ShapeClasses::default()
    }

    /// How many sources were generated so far: a kernel met again, at any
    /// shape, is served from memory.
    pub fn sources_generated(&self) -> usize {
        self.generated
    }

    /// The module for one planned kernel.
    pub fn kernel(&mut self, kp: &KernelPlan) -> Generated {
        self.kernel_chosen(kp).generated
    }

    /// The module for one planned kernel, with its hash and class.
    pub fn kernel_chosen(&mut self, kp: &KernelPlan) -> Chosen {
        let mut c = self.choose(
            codegen::generic_key(kp).map(MemoKey::Kernel),
            kp,
            || codegen::generate_kind(kp, Kind::Specialised),
            || codegen::generate_kind(kp, Kind::Generic),
        );
        c.generated.label = format!(
            "{} -> {}{:?}: {}",
            super::profile::strategy_label(&kp.strategy),
            kp.out_dtype,
            kp.out_shape,
            kp.ops.join(" ")
        );
        c
    }

    /// The module writing a contiguous source through `view` (slice assignment).
    pub fn scatter(&mut self, dtype: DType, view: &View) -> Generated {
        self.scatter_chosen(dtype, view).generated
    }

    /// The scatter module, with its hash and class.
    pub fn scatter_chosen(&mut self, dtype: DType, view: &View) -> Chosen {
        let mut c = self.choose(
            Some(MemoKey::Scatter(dtype, view.strides.iter().map(|&s| s == 0).collect())),
            view,
            || codegen::scatter(dtype, view, Kind::Specialised),
            || codegen::scatter(dtype, view, Kind::Generic),
        );
        c.generated.label = format!("scatter -> {dtype}{:?} strides {:?}", view.shape, view.strides);
        c
    }

    fn choose(
        &mut self,
        key: Option<MemoKey>,
        subject: &dyn Sizes,
        specialised: impl FnOnce() -> Generated,
        generic: impl FnOnce() -> Generated,
    ) -> Chosen {
        if let Some(m) = key.as_ref().and_then(|k| self.memo.get_mut(k)) {
            let check = CHECK_MEMO.load(Ordering::Relaxed);
            if dims_hash(&m.generic.params, subject) != m.first_dims {
                if check {
                    check_same(&generic(), &m.generic);
                }
                return Chosen {
                    generated: m.generic.clone(),
                    hash: m.hash,
                    class: Some(m.class),
                };
            }
            let (generated, hash) = match m.specialised.take() {
                Some((g, h)) => {
                    if check {
                        check_same(&specialised(), &g);
                    }
                    (g, h)
                }
                None => {
                    self.generated += 1;
                    let g = specialised();
                    let h = source_hash(&g.source);
                    (g, h)
                }
            };
            m.specialised = Some((generated.clone(), hash));
            return Chosen {
                generated,
                hash,
                class: Some(m.class),
            };
        }
        let generic = generic();
        self.generated += 1;
        let class_hash = source_hash(&generic.source);
        if generic.kind != Kind::Generic {
            // no generic form: the request gave the specialised module itself
            return Chosen {
                generated: generic,
                hash: class_hash,
                class: None,
            };
        }
        let dims = dims_hash(&generic.params, subject);
        let count = self.classes.len();
        let class = self.classes.entry(class_hash).or_insert(Class {
            number: count,
            first_dims: dims,
        });
        let (number, first_dims) = (class.number, class.first_dims);
        let specialised = (first_dims == dims).then(|| {
            self.generated += 1;
            let g = specialised();
            let h = source_hash(&g.source);
            (g, h)
        });
        let chosen = match &specialised {
            Some((g, h)) => Chosen {
                generated: g.clone(),
                hash: *h,
                class: Some(number),
            },
            None => Chosen {
                generated: generic.clone(),
                hash: class_hash,
                class: Some(number),
            },
        };
        if let Some(key) = key {
            self.memo.insert(
                key,
                Memo {
                    generic,
                    hash: class_hash,
                    class: number,
                    first_dims,
                    specialised,
                },
            );
        }
        chosen
    }

    /// `plan` as `Plan`'s text, with a line under each kernel's first saying
    /// which module it gets: specialised or shape-generic and its shape class
    /// (numbered in the order met), and advancing the classes as running the
    /// plan would. cuBLAS matmuls and empty outputs get no module.
    /// With `ARR_DUMP_DIR` set, each module's source is written there as a
    /// run would write it, so that NVRTC can be timed on a machine without a GPU.
    pub fn explain(&mut self, plan: &Plan) -> String {
        let dump_dir = std::env::var_os("ARR_DUMP_DIR").map(std::path::PathBuf::from);
        let text = plan.to_string();
        let mut out = String::new();
        out.push_str(text.lines().next().unwrap_or(""));
        out.push('\n');
        for (k, kp) in plan.kernels.iter().enumerate() {
            let block = format!("[{k}] {kp}");
            let mut lines = block.lines();
            out.push_str(lines.next().unwrap_or(""));
            out.push('\n');
            let module = if kp.out_size() == 0 {
                "none (empty output)".to_string()
            } else if super::blas::gemm_for(kp).is_some() {
                "cuBLAS (a generated module where cuBLAS is missing)".to_string()
            } else {
                let c = self.kernel_chosen(kp);
                if let Some(dir) = &dump_dir {
                    super::compile::dump_source(dir, c.hash, &c.generated);
                }
                match c.class {
                    Some(n) => format!("{}, shape class {n}", c.generated.kind.name()),
                    None => format!("{} (no shape-generic form)", c.generated.kind.name()),
                }
            };
            out.push_str(&format!("  module: {module}\n"));
            for l in lines {
                out.push_str(l);
                out.push('\n');
            }
        }
        out
    }
}
