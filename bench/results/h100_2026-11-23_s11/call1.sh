# Session 11, call 1: where a cold program's NVRTC time goes (issue 13), and where
# Black-Scholes's and the per-statement loop's warm time goes (issues 14, 13).
D=bench/results/h100_2026-11-23_s11
ARR=target/device/arr
TUN="GLIBC_TUNABLES=glibc.malloc.trim_threshold=4294967295:glibc.malloc.top_pad=268435456:glibc.malloc.mmap_threshold=33554432"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export PYTHONUNBUFFERED=1
python3 $D/cold_programs.py --arr $ARR --dump /tmp/dumps --label base 2>&1 | tee $OUT/cold.log
python3 $D/cold_programs.py --arr $ARR --env $TUN --label tunables 2>&1 | tee -a $OUT/cold.log
(cd /tmp && tar czf $OUT/dumps.tgz dumps)
{
python3 bench/nvrtc_cold.py /tmp/dumps/*
env $TUN python3 bench/nvrtc_cold.py /tmp/dumps/*
python3 bench/nvrtc_cold.py --threads 8 --fresh-threads /tmp/dumps/*
python3 bench/nvrtc_cold.py --threads 8 /tmp/dumps/*
env $TUN python3 bench/nvrtc_cold.py --threads 8 --fresh-threads /tmp/dumps/*
} 2>&1 | tee $OUT/nvrtc.log
export ARR_CACHE_DIR=/tmp/warm
$ARR --backend cuda run bench/programs/black_scholes.arr > /dev/null
for i in 1 2; do $ARR --backend cuda run --time --profile bench/programs/black_scholes.arr; done 2>&1 | tee $OUT/bs.log
printf 'let x = realize(rand([1000]))\nfor i in 0..20000 { x = x + 1.0 }\nprint(sum(x))\n' > /tmp/loop.arr
$ARR --backend cuda run /tmp/loop.arr > /dev/null
$ARR --backend cuda run --time --profile /tmp/loop.arr 2>&1 | tee $OUT/loop.log
