# expect: E0412
save("no/such/dir/out.npy", zeros([2]))
