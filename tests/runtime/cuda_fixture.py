"""The CUDA fixture bundle and packages of the CUDA device tests (test_cuda_device.py here, with the
stub libcuda; gpu/run_cuda_gpu.sh on a GPU machine, with nvcc's cubins).

A CUDA bundle (manifest format "elf-shared-object+cuda") is a host shared object
(programs/cuda_fixture_host.c) holding the kernel table and the device image (programs/cuda_fixture.cu
compiled by nvcc, or any bytes when the driver is the stub). Packages are written with the project's
packer (tlc.package.format.write_package) and a manifest built here.

    python tests/runtime/cuda_fixture.py OUTDIR     # on a machine with nvcc: cubins sm_90a and sm_80, PTX
                                                    # compute_80, their bundles and packages in OUTDIR
"""
from __future__ import annotations

import platform
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
INCLUDE = REPO / "libtl_runtime" / "include"
PROGRAMS = HERE / "programs"
FORMAT = "elf-shared-object+cuda"

KERNELS = [
    ("axpy", True, [("x", "tensor", "float32", 1, "read"), ("y", "tensor", "float32", 1, "readwrite"),
                    ("alpha", "scalar", "float32", 0, "none")]),
    ("copy2d", True, [("x", "tensor", "float32", 2, "read"), ("out", "tensor", "float32", 2, "write")]),
    ("fill_i64", False, [("out", "tensor", "int64", 1, "write"), ("value", "scalar", "int64", 0, "none")]),
]

# nvcc targets: variant -> (nvcc flags, manifest "sm", image format)
NVCC_TARGETS = {
    "cuda-sm90a": (["-cubin", "-arch=sm_90a"], "sm_90a", "cubin"),
    "cuda-sm80": (["-cubin", "-arch=sm_80"], "sm_80", "cubin"),
    "cuda-ptx80": (["-ptx", "-arch=compute_80"], "compute_80", "ptx"),
}


def nvcc() -> str | None:
    """nvcc on PATH or under /usr/local/cuda*/bin, else None."""
    found = shutil.which("nvcc")
    if found:
        return found
    for d in sorted(Path("/usr/local").glob("cuda*/bin/nvcc"), reverse=True):
        return str(d)
    return None


def build_image(out: Path, variant: str) -> Path:
    flags, _, _ = NVCC_TARGETS[variant]
    subprocess.run([nvcc(), *flags, "-O3", "-o", str(out), str(PROGRAMS / "cuda_fixture.cu")], check=True)
    return out


def build_host(out: Path, image: Path, image_format: str = "cubin", target: str = "cuda-fixture",
               **defines) -> Path:
    """The host shared object embedding `image` (defines: TL_BLOCK_THREADS, TL_SHARED_BYTES,
    TL_WORKSPACE, TL_OLD_LAYOUT=1...)."""
    cc = shutil.which("gcc") or shutil.which("cc")
    cmd = [cc, "-shared", "-fPIC", "-O2", "-nostdlib", "-ffreestanding", "-fvisibility=hidden", f"-I{INCLUDE}",
           f'-DTL_IMAGE="{image}"', f'-DTL_IMAGE_FORMAT="{image_format}"', f'-DTL_TARGET="{target}"']
    cmd += [f"-D{k}={v}" for k, v in defines.items()]
    cmd += [str(PROGRAMS / "cuda_fixture_host.c"), "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


def build_cpu(out: Path) -> Path:
    """The CPU bundle of the same kernels (host entries), for packages with CPU and CUDA bundles."""
    cc = shutil.which("gcc") or shutil.which("cc")
    subprocess.run([cc, "-shared", "-fPIC", "-O2", "-nostdlib", "-ffreestanding", "-fno-tree-loop-distribute-patterns",
                    "-fvisibility=hidden", f"-I{INCLUDE}", "-DTL_CPU", '-DTL_TARGET="cpu-base"',
                    str(PROGRAMS / "cuda_fixture_host.c"), "-o", str(out)], check=True)
    return out


def cuda_entry(variant: str, sm: str | None = "sm_90a", priority: int = 50, **fields) -> dict:
    e = {"path": f"bundles/{variant}.so", "variant": variant, "device": "cuda", "format": FORMAT,
         "arch": platform.machine(), "features": [], "priority": priority}
    if sm is not None:
        e["sm"] = sm
    e.update(fields)
    return e


def cpu_entry(variant: str = "cpu-base", priority: int = 10) -> dict:
    return {"path": f"bundles/{variant}.so", "variant": variant, "device": "cpu", "format": "elf-shared-object",
            "arch": platform.machine(), "features": [], "priority": priority}


def manifest(bundles: list[dict], kernels=KERNELS) -> dict:
    return {
        "format": "tlpkg", "format_version": [1, 1], "tlc_version": "0.1.0", "min_runtime_version": [0, 1, 0],
        "name": "cuda_fixture",
        "kernels": [{"name": n, "source": "cuda_fixture.cu", "has_grid": g, "constexprs": {},
                     "params": [dict(zip(("name", "kind", "dtype", "rank", "access"), p)) for p in ps]}
                    for n, g, ps in kernels],
        "bundles": bundles,
        "files": [],
    }


def write(path: Path, bundles: list[tuple[dict, bytes]], kernels=KERNELS) -> Path:
    """A package of (manifest entry, payload bytes) pairs."""
    sys.path.insert(0, str(REPO))
    from tlc.package.format import write_package
    write_package(path, manifest([e for e, _ in bundles], kernels), {e["path"]: data for e, data in bundles})
    return path


def build_gpu_packages(out: Path) -> list[Path]:
    """With nvcc: one package per NVCC_TARGETS variant, and one holding all three (priorities sm90a >
    sm80 > ptx80, so selection picks by compute capability)."""
    out.mkdir(parents=True, exist_ok=True)
    every, made = [], []
    for prio, (variant, (_, sm, fmt)) in zip((60, 50, 40), NVCC_TARGETS.items()):
        image = build_image(out / f"{variant}.{'ptx' if fmt == 'ptx' else 'cubin'}", variant)
        host = build_host(out / f"{variant}.so", image, fmt, target=variant)
        entry = cuda_entry(variant, sm, priority=prio)
        every.append((entry, host.read_bytes()))
        made.append(write(out / f"{variant}.tlpkg", [(entry, host.read_bytes())]))
    made.append(write(out / "cuda-all.tlpkg", every))
    return made


if __name__ == "__main__":
    for p in build_gpu_packages(Path(sys.argv[1])):
        print(p)
