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
//! Pure bookkeeping over generated text, so it is tested without a GPU.

use super::codegen::{self, Generated, Kind};
use crate::check::dtype::DType;
use crate::graph::view::View;
use crate::plan::KernelPlan;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

fn hash(s: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// The classes met so far: a generic source's hash, and the hash of the
/// specialised source its first shape got.
#[derive(Default)]
pub struct ShapeClasses {
    first: HashMap<u64, u64>,
}

impl ShapeClasses {
    pub fn new() -> ShapeClasses {
        ShapeClasses::default()
    }

    /// The module for one planned kernel.
    pub fn kernel(&mut self, kp: &KernelPlan) -> Generated {
        let mut g = self.choose(codegen::generate_kind(kp, Kind::Specialised), || {
            codegen::generate_kind(kp, Kind::Generic)
        });
        g.label = format!(
            "{} -> {}{:?}: {}",
            super::profile::strategy_label(&kp.strategy),
            kp.out_dtype,
            kp.out_shape,
            kp.ops.join(" ")
        );
        g
    }

    /// The module writing a contiguous source through `view` (slice assignment).
    pub fn scatter(&mut self, dtype: DType, view: &View) -> Generated {
        let mut g = self.choose(codegen::scatter(dtype, view, Kind::Specialised), || {
            codegen::scatter(dtype, view, Kind::Generic)
        });
        g.label = format!("scatter -> {dtype}{:?} strides {:?}", view.shape, view.strides);
        g
    }

    fn choose(&mut self, specialised: Generated, generic: impl FnOnce() -> Generated) -> Generated {
        let generic = generic();
        if generic.kind != Kind::Generic {
            return specialised;
        }
        let spec = hash(&specialised.source);
        let first = *self.first.entry(hash(&generic.source)).or_insert(spec);
        if first == spec { specialised } else { generic }
    }
}
