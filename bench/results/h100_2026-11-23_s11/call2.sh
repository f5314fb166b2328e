# Session 11, call 2: Arr's cold NVRTC under malloc settings and compile threads;
# reductions of generated values at vec 1 (new) against the old binary.
D=bench/results/h100_2026-11-23_s11
ARR=target/device/arr
OLD=target/device/arr.old
K="glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
export PYTHONUNBUFFERED=1
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag; nproc; lscpu | grep -E "Model name|Thread|Core"
tar xzf $D/dumps.tgz -C /tmp
{
python3 bench/nvrtc_cold.py --thread-init /tmp/dumps/heat
env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 python3 bench/nvrtc_cold.py --thread-init --threads 8 --fresh-threads /tmp/dumps/*
env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 python3 bench/nvrtc_cold.py --threads 4 --fresh-threads /tmp/dumps/*
env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 python3 bench/nvrtc_cold.py --threads 2 --fresh-threads /tmp/dumps/*
} 2>&1 | tee $OUT/nvrtc.log
{
python3 $D/cold_programs.py --arr $ARR --label new
python3 $D/cold_programs.py --arr $ARR --env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 --label arena1
python3 $D/cold_programs.py --arr $ARR --env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 ARR_COMPILE_THREADS=1 --label arena1-serial
python3 $D/cold_programs.py --arr $ARR --env GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 ARR_COMPILE_THREADS=4 --label arena1-4threads
python3 $D/cold_programs.py --arr $ARR --env ARR_COMPILE_THREADS=1 --label serial
} 2>&1 | grep "^|" | tee $OUT/cold.log
export ARR_CACHE_DIR=/tmp/warm
for p in black_scholes leibniz_pi monte_carlo_pi; do for b in $OLD $ARR; do
  $b --backend cuda run bench/programs/$p.arr > /dev/null
  echo "$p $b: $($b --backend cuda run --time bench/programs/$p.arr 2>&1 | grep time) $($b --backend cuda run --time bench/programs/$p.arr 2>&1 | grep time)"
  $b --backend cuda run --profile bench/programs/$p.arr 2>&1 | grep -E "^reduce|^host|^map"
done; done 2>&1 | tee $OUT/vec.log
