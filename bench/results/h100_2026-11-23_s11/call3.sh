# Session 11, call 3: per-compile page faults and CPU time inside Arr (ARR_COMPILE_TRACE,
# a temporary build), shallow water cold, under malloc settings and thread counts.
ARR=target/device/arr
K="glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
run() { echo "== $*"; env "$@" ARR_COMPILE_TRACE=1 ARR_CACHE_DIR=$(mktemp -d) CUDA_CACHE_PATH=$(mktemp -d) $ARR --backend cuda run --profile bench/programs/shallow_water.arr 2>&1 | grep -E "compile-trace|NVRTC:" ; }
{
run X=1
run GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 ARR_COMPILE_THREADS=1
run GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 ARR_COMPILE_THREADS=1 RAYON_NUM_THREADS=1
run GLIBC_TUNABLES=$K ARR_COMPILE_THREADS=1 RAYON_NUM_THREADS=1
run ARR_COMPILE_THREADS=1 RAYON_NUM_THREADS=1
run GLIBC_TUNABLES=$K:glibc.malloc.arena_max=1 ARR_COMPILE_THREADS=4
} 2>&1 | tee $OUT/trace.log
