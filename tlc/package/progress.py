"""Progress of a long build on stderr: a live bar on a terminal, plain lines anywhere else.

``mode``: "bar" (click.progressbar, redrawn in place), "lines" (one line per ~10% of the
objects and at least one every ``interval`` seconds while work is running, so a piped build, a
CI log or ``make run`` is never silent for minutes), "off", or "auto" (bar when the stream is a
terminal, else lines). A line reads ``tlc build: compiling 40/92 objects (30 from the cache),
12 s``; a heartbeat line adds the items in progress (``; at ops/conv.py x86_64-avx2``). Phases without a count (linking, writing the package) print one line when they start
and, in "lines" mode, a heartbeat while they run.
"""
from __future__ import annotations

import contextlib
import sys
import threading
import time

PREFIX = "tlc build: "


def resolve_mode(progress, stream) -> str:
    """Mode for ``build_package(progress=...)``: None or True -> auto, False -> off, or a mode."""
    if progress is False:
        return "off"
    if progress in (None, True, "auto"):
        isatty = getattr(stream, "isatty", None)
        return "bar" if isatty is not None and isatty() else "lines"
    if progress not in ("bar", "lines", "off"):
        raise ValueError(f"progress must be None, a bool, 'auto', 'bar', 'lines' or 'off', got {progress!r}")
    return progress


class Progress:
    """One build's progress reporter (see the module doc). Thread-safe."""

    def __init__(self, progress=None, stream=None, interval: float = 10.0, steps: int = 10):
        self.stream = sys.stderr if stream is None else stream
        self.mode = resolve_mode(progress, self.stream)
        self.interval, self.steps = interval, steps
        self._lock = threading.Lock()
        self._t0 = time.perf_counter()

    def line(self, text: str) -> None:
        """A plain line (not in "off" mode)."""
        if self.mode == "off":
            return
        with self._lock:
            self.stream.write(PREFIX + text + "\n")
            self.stream.flush()

    @contextlib.contextmanager
    def counted(self, label: str, noun: str, total: int, done: int = 0, cached: int = 0, busy=None):
        """A phase of ``total`` items of which ``done`` (``cached`` of them from the cache) are
        done already; yields ``step()`` to call once per finished item. ``busy()`` (optional)
        names the items in progress, for the heartbeat lines."""
        if self.mode == "off" or total <= done:
            yield lambda: None
            return
        if self.mode == "bar":
            import click
            extra = f" ({cached} from the cache)" if cached else ""
            with click.progressbar(length=total - done, label=f"{label} {total - done}/{total} {noun}s{extra}",
                                   file=self.stream) as bar:
                yield lambda: bar.update(1)
            return
        state = {"done": done, "last_t": time.perf_counter(), "last_step": -1}
        t0 = time.perf_counter()

        def say(beat=False):
            state["last_t"] = time.perf_counter()
            extra = f" ({cached} from the cache)" if cached else ""
            names = list(busy() or ()) if beat and busy is not None else []
            now = f"; at {', '.join(names[:3])}{', ...' if len(names) > 3 else ''}" if names else ""
            self.line(f"{label} {state['done']}/{total} {noun}s{extra}, {time.perf_counter() - t0:.0f} s{now}")

        def step():
            with self._lock:
                state["done"] += 1
                k = state["done"] * self.steps // total
                due = k > state["last_step"]
                if due:
                    state["last_step"] = k
            if due:
                say()

        with self._heartbeat(lambda: time.perf_counter() - state["last_t"] >= self.interval, lambda: say(True)):
            state["last_step"] = done * self.steps // total
            say()
            yield step

    @contextlib.contextmanager
    def running(self, text: str):
        """A phase without a count: one line when it starts, then (lines mode) a heartbeat line
        every ``interval`` seconds while it runs."""
        if self.mode == "off":
            yield
            return
        self.line(text)
        t0, last = time.perf_counter(), [time.perf_counter()]

        def say():
            last[0] = time.perf_counter()
            self.line(f"{text}, {time.perf_counter() - t0:.0f} s")
        with self._heartbeat(lambda: time.perf_counter() - last[0] >= self.interval, say):
            yield

    @contextlib.contextmanager
    def _heartbeat(self, due, say):
        if self.mode != "lines":
            yield
            return
        stop = threading.Event()

        def beat():
            while not stop.wait(min(1.0, self.interval)):
                if due():
                    say()
        th = threading.Thread(target=beat, name="tlc-progress", daemon=True)
        th.start()
        try:
            yield
        finally:
            stop.set()
            th.join()
