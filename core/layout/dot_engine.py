"""The Graphviz `dot` executable, run as a subprocess we can kill.

A subprocess (rather than a library call) is what makes a layout cancellable:
the cancel token or the time limit kills the process and the worker thread
returns at once.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time

from .dot_text import parse_json0, to_dot
from .geometry import CancelToken, Layout, LayoutCancelled, LayoutRequest

POLL_SECONDS = 0.02


class LayoutTimeout(Exception):
    """A Graphviz call ran past its time limit and was stopped."""


class EngineFailed(Exception):
    """Graphviz ran but gave no usable answer (the message says why)."""


def _usual_places() -> list[str]:
    """Where installers put dot when it is not on PATH: a desktop app started
    from Finder or the Start menu does not see the shell's PATH."""
    if os.name == "nt":
        roots = [os.environ.get(k) for k in ("ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA")]
        return [os.path.join(r, "Graphviz", "bin", "dot.exe") for r in roots if r]
    return ["/opt/homebrew/bin/dot", "/usr/local/bin/dot", "/opt/local/bin/dot", "/usr/bin/dot"]


def find_dot() -> str | None:
    """Path of the `dot` executable: $ONNXSTUDIO_DOT if set, else the PATH,
    else the places Graphviz installers use."""
    explicit = os.environ.get("ONNXSTUDIO_DOT")
    if explicit:
        return explicit if os.path.isfile(explicit) else None
    found = shutil.which("dot")
    if found:
        return found
    return next((p for p in _usual_places() if os.path.isfile(p) and os.access(p, os.X_OK)), None)


def dot_version(dot: str) -> str:
    """`dot -V` output (part of cache keys: another Graphviz gives other layouts)."""
    try:
        done = subprocess.run([dot, "-V"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"unknown ({exc})"
    return (done.stderr or done.stdout).strip()


def _feed(pipe, data: bytes) -> None:
    """Write `data` to the program's stdin and close it (in its own thread)."""
    try:
        pipe.write(data)
    except OSError:     # the program ended early (killed on cancel, or failed): its exit status tells
        pass
    finally:
        try:
            pipe.close()
        except OSError:
            pass


def run_graphviz(argv: list[str], text: str, cancel: CancelToken | None,
                 time_limit: float | None) -> bytes:
    """Feed `text` to the program's stdin; return stdout. Kills it on cancel/timeout.

    The input is written by a thread of its own while this one polls for the
    output, the cancel token and the time limit. (communicate(input, timeout)
    cannot be retried: after a timeout, a second call sends nothing more, so
    when dot had not read the whole graph within the first poll, which a
    busy machine makes likely for a large graph, it waited for the rest of
    its input forever.)"""
    startupinfo = None
    if os.name == "nt":  # no console window flashing up on Windows
        startupinfo = subprocess.STARTUPINFO()
        startupinfo.dwFlags |= subprocess.STARTF_USESHOWWINDOW
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, startupinfo=startupinfo)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    stdin, proc.stdin = proc.stdin, None        # ours to write and close, not communicate()'s
    writer = threading.Thread(target=_feed, args=(stdin, text.encode("utf-8")), name="dot-input", daemon=True)
    writer.start()
    try:
        while True:
            try:
                out, err = proc.communicate(timeout=POLL_SECONDS)
                break
            except subprocess.TimeoutExpired:
                pass
            if cancel is not None and cancel.cancelled:
                raise LayoutCancelled("layout cancelled; Graphviz stopped")
            if deadline is not None and time.monotonic() > deadline:
                raise LayoutTimeout(f"Graphviz took longer than {time_limit:g} s and was stopped")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        writer.join()       # returns at once: the program has ended, so a pending write fails
    if proc.returncode != 0:
        raise EngineFailed(f"{argv[0]} exited with {proc.returncode}: "
                           f"{err.decode('utf-8', 'replace').strip()[:500]}")
    return out


def layout_with_dot(request: LayoutRequest, first_rank=(), last_rank=(), *,
                    cancel: CancelToken | None = None, time_limit: float | None = None,
                    dot: str | None = None) -> Layout:
    dot = dot or find_dot()
    if dot is None:
        raise EngineFailed("the Graphviz `dot` executable was not found on PATH")
    if not request.nodes:
        return Layout({}, {}, {}, 0.0, 0.0, engine="dot")
    out = run_graphviz([dot, "-Tjson0"], to_dot(request, first_rank, last_rank), cancel, time_limit)
    return layout_from_json0(out, request, "dot")


def layout_from_json0(text, request: LayoutRequest, engine: str) -> Layout:
    """Geometry from Graphviz `-Tjson0` output; EngineFailed when it is unusable."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise EngineFailed(f"{engine} gave unreadable JSON: {exc}") from exc
    try:
        return parse_json0(data, request, engine=engine)
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        raise EngineFailed(f"{engine} output is missing positions ({type(exc).__name__}: {exc})") from exc
