"""Graphviz through pygraphviz (its PyPI wheels bundle the Graphviz libraries).

A library call cannot be interrupted, so layouts run in child processes that
we can kill on cancel or time out.  Idle children are kept for the next
call; a child killed mid-layout is replaced.  "spawn" is used everywhere: forking
a process that has Qt threads running is not safe.
"""
from __future__ import annotations

import importlib.util
import threading
import time

from .dot_engine import EngineFailed, LayoutTimeout, layout_from_json0
from .dot_text import to_dot
from .geometry import CancelToken, Layout, LayoutCancelled, LayoutRequest

POLL_SECONDS = 0.02


def pygraphviz_available() -> bool:
    return importlib.util.find_spec("pygraphviz") is not None


def pygraphviz_version() -> str:
    try:
        from importlib.metadata import version
        return version("pygraphviz")
    except Exception as exc:  # noqa: BLE001 - any failure only changes the cache key
        return f"unknown ({exc})"


def _serve(conn) -> None:
    """Child process: lay out every DOT text received until the pipe closes."""
    import pygraphviz
    while True:
        try:
            text = conn.recv()
        except (EOFError, OSError):
            return
        try:
            graph = pygraphviz.AGraph(string=text)
            conn.send(("ok", graph.draw(format="json0", prog="dot")))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which decides
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class _Worker:
    """One child process; killed (and never reused) when a call is abandoned."""

    def __init__(self):
        import multiprocessing          # only with this engine: not on the app's way to its first picture
        ctx = multiprocessing.get_context("spawn")
        self.conn, child_end = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child_end,), daemon=True,
                                name="onnxstudio-layout")
        self.proc.start()
        child_end.close()

    def kill(self) -> None:
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join()
        self.conn.close()


# Idle workers, reused so the process start-up (~0.5 s) is paid once.
_idle: list[_Worker] = []
_idle_lock = threading.Lock()


def _take_worker() -> _Worker:
    with _idle_lock:
        while _idle:
            w = _idle.pop()
            if w.proc.is_alive():
                return w
            w.kill()
    return _Worker()


def _give_back(worker: _Worker) -> None:
    with _idle_lock:
        _idle.append(worker)


def shutdown_workers() -> None:
    """Stop idle worker processes (they are daemons, so exiting stops them too)."""
    with _idle_lock:
        workers, _idle[:] = list(_idle), []
    for w in workers:
        w.kill()


def layout_with_pygraphviz(request: LayoutRequest, first_rank=(), last_rank=(), *,
                           cancel: CancelToken | None = None,
                           time_limit: float | None = None) -> Layout:
    if not request.nodes:
        return Layout({}, {}, {}, 0.0, 0.0, engine="pygraphviz")
    worker = _take_worker()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    finished = False
    try:
        worker.conn.send(to_dot(request, first_rank, last_rank))
        while not worker.conn.poll(POLL_SECONDS):
            if not worker.proc.is_alive() and not worker.conn.poll(0):
                raise EngineFailed(f"the pygraphviz worker died (exit code {worker.proc.exitcode})")
            if cancel is not None and cancel.cancelled:
                raise LayoutCancelled("layout cancelled; Graphviz worker stopped")
            if deadline is not None and time.monotonic() > deadline:
                raise LayoutTimeout(f"Graphviz took longer than {time_limit:g} s and was stopped")
        status, payload = worker.conn.recv()
        finished = True
    except (EOFError, OSError) as exc:
        raise EngineFailed(f"lost the pygraphviz worker: {exc}") from exc
    finally:
        # A worker still busy with an abandoned layout cannot be reused.
        if finished:
            _give_back(worker)
        else:
            worker.kill()
    if status != "ok":
        raise EngineFailed(f"pygraphviz failed: {payload}")
    return layout_from_json0(payload, request, "pygraphviz")
