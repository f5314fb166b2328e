//! Counter-based random numbers: element `i` of a random array is a pure
//! function of the array's key and `i`, so the CPU backend, the CUDA backend
//! and the NumPy golden script (tests/golden/make_goldens.py) all produce the
//! same bits, in any order and in parallel.

/// The SplitMix64 finaliser.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The counter increment of `bits` (the golden ratio in 64 bits).
pub const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The raw 64 random bits of counter `i` under `key`.
pub fn bits(key: u64, i: u64) -> u64 {
    mix64(key.wrapping_add(i.wrapping_add(1).wrapping_mul(GOLDEN)))
}

/// The key of the `call`-th random array drawn in a session seeded with `seed`.
pub fn key(seed: u64, call: u64) -> u64 {
    mix64(mix64(seed ^ 0x5EED_5EED_5EED_5EED).wrapping_add(call))
}

/// Uniform on [0, 1) with 24 random bits (exactly representable in f32).
pub fn uniform_f32(key: u64, i: u64) -> f32 {
    (bits(key, i) >> 40) as f32 * (1.0 / (1u64 << 24) as f32)
}

/// Uniform on [0, 1) with 53 random bits.
pub fn uniform_f64(key: u64, i: u64) -> f64 {
    (bits(key, i) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Standard normal by Box-Muller on counters 2i and 2i+1, computed in f64.
pub fn normal_f64(key: u64, i: u64) -> f64 {
    let u1 = 1.0 - uniform_f64(key, 2 * i); // (0, 1]: log is finite
    let u2 = uniform_f64(key, 2 * i + 1);
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_in_range_and_spread() {
        let k = key(0, 0);
        let xs: Vec<f32> = (0..10_000).map(|i| uniform_f32(k, i)).collect();
        assert!(xs.iter().all(|&x| (0.0..1.0).contains(&x)));
        let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
        assert!((mean - 0.5).abs() < 0.02, "mean {mean}");
    }

    #[test]
    fn normal_has_unit_variance() {
        let k = key(7, 3);
        let xs: Vec<f64> = (0..20_000).map(|i| normal_f64(k, i)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / xs.len() as f64;
        assert!(mean.abs() < 0.03 && (var - 1.0).abs() < 0.05, "mean {mean} var {var}");
    }
}
