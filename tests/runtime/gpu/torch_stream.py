"""The CUDA device with torch: torch-allocated CUDA tensors through tl._runtime's ctypes mirror,
launched with tl_kernel_launch_ex on torch's current (non-default) stream, then torch reads the
result on that stream without a runtime synchronize (stream order alone must make it right).
Shows the runtime shares torch's primary context. Usage: python3 torch_stream.py PACKAGE"""
import ctypes
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
import torch  # noqa: E402

import tl._runtime as R  # noqa: E402


def dl(t, shape_keep):
    shape = (ctypes.c_int64 * t.dim())(*t.shape)
    strides = (ctypes.c_int64 * t.dim())(*t.stride())
    shape_keep += [shape, strides]
    d = R.DLTensor()
    d.data = t.data_ptr()
    d.device = R.DLDevice(2, t.device.index or 0)
    d.ndim = t.dim()
    d.dtype = R.DLDataType(2, 32, 1)
    d.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    d.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    d.byte_offset = 0
    return d


def main(path):
    lib = R._library()
    rt, pkg, k = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    assert lib.tl_runtime_create(None, ctypes.byref(rt)) == 0
    oo = R.tl_package_open_options_t()
    lib.tl_package_open_options_initialize(ctypes.byref(oo))
    oo.device_type, oo.device_id = 2, 0
    st = lib.tl_package_open_ex(rt, path.encode(), ctypes.byref(oo), ctypes.byref(pkg))
    assert st == 0, lib.tl_runtime_last_error(rt)
    assert lib.tl_package_kernel(pkg, b"copy2d", ctypes.byref(k)) == 0
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        x = torch.randn(4096, 1000, device="cuda").t()          # (1000, 4096), strides (1, 1000)
        out = torch.full((1000, 4096), float("nan"), device="cuda")
        keep = []
        args = (R.tl_value_t * 2)()
        tx, to = dl(x, keep), dl(out, keep)
        args[0].tensor, args[1].tensor = ctypes.pointer(tx), ctypes.pointer(to)
        lo = R.tl_launch_ex_options_t()
        lib.tl_launch_ex_options_initialize(ctypes.byref(lo))
        lo.stream = s.cuda_stream
        for _ in range(3):
            st = lib.tl_kernel_launch_ex(k, args, 2, None, ctypes.byref(lo))
            assert st == 0, lib.tl_runtime_last_error(rt)
        ok = torch.equal(out, x)                               # on stream s, after the launches
    torch.cuda.synchronize()
    print(f"torch stream check copy2d {'ok' if ok else 'FAIL'} (1000x4096 transposed view, stream {s.cuda_stream:#x})")
    lib.tl_package_release(pkg)
    lib.tl_runtime_release(rt)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
