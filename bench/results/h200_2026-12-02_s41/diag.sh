# Session 41, device call 1 (H200): where Monte Carlo's and Black-Scholes's single
# kernels spend their time (kernel profile, variants without the RNG, ncu), beside
# PyTorch's twins in the same call. Logs under $OUT.
export ARR_CACHE_DIR=/tmp/arr-cache
A=target/device/arr
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/src $OUT/v
cat > $OUT/v/mc_one.arr <<'A'
let n = 100000000
print(sum(rand([n]) < 0.5))
A
cat > $OUT/v/mc_norng.arr <<'A'
let n = 100000000
let x = arange(n) as f32 * (1.0 / n)
let y = arange(n) as f32 * (0.5 / n)
print(sum(x * x + y * y < 1.0))
A
cat > $OUT/v/mc_f32sum.arr <<'A'
let n = 100000000
let x = rand([n])
let y = rand([n])
print(sum(x * x + y * y))
A
cat > $OUT/v/bs_norng.arr <<'A'
fn cnd(x) = 0.5 * (1.0 + erf(x * 0.7071067811865476))
let n = 10000000
let i = arange(n) as f64 * (1.0 / n)
let s = 58.0 + 4.0 * i
let k = 50.0 + 20.0 * (1.0 - i)
let t = 0.25 + 1.75 * i
let sd = 0.25 * sqrt(t)
let d1 = (log(s / k) + (0.0625 + 0.5 * 0.25 * 0.25) * t) / sd
let d2 = d1 - sd
let discounted = k * exp(-0.0625 * t)
let call = s * cnd(d1) - discounted * cnd(d2)
let put = discounted * cnd(-d2) - s * cnd(-d1)
print("mean call", mean(call), "mean put", mean(put))
A
cat > $OUT/v/bs_rngonly.arr <<'A'
let n = 10000000
let s = rand([n], dtype=f64)
let k = rand([n], dtype=f64)
let t = rand([n], dtype=f64)
print(mean(s + k + t))
A
for f in bench/programs/monte_carlo_pi.arr bench/programs/black_scholes.arr $OUT/v/*.arr; do
  b=$(basename $f .arr)
  $A --backend cuda run $f > /dev/null 2>&1
  for r in 1 2; do echo "== $b run $r"; $A --backend cuda run --profile --runs 5 --time $f 2>&1 | grep -v "^$" | tail -8; done
  ARR_DUMP_DIR=$OUT/src/$b $A --backend cuda run $f > /dev/null 2>&1
done > $OUT/profiles.log 2>&1
cat $OUT/profiles.log
echo "== ncu"
timeout 120 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section LaunchStats --section Occupancy -k regex:reduce $A --backend cuda run bench/programs/monte_carlo_pi.arr > $OUT/ncu_mc.log 2>&1; tail -70 $OUT/ncu_mc.log
timeout 120 ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis -k regex:reduce $A --backend cuda run bench/programs/black_scholes.arr > $OUT/ncu_bs.log 2>&1; tail -40 $OUT/ncu_bs.log
echo "== torch twins"
timeout 120 python3 bench/programs/programs.py --peers torch --divisor 1 --only monte_carlo_pi,black_scholes 2>&1 | tail -4
