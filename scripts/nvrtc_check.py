#!/usr/bin/env python3
"""Compiles generated CUDA sources with NVRTC on a machine without a GPU
(NVRTC needs no driver), to catch syntax and type errors before a device run.

Usage: ARR_DUMP_CUDA=/tmp/cu cargo test --release --test plan row_resident_sources
       NVRTC_LIB=/path/to/libnvrtc.so.12 python3 scripts/nvrtc_check.py /tmp/cu/*.cu
(the library comes with the nvidia-cuda-nvrtc-cu12 wheel)."""
import ctypes
import os
import sys

lib = ctypes.CDLL(os.environ.get("NVRTC_LIB", "libnvrtc.so"))
failed = 0
for path in sys.argv[1:]:
    src = open(path, "rb").read()
    prog = ctypes.c_void_p()
    assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, path.encode(), 0, None, None) == 0
    opts = [b"--gpu-architecture=compute_90", b"-default-device", b"--std=c++17"]
    arr = (ctypes.c_char_p * len(opts))(*opts)
    rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    text = log.value.decode(errors="replace").strip()
    print(f"{path}: {'ok' if rc == 0 else 'FAILED'}")
    if text:
        print(text)
    failed += rc != 0
sys.exit(1 if failed else 0)
