# Functions: expression and block forms, defaults, named arguments, tuples, annotations.
fn sq(x) = x * x
fn axpy(a, x, y = 1) = a * x + y
print(sq(3), axpy(2, 3), axpy(2, 3, y=10), axpy(y=0, a=2, x=5))
# out: 9 7 16 10
fn stats(x: f32[n]) -> f32[] {
    let m = mean(x)
    m * 2
}
print(stats(arange(4) as f32))
# out: 3.0
fn split(x) { (min(x), max(x)) }
let (lo, hi) = split([4, 1, 7])
print(lo, hi)
# out: 1 7
fn fact(n) = if n <= 1 { 1 } else { n * fact(n - 1) }
print(fact(10))
# out: 3628800
fn dot(a: [n], b: [n]) = sum(a * b)
print(dot([1, 2, 3], [4, 5, 6]))
# out: 32
