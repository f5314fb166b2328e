# Session 15, call 4: a host profile of LU of 1000 on CUDA (binary with symbols,
# no debuginfo), to see where 40 us per realize goes besides planning.
export ARR_CACHE_DIR=/tmp/arr-cache
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1
./target/device/arr --backend cuda run --time bench/programs/lu.arr 2>&1 | tail -1
if command -v perf > /dev/null; then
  perf record -F 5000 -g -o $OUT/perf.data ./target/device/arr --backend cuda run bench/programs/lu.arr > /dev/null 2>&1
  perf report -i $OUT/perf.data --no-children --stdio -g none --percent-limit 0.7 2>/dev/null | grep "%" | head -45
  perf report -i $OUT/perf.data --children --stdio -g none --percent-limit 3 2>/dev/null | grep "%" | grep arr:: | head -40
else
  echo "no perf on the device machine"
fi
