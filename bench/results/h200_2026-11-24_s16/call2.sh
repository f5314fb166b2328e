# Session 16, call 2: where Black-Scholes' host time goes (a fresh process,
# warm disk cache): --profile and --time, three runs each.
export ARR_CACHE_DIR=/tmp/arr-cache
./target/device/arr --backend cuda run --time bench/programs/black_scholes.arr 2>&1 | tail -1
for i in 1 2 3; do ./target/device/arr --backend cuda run --time bench/programs/black_scholes.arr 2>&1 | tail -1; done
./target/device/arr --backend cuda run --profile bench/programs/black_scholes.arr > $OUT/bs_profile.txt 2>&1; cat $OUT/bs_profile.txt | tail -14
./target/device/arr --backend cuda run --profile-json $OUT/bs.json bench/programs/black_scholes.arr > /dev/null 2>&1; head -c 1500 $OUT/bs.json
for i in 1 2 3; do /usr/bin/time -f "wall %e s" ./target/device/arr --backend cuda run --time bench/programs/black_scholes.arr 2>&1 | tail -2; done
