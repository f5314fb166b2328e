# expect: E0308
# Python: "Unknown format code 'd' for object of type 'float'".
print(f"{5.0:d}")
