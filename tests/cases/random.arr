# NumPy's random sampling names (stdlib/core.arr), checked by their properties: the
# values come from Arr's generator, not NumPy's, so the oracle is what each
# distribution must satisfy (ranges, dtypes, shapes, sample moments within a few
# standard errors for the sizes used; the seed makes every line deterministic).
seed(1)
let u = uniform(2.0, 5.0, size=100000)
print(dtype(u), shape(u), min(u) >= 2.0, max(u) < 5.0, abs(mean(u) - 3.5) < 0.01, shape(uniform()))
# out: f64 (100000,) true true true ()
let z = normal(1.0, 2.0, [200, 500])
print(shape(z), abs(mean(z) - 1.0) < 0.02, abs(std(z) - 2.0) < 0.02, dtype(standard_normal(3)), shape(standard_normal()))
# out: (200, 500) true true f64 ()
let k = randint(3, 7, size=100000)
print(dtype(k), min(k), max(k), all(abs(bincount(k)[3:] / 100000.0 - 0.25) < 0.01), shape(randint(5)), max(randint(2, size=1000)))
# out: i64 3 6 true () 1
print(sort(permutation(10)), sort(permutation([4.0, 1.0, 2.0])), shape(permutation(reshape(arange(6), [3, 2]))))
# out: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] [1.0, 2.0, 4.0] (3, 2)
let c = choice(5, size=100000, p=[0.1, 0.0, 0.2, 0.3, 0.4])
print(all(abs(bincount(c, minlength=5) / 100000.0 - [0.1, 0.0, 0.2, 0.3, 0.4]) < 0.01), sum(c == 1))
# out: true 0
print(sort(choice([10, 20, 30], size=3, replace=false)), shape(choice(4, size=[2, 2])), shape(choice([1.0, 2.0])))
# out: [10, 20, 30] (2, 2) ()
print(sort(choice(6, size=2, replace=false, p=[0.5, 0.5, 0.0, 0.0, 0.0, 0.0])), max(choice(3, size=1000)))
# out: [0, 1] 2
