"""A tl.ops backend that runs every kernel launch through tests/cross/tl_run.c on another
architecture (under qemu-user), so the operator tests of tests/ops (inputs, float64 NumPy
references, tolerances) run unchanged against aarch64 and riscv64 bundles.

``EmulatedPackage(command)``: ``command`` is the driver command line (emulator prefix, driver
binary, package or bundle path); one driver process serves every launch. ``pkg.NAME(*args)``
writes each tensor argument to an .npy file (C-contiguous copy of its raw bytes), sends
``run NAME N t=<file> s=<scalar> ...``, and copies every tensor file back into the caller's array
(strided views included). Launch errors raise :class:`EmulatedLaunchError` (a RuntimeError); a
kernel missing from the package raises tl's KernelNotFoundError, as the host package does.
``$TL_CROSS_LOG`` (optional) receives one launched kernel name per line, for coverage.
"""
from __future__ import annotations

import os
import subprocess
import tempfile
import threading

import numpy as np

from tl._runtime import KernelNotFoundError


class EmulatedLaunchError(RuntimeError):
    """The driver answered ``err <message>`` (or died)."""


class EmulatedPackage:
    def __init__(self, command: list[str]):
        self.command = list(command)
        self._dir = tempfile.TemporaryDirectory(prefix="tl-cross-")
        self._lock = threading.Lock()
        self._start()
        self._seq = 0
        self._log = open(os.environ["TL_CROSS_LOG"], "a") if os.environ.get("TL_CROSS_LOG") else None
        self.variant, self.features = self._info()

    def _start(self) -> None:
        self._proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True, bufsize=1)

    def _ask(self, line: str) -> str:
        if self._proc.poll() is not None:      # a crashed emulator fails one launch, not the session
            self._start()
        self._proc.stdin.write(line + "\n")
        self._proc.stdin.flush()
        answer = self._proc.stdout.readline()
        if not answer:
            raise EmulatedLaunchError(f"driver exited (status {self._proc.poll()}): {' '.join(self.command)}")
        return answer.rstrip("\n")

    def _info(self) -> tuple[str, str]:
        answer = self._ask("info")
        if not answer.startswith("ok "):
            raise EmulatedLaunchError(f"{' '.join(self.command)}: {answer}")
        _, variant, *features = answer.split(" ")
        return variant, (features[0] if features else "")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args, grid=None: self.launch(name, *args, grid=grid)

    def launch(self, name: str, *args, grid=None) -> None:
        if grid is not None:
            raise NotImplementedError("explicit grids are not supported by the cross driver")
        with self._lock:
            self._seq += 1
            tokens, files = [], []
            for i, a in enumerate(args):
                if isinstance(a, np.ndarray):
                    same = next((f for f in files if f[1] is a), None)
                    path = same[0] if same else os.path.join(self._dir.name, f"{self._seq}_{i}.npy")
                    if same is None:
                        raw = np.ascontiguousarray(a)
                        np.save(path, raw.view(np.dtype(f"u{raw.itemsize}")) if raw.size else raw.view(np.uint8))
                        files.append((path, a))
                    tokens.append(f"t={path}")
                elif isinstance(a, (float, np.floating)):
                    tokens.append(f"s={float(a).hex()}")
                else:
                    tokens.append(f"s={int(a)}")
            answer = self._ask(f"run {name} {len(args)} {' '.join(tokens)}")
            if self._log is not None:
                self._log.write(name + "\n")
                self._log.flush()
            try:
                if answer.startswith("err no kernel '"):     # as the host package: KernelNotFoundError
                    raise KernelNotFoundError(answer[4:])
                if answer != "ok":
                    raise EmulatedLaunchError(f"{name} on {self.variant}: {answer[4:] if answer.startswith('err ') else answer}")
                for path, a in files:       # only what the kernel wrote (inputs may be read-only)
                    if a.size:
                        new = np.load(path).view(a.dtype).reshape(a.shape)
                        if new.tobytes() != np.ascontiguousarray(a).tobytes():
                            a[...] = new
            finally:
                for path, _ in files:
                    os.unlink(path)

    def close(self) -> None:
        if self._proc.poll() is None:
            try:
                self._proc.stdin.write("quit\n")
                self._proc.stdin.close()
                self._proc.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self._proc.kill()
        self._dir.cleanup()
