# Session 15, call 3: where LU of 1000 spends its time on CUDA (warm cache):
# the kernel profile, and wall time against the kernels' sum.
export ARR_CACHE_DIR=/tmp/arr-cache
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -2
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -2
./target/device/arr --backend cuda run --profile bench/programs/lu.arr > $OUT/lu_profile.txt 2>&1; tail -25 $OUT/lu_profile.txt
./target/device/arr --backend cuda explain bench/programs/lu.arr > $OUT/lu_explain.txt 2>&1; head -60 $OUT/lu_explain.txt
