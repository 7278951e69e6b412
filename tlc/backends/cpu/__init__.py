"""The CPU backend: x86-64, AArch64 and RISC-V variants sharing the C emitter (tlc/emit_c) and the
assembly GEMM microkernels (tlc/emit_asm), built by gcc/clang into freestanding shared objects.

  targets.py         Variant, the targets as data (TARGETS), host detection, emulators
  passes/            vectorize (SIMD lanes), lower_dot (dot -> microkernel choice)
  build.py           compile/link of a bundle (flags, aggregator, symbol checks)
  lint.py            CPU performance warnings (masked accesses, large tiles)
  tuning.py          per-kernel constexpr choices per variant
  backend.py         CpuBackend: the Backend protocol wired to the above
"""
