"""Graphviz through pygraphviz (its PyPI wheels bundle the Graphviz libraries).

A library call cannot be interrupted, so each layout runs in a child process
that we can kill on cancel or time out.  "spawn" is used everywhere: forking
a process that has Qt threads running is not safe.
"""
from __future__ import annotations

import importlib.util
import json
import multiprocessing
import time

from .dot_engine import EngineFailed, LayoutTimeout
from .dot_text import parse_json0, to_dot
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


def _child(conn, text: str) -> None:
    try:
        import pygraphviz
        graph = pygraphviz.AGraph(string=text)
        conn.send(("ok", graph.draw(format="json0", prog="dot")))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def layout_with_pygraphviz(request: LayoutRequest, first_rank=(), last_rank=(), *,
                           cancel: CancelToken | None = None,
                           time_limit: float | None = None) -> Layout:
    if not request.nodes:
        return Layout({}, {}, {}, 0.0, 0.0, engine="pygraphviz")
    ctx = multiprocessing.get_context("spawn")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, to_dot(request, first_rank, last_rank)), daemon=True)
    proc.start()
    send.close()
    deadline = None if time_limit is None else time.monotonic() + time_limit
    try:
        while not receive.poll(POLL_SECONDS):
            if not proc.is_alive() and not receive.poll(0):
                raise EngineFailed(f"the pygraphviz worker died (exit code {proc.exitcode})")
            if cancel is not None and cancel.cancelled:
                raise LayoutCancelled("layout cancelled; Graphviz worker stopped")
            if deadline is not None and time.monotonic() > deadline:
                raise LayoutTimeout(f"Graphviz took longer than {time_limit:g} s and was stopped")
        status, payload = receive.recv()
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()
    if status != "ok":
        raise EngineFailed(f"pygraphviz failed: {payload}")
    try:
        data = json.loads(payload)
    except ValueError as exc:
        raise EngineFailed(f"pygraphviz gave unreadable JSON: {exc}") from exc
    return parse_json0(data, request, engine="pygraphviz")
