#!/usr/bin/env bash
# Builds the GPU test binary and the arr binary here (no GPU needed to build),
# copies them into the main checkout's target/device/ (the device tool sends
# the main checkout plus carried ignored paths), and prints the command to run
# there with the device tool, carrying ["target/device"].
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
DEST="${ARR_DEVICE_DIR:-/work/main/target/device}"

cargo build --release
# the test binary's path is printed by cargo as "Executable tests/gpu.rs (PATH)"
TEST_BIN=$(cargo test --release --no-run --test gpu 2>&1 | sed -n 's/.*Executable tests\/gpu.rs (\(.*\))/\1/p' | tail -1)
if [ -z "$TEST_BIN" ] || [ ! -x "$TEST_BIN" ]; then
    echo "could not find the gpu test binary" >&2
    exit 1
fi
PROGRAMS_BIN=$(cargo test --release --no-run --test gpu_programs 2>&1 | sed -n 's/.*Executable tests\/gpu_programs.rs (\(.*\))/\1/p' | tail -1)
mkdir -p "$DEST"
cp "$TEST_BIN" "$DEST/gpu-tests"
cp "$PROGRAMS_BIN" "$DEST/gpu-programs"
cp "$CARGO_TARGET_DIR/release/arr" "$DEST/arr"
strip "$DEST/gpu-tests" "$DEST/gpu-programs" "$DEST/arr" 2>/dev/null || true
git rev-parse --short HEAD > "$DEST/COMMIT"
ls -l "$DEST"

cat <<'CMD'
Run on the device machine (device tool `run`, carry ["target/device"]): the GPU suite,
every program on CUDA vs CPU, then the benchmark table (bench/run.py, about 2 minutes):

export ARR_CACHE_DIR=/tmp/arr-cache; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; ./target/device/gpu-tests --ignored --test-threads=1 > $OUT/gpu.log 2>&1; grep -E "passed|failed" $OUT/gpu.log | tail -8; ./target/device/gpu-programs --ignored --nocapture > $OUT/programs.log 2>&1; grep "programs on cuda" $OUT/programs.log; ARR_COMMIT=$(cat target/device/COMMIT) python3 bench/run.py --arr target/device/arr --out $OUT/bench 2>&1 | tail -60
CMD
