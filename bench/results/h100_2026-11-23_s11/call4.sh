# Session 11, call 4: does a CUDA context in the process slow NVRTC's compiles?
K="glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
D=bench/results/h100_2026-11-23_s11
tar xzf $D/dumps.tgz -C /tmp
nvidia-smi --query-gpu=name --format=csv,noheader
t() { "$@" 2>&1 | grep -E "modules:|process|first|context"; }
{
echo "== no context"; t python3 bench/nvrtc_cold.py /tmp/dumps/shallow_water
echo "== context"; t python3 bench/nvrtc_cold.py --cuda /tmp/dumps/shallow_water
echo "== no context, tunables"; t env GLIBC_TUNABLES=$K python3 bench/nvrtc_cold.py /tmp/dumps/shallow_water
echo "== context, tunables"; t env GLIBC_TUNABLES=$K python3 bench/nvrtc_cold.py --cuda /tmp/dumps/shallow_water
} 2>&1 | tee $OUT/ctx.log
