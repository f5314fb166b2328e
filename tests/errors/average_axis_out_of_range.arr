# expect: E0201
# The axis is checked before the weights meet the array (it used to be a broadcast error).
print(average(arange(6), axis=1, weights=[1, 2]))
