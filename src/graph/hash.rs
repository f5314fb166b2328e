//! A fast hasher for the integer keys of the per-statement hot path (node
//! ids, plan signatures): the FxHash of rustc, one multiply per word. Keys
//! come from the program's own graph, so SipHash's resistance to chosen
//! collisions buys nothing there, and it cost a tenth of a small statement.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// rustc's FxHasher: rotate, xor, multiply, per word.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }
    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

pub type FxBuild = BuildHasherDefault<FxHasher>;
pub type FxHashMap<K, V> = HashMap<K, V, FxBuild>;
pub type FxHashSet<K> = HashSet<K, FxBuild>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn equal_keys_hash_equal_and_different_keys_differ() {
        let b = FxBuild::default();
        assert_eq!(b.hash_one(vec![1u64, 2, 3]), b.hash_one(vec![1u64, 2, 3]));
        assert_ne!(b.hash_one(vec![1u64, 2, 3]), b.hash_one(vec![1u64, 3, 2]));
        let mut m: FxHashMap<u64, usize> = FxHashMap::default();
        for i in 0..1000 {
            m.insert(i * 7919, i as usize);
        }
        assert!((0..1000).all(|i| m[&(i * 7919)] == i as usize));
    }
}
