# Session 11, call 7: which setting makes the compile worker fast, repeated in turn.
D=bench/results/h100_2026-11-23_s11
K="glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
tar xzf $D/dumps.tgz -C /tmp
W="python3 $D/worker_drive.py target/device/arr /tmp/dumps/shallow_water /tmp/dumps/lu"
{
for r in 1 2; do
echo "A default"; $W | tail -1
echo "B eager0"; env MIMALLOC_ARENA_EAGER_COMMIT=0 $W | tail -1
echo "C large0"; env MIMALLOC_ALLOW_LARGE_OS_PAGES=0 $W | tail -1
echo "D tunables"; env GLIBC_TUNABLES=$K $W | tail -1
done
for v in X=1 MIMALLOC_ARENA_EAGER_COMMIT=0 GLIBC_TUNABLES=$K; do for w in 0 4; do
  echo "arr shallow_water $v workers=$w: $(env $v ARR_COMPILE_WORKERS=$w ARR_CACHE_DIR=$(mktemp -d) target/device/arr --backend cuda run --profile bench/programs/shallow_water.arr 2>&1 | grep NVRTC:)"
done; done
} 2>&1 | tee $OUT/which.log
