"""Every environment knob of tlc, read in one place.

TL_CACHE_DIR  build cache directory (default ``~/.cache/tl-compiler``)
TL_DEBUG      "1" shows compiler tracebacks for user errors and keeps build temporaries
TL_CC         C compiler command overriding each variant's ``cc`` (e.g. ``clang``)
TL_JOBS       default number of parallel compile jobs (default: CPU count)

Values are read on each call (not at import), so tests may ``monkeypatch.setenv``.
"""
from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """The build cache root: $TL_CACHE_DIR or ~/.cache/tl-compiler."""
    value = os.environ.get("TL_CACHE_DIR")
    return Path(value).expanduser() if value else Path.home() / ".cache" / "tl-compiler"


def debug() -> bool:
    """True when TL_DEBUG is set to anything but "", "0", "false", "no"."""
    return os.environ.get("TL_DEBUG", "").strip().lower() not in ("", "0", "false", "no")


def cc_override() -> str | None:
    """The C compiler from $TL_CC, or None to use the variant's own."""
    return os.environ.get("TL_CC") or None


def jobs() -> int:
    """Default parallel jobs: $TL_JOBS (>= 1) or the CPU count."""
    value = os.environ.get("TL_JOBS")
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"TL_JOBS must be an integer, got {value!r}") from None
    return os.cpu_count() or 1
