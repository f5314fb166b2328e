# Session 11, call 6: the compile worker driven alone, against the Python probe.
D=bench/results/h100_2026-11-23_s11
K="glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
tar xzf $D/dumps.tgz -C /tmp
{
python3 $D/worker_drive.py target/device/arr /tmp/dumps/*
env GLIBC_TUNABLES=$K python3 $D/worker_drive.py target/device/arr /tmp/dumps/*
env MIMALLOC_ALLOW_LARGE_OS_PAGES=0 MIMALLOC_ARENA_EAGER_COMMIT=0 python3 $D/worker_drive.py target/device/arr /tmp/dumps/*
env GLIBC_TUNABLES=$K python3 bench/nvrtc_cold.py /tmp/dumps/* | grep -E "first|modules:"
python3 bench/nvrtc_cold.py --cuda /tmp/dumps/* | grep -E "first|modules:"
LD_DEBUG=libs target/device/arr nvrtc-worker < /dev/null 2>&1 | grep -i "nvrtc" | grep -i "calling init\|trying file" | head -5
} 2>&1 | tee $OUT/worker.log
