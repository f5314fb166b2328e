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
//! specialised source is generated only for the first shape and when the
//! first shape comes back. A loop over shrinking slices thus pays one code
//! generation per kernel, not two.
//!
//! Pure bookkeeping over generated text, so it is tested without a GPU.

use super::codegen::{self, Generated, Kind, Param};
use crate::check::dtype::DType;
use crate::graph::view::View;
use crate::plan::{KernelPlan, Plan};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// The hash a module's source is known by (`Compiler::key` adds the compiler's options).
pub fn source_hash(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

fn dims_hash(params: &[Param]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in params {
        if let Param::Dim(v) = p {
            v.hash(&mut h);
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

/// The classes met so far, by the hash of their generic source.
#[derive(Default)]
pub struct ShapeClasses {
    classes: HashMap<u64, Class>,
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

    /// The module for one planned kernel.
    pub fn kernel(&mut self, kp: &KernelPlan) -> Generated {
        self.kernel_chosen(kp).generated
    }

    /// The module for one planned kernel, with its hash and class.
    pub fn kernel_chosen(&mut self, kp: &KernelPlan) -> Chosen {
        let mut c = self.choose(
            || codegen::generate_kind(kp, Kind::Specialised),
            codegen::generate_kind(kp, Kind::Generic),
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
            || codegen::scatter(dtype, view, Kind::Specialised),
            codegen::scatter(dtype, view, Kind::Generic),
        );
        c.generated.label = format!("scatter -> {dtype}{:?} strides {:?}", view.shape, view.strides);
        c
    }

    fn choose(&mut self, specialised: impl FnOnce() -> Generated, generic: Generated) -> Chosen {
        let class_hash = source_hash(&generic.source);
        if generic.kind != Kind::Generic {
            // no generic form: the request gave the specialised module itself
            return Chosen {
                generated: generic,
                hash: class_hash,
                class: None,
            };
        }
        let dims = dims_hash(&generic.params);
        let count = self.classes.len();
        let class = self.classes.entry(class_hash).or_insert(Class {
            number: count,
            first_dims: dims,
        });
        if class.first_dims == dims {
            let spec = specialised();
            Chosen {
                hash: source_hash(&spec.source),
                generated: spec,
                class: Some(class.number),
            }
        } else {
            Chosen {
                generated: generic,
                hash: class_hash,
                class: Some(class.number),
            }
        }
    }

    /// `plan` as `Plan`'s text, with a line under each kernel's first saying
    /// which module it gets: specialised or shape-generic and its shape class
    /// (numbered in the order met), and advancing the classes as running the
    /// plan would. cuBLAS matmuls and empty outputs get no module.
    pub fn explain(&mut self, plan: &Plan) -> String {
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
