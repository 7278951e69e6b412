# tl-compiler. Each public target does its own set-up on a fresh Debian machine:
#   make run    build libtl_runtime and ops/ into build/ops.tlpkg, then run the demo on real data
#   make test   the same set-up, then the test suite
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TLC := $(VENV)/bin/tlc
BUILD := build
JOBS ?= $(shell nproc)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
SYS_PKGS := libarchive-dev libjansson-dev libssl-dev pkg-config

.PHONY: all run test test-slow sysdeps venv runtime ops clean
all: ops

# System libraries the runtime links (Debian packages), installed only when missing.
sysdeps:
	@if ! pkg-config --exists libarchive jansson libcrypto 2>/dev/null; then \
	  echo "installing $(SYS_PKGS)"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(SYS_PKGS); \
	fi

# A virtual environment that reuses system site-packages when they satisfy the pins.
$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv --system-site-packages $(VENV)
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

test: ops
	$(PY) -m pytest -q tests

test-slow: ops
	$(PY) -m pytest -q -m slow tests

clean:
	rm -rf $(BUILD) $(VENV)
