#!/usr/bin/env bash
# run_cuda_gpu.sh OUTDIR - the CUDA device of libtl_runtime on a real NVIDIA GPU (`make test-cuda-runtime`).
# Builds the runtime (or uses $TL_PREBUILT_LIB/libtl_runtime.so with its libraries when this machine
# lacks libarchive/jansson/OpenSSL headers), the fixture kernels with nvcc (cubins sm_90a and sm_80,
# PTX compute_80; tests/runtime/cuda_fixture.py), their packages and programs/cuda_use.c; runs
# cuda_use in mode "check" on each package through tl_package_open_ex(kDLCUDA, 0), which compares
# every result with host math, then once more under compute-sanitizer memcheck. Logs in OUTDIR.
set -u -o pipefail
OUT=${1:?usage: run_cuda_gpu.sh OUTDIR}
mkdir -p "$OUT"
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
B=$(mktemp -d)
PY=${PYTHON:-python3}
NVCC=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | tail -1)
export PATH=$(dirname "$NVCC"):$PATH
{
  echo "== machine"; date -u; uname -m; nvidia-smi --query-gpu=name,compute_cap,driver_version,memory.total --format=csv
  "$NVCC" --version | tail -2
  $PY -c 'import torch; print("torch", torch.__version__, torch.cuda.is_available())' 2>&1 | tail -1
  command -v compute-sanitizer || echo "no compute-sanitizer"
} 2>&1 | tee "$OUT/machine.log"

LIBDIR=$B/runtime
RUN_ENV="TL_GPU_RUN=1"
if make -s -C "$ROOT/libtl_runtime" BUILD="$LIBDIR" >"$OUT/build.log" 2>&1; then
  echo "runtime built here" | tee -a "$OUT/build.log"
elif [ -n "${TL_PREBUILT_LIB:-}" ]; then
  echo "runtime build failed here (no -dev packages?); using the prebuilt $TL_PREBUILT_LIB" | tee -a "$OUT/build.log"
  # only the libraries this machine lacks, and only for the programs that load the runtime (an older
  # libz or libzstd in front of the system's could break nvcc or python)
  LIBDIR=$B/prebuilt
  mkdir -p "$LIBDIR"
  for f in "$TL_PREBUILT_LIB"/*.so*; do
    n=$(basename "$f")
    if [ "$n" = libtl_runtime.so ] || ! ldconfig -p | grep -q "^[[:space:]]*$n "; then cp "$f" "$LIBDIR/"; echo "carried $n"; fi
  done | tee -a "$OUT/build.log"
  RUN_ENV="LD_LIBRARY_PATH=$LIBDIR"
else
  echo "runtime build failed"; cat "$OUT/build.log"; exit 1
fi
echo "libcuda NEEDED entries: $(readelf -d "$LIBDIR/libtl_runtime.so" | grep -c libcuda)" | tee -a "$OUT/build.log"
$PY "$ROOT/tests/runtime/cuda_fixture.py" "$B/pk" >>"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -I"$ROOT/libtl_runtime/include" \
  "$ROOT/tests/runtime/programs/cuda_use.c" -o "$B/cuda_use" -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -ltl_runtime -ldl \
  >>"$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
for s in sm90a sm80; do cuobjdump -res-usage "$B/pk/cuda-$s.cubin" 2>&1; done >>"$OUT/build.log"

# an sm_80 cubin runs on compute capability 8.x only: elsewhere its package must be refused, naming why
CC_MAJOR=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader -i 0 | cut -d. -f1)
fail=0
env $RUN_ENV ldd "$B/cuda_use" >>"$OUT/build.log" 2>&1
for p in cuda-all cuda-sm90a cuda-sm80 cuda-ptx80; do
  echo "== $p"
  env $RUN_ENV "$B/cuda_use" "$B/pk/$p.tlpkg" 2 0 check || fail=1
done 2>&1 | tee "$OUT/run.log"
grep -q "^FAIL\|check .* FAIL" "$OUT/run.log" && fail=1
if [ "$CC_MAJOR" = 8 ]; then want=4; else
  want=3
  grep -q "bundle 'cuda-sm80' does not run on cuda device 0: sm_80 needs compute capability 8.x" "$OUT/run.log" || fail=1
  echo "(cuda-sm80 refused as expected on compute capability $CC_MAJOR.x)" | tee -a "$OUT/run.log"
fi
grep -c "^done 0" "$OUT/run.log" | grep -q "^$want\$" || fail=1
if command -v compute-sanitizer >/dev/null; then
  env $RUN_ENV compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 "$B/cuda_use" "$B/pk/cuda-all.tlpkg" 2 0 check \
    2>&1 | tee "$OUT/memcheck.log"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
fi
if $PY -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
  env $RUN_ENV TL_RUNTIME_LIB="$LIBDIR/libtl_runtime.so" $PY "$ROOT/tests/runtime/gpu/torch_stream.py" "$B/pk/cuda-all.tlpkg" \
    2>&1 | tee -a "$OUT/run.log"
  [ "${PIPESTATUS[0]}" = 0 ] || fail=1
fi
echo "== summary: $([ $fail = 0 ] && echo PASS || echo FAIL)" | tee -a "$OUT/run.log"
exit $fail
