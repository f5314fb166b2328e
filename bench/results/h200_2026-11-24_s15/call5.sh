# Session 15, call 5: LU of 1000 on CUDA with the profile's new host bucket
# (generating kernel sources), warm disk cache; the arr binary only.
export ARR_CACHE_DIR=/tmp/arr-cache
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1
./target/device/arr --backend cuda run --profile bench/programs/lu.arr 2>&1 | tail -4
./target/device/arr --backend cuda run --profile bench/programs/shallow_water.arr 2>&1 | tail -4
