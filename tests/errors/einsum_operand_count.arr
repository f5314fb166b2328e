# expect: E0220
let a = ones([2, 3])
let b = einsum("ij,jk->ik", a)
