#!/usr/bin/env bash
# cuda-compile2 final device run (arr binary only): every example and test case on CUDA vs CPU, then the bench.
D=target/cuda-compile2-dev
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
echo "commit $(cat $D/COMMIT)"
T0=$(date +%s); same=0; diff=0
for f in examples/*.arr tests/cases/*.arr bench/programs/lu.arr; do
  a=$(cd $(dirname $f) && ARR_CACHE_DIR=/tmp/c1 timeout 60 $OLDPWD/$D/arr --backend cuda run $(basename $f) 2>&1); b=$(cd $(dirname $f) && timeout 60 $OLDPWD/$D/arr --backend cpu run $(basename $f) 2>&1)
  if [ "$a" == "$b" ]; then same=$((same+1)); else diff=$((diff+1)); echo "== differs: $f"; diff <(echo "$b") <(echo "$a") | head -6; fi
done > $OUT/compare.log
echo "cuda vs cpu: $same identical outputs, $diff differ; t=$(( $(date +%s) - T0 ))s"; grep -c "^== differs" $OUT/compare.log
ARR_COMMIT=$(cat $D/COMMIT) timeout 200 python3 $D/bench/run.py --arr $D/arr --out $OUT/bench --only copy --programs heat,shallow_water,nbody,leibniz_pi,monte_carlo_pi,black_scholes,lu,lbm > $OUT/bench.log 2>&1; echo "bench rc=$? t=$(( $(date +%s) - T0 ))s"
grep -A30 "| program |" $OUT/bench.log | head -26
head -c 2500 $OUT/compare.log
