"""Cancel, time limits, the disk cache and the no-Graphviz fallback."""
from __future__ import annotations

import json
import subprocess
import threading
import time

import pytest
from layout_checks import check_layout, random_request

from onnxstudio.core import layout as lay
from onnxstudio.core.layout import CancelToken, LayoutCache, LayoutCancelled, api, dot_engine
from onnxstudio.core.layout import cache as cache_mod
from onnxstudio.core.layout.synthetic import BLOCK_SIZE, transformer_request

needs_dot = pytest.mark.skipif("dot" not in lay.available_engines(), reason="needs Graphviz dot")


def heavy_request():
    # ~2-4 s of dot in one call: many long, crossing edges.
    return random_request(4000, 5, fan_in=3, window=400, depth=0)


@pytest.fixture
def spawned(monkeypatch):
    """Every layout process started by the dot engine."""
    procs = []
    real = subprocess.Popen

    def recording(*args, **kwargs):
        p = real(*args, **kwargs)
        if "-Tjson0" in args[0]:     # not `dot -V`
            procs.append(p)
        return p

    monkeypatch.setattr(dot_engine.subprocess, "Popen", recording)
    return procs


@needs_dot
def test_cancel_kills_dot(spawned):
    token = CancelToken()
    outcome = {}

    def worker():
        try:
            lay.layout(heavy_request(), engine="dot", cancel=token, cache=False, max_piece=10**6)
            outcome["result"] = "finished"
        except LayoutCancelled:
            outcome["result"] = "cancelled"

    thread = threading.Thread(target=worker)
    thread.start()
    # Building the request and starting dot take seconds on a busy machine: wait for dot itself.
    deadline = time.monotonic() + 120
    while not spawned and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert spawned and spawned[0].poll() is None, "dot should still be running"
    token.cancel()
    thread.join(120)
    assert not thread.is_alive()
    assert outcome["result"] == "cancelled"
    assert all(p.poll() is not None for p in spawned), "dot was left running"
    # Stopped, not waited for (a time limit here failed on a loaded machine): killed by a signal.
    assert spawned[0].returncode < 0, f"dot ended by itself (exit code {spawned[0].returncode})"


_SLOW_READER = ("import sys, time; time.sleep(0.3); data = sys.stdin.buffer.read(); "
                "sys.stdout.write(str(len(data)))")


def test_a_program_slow_to_read_gets_all_of_a_large_input():
    # dot on a busy machine: it starts reading only after the first poll, and
    # the graph is larger than a pipe holds. It must still get every byte
    # (it once waited for the rest of its input forever).
    import sys
    text = "x" * (3 << 20)
    out = dot_engine.run_graphviz([sys.executable, "-c", _SLOW_READER], text, None, time_limit=30)
    assert out == str(len(text)).encode()


def test_cancel_while_the_input_is_still_being_written(monkeypatch):
    import sys
    token = CancelToken()
    never_reads = "import time; time.sleep(60)"
    started = []
    real = subprocess.Popen

    def recording(*args, **kwargs):
        started.append(real(*args, **kwargs))
        return started[-1]
    monkeypatch.setattr(dot_engine.subprocess, "Popen", recording)
    threading.Timer(0.2, token.cancel).start()
    with pytest.raises(LayoutCancelled):
        dot_engine.run_graphviz([sys.executable, "-c", never_reads], "x" * (3 << 20), token, None)
    # Killed, not waited for through its minute (a time limit here would fail on a loaded machine).
    assert len(started) == 1 and started[0].returncode < 0, [p.returncode for p in started]


def test_cancel_before_start_raises():
    token = CancelToken()
    token.cancel()
    with pytest.raises(LayoutCancelled):
        lay.layout(random_request(30, 1), cancel=token, cache=False)


@pytest.mark.slow
@needs_dot
def test_time_limit_stops_dot_and_falls_back(spawned):
    # ten times the limit or more (1,500 boxes took 0.45 s: too close to 0.3 s on a fast machine)
    req = heavy_request()
    out = lay.layout(req, engine="dot", time_limit=0.2, cache=False, max_piece=10**6)
    assert out.engine == "builtin"
    assert any("0.2 s" in w for w in out.warnings), out.warnings
    assert all(p.poll() is not None for p in spawned)
    assert check_layout(req, out, clusters_exact=False) == []


def test_fallback_when_graphviz_is_hidden(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # no `dot` on it
    monkeypatch.delenv("ONNXSTUDIO_DOT", raising=False)
    monkeypatch.setattr(dot_engine, "_usual_places", lambda: [])
    monkeypatch.setattr(api, "pygraphviz_available", lambda: False)
    assert lay.available_engines() == ["builtin"]
    req = transformer_request(3)
    out = lay.layout(req, cache=False)
    assert out.engine == "builtin"
    assert "Graphviz was not found" in out.warnings[0]
    assert check_layout(req, out, clusters_exact=False) == []
    # Asking for dot by name still opens the graph, with the same warning.
    named = lay.layout(req, engine="dot", cache=False)
    assert named.engine == "builtin" and "dot layout engine is not installed" in named.warnings[0]


def test_dot_found_where_installers_put_it(monkeypatch, tmp_path):
    # A desktop app started from Finder / the Start menu has a bare PATH.
    fake = tmp_path / "graphviz" / "dot"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("ONNXSTUDIO_DOT", raising=False)
    monkeypatch.setattr(dot_engine, "_usual_places", lambda: [str(tmp_path / "nope"), str(fake)])
    assert dot_engine.find_dot() == str(fake)


def test_onnxstudio_dot_names_the_executable(monkeypatch, tmp_path):
    monkeypatch.setenv("ONNXSTUDIO_DOT", str(tmp_path / "no-such-dot"))
    assert dot_engine.find_dot() is None
    assert "dot" not in lay.available_engines()


def count_engine_calls(monkeypatch, engine_name="layout_builtin"):
    calls = []
    real = getattr(api, engine_name)

    def counting(request, *args, **kwargs):
        calls.append(len(request.nodes))
        return real(request, *args, **kwargs)

    monkeypatch.setattr(api, engine_name, counting)
    return calls


def test_cache_hit_is_identical_and_runs_no_engine(monkeypatch, tmp_path):
    store = LayoutCache(tmp_path)
    calls = count_engine_calls(monkeypatch)
    req = transformer_request(4)
    first = lay.layout(req, engine="builtin", cache=store, max_piece=BLOCK_SIZE + 5)
    assert calls and not first.from_cache
    calls.clear()
    second = lay.layout(req, engine="builtin", cache=store, max_piece=BLOCK_SIZE + 5)
    assert calls == [] and second.from_cache
    assert second.nodes == first.nodes and second.groups == first.groups
    assert {k: e.points for k, e in second.edges.items()} == {k: e.points for k, e in first.edges.items()}
    # Other options are another key.
    req.node_sep += 1
    lay.layout(req, engine="builtin", cache=store, max_piece=BLOCK_SIZE + 5)
    assert calls


def test_cached_pieces_serve_renamed_graphs(monkeypatch, tmp_path):
    store = LayoutCache(tmp_path)
    calls = count_engine_calls(monkeypatch)
    lay.layout(transformer_request(6), engine="builtin", cache=store, max_piece=BLOCK_SIZE + 5)
    calls.clear()
    # Same structure, more layers: the whole-graph key differs, but every
    # piece (stem, block, head) is already on disk.
    out = lay.layout(transformer_request(9), engine="builtin", cache=store, max_piece=BLOCK_SIZE + 5)
    assert calls == []
    assert check_layout(transformer_request(9), out, clusters_exact=False) == []


def test_broken_cache_files_are_misses(tmp_path):
    store = LayoutCache(tmp_path)
    req = random_request(40, 3)
    key = "ab" * 32
    out = lay.layout(req, engine="builtin", cache=False)
    store.put(key, out)
    path = store._file(key)
    assert store.get(key).nodes == out.nodes
    path.write_text("{not json", "utf-8")
    assert store.get(key) is None
    path.write_text(json.dumps({"format": 999}), "utf-8")
    assert store.get(key) is None


def test_concurrent_writers_leave_whole_files(tmp_path):
    store = LayoutCache(tmp_path)
    out = lay.layout(random_request(200, 4), engine="builtin", cache=False)
    key = "cd" * 32
    threads = [threading.Thread(target=lambda: [store.put(key, out) for _ in range(20)]) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.get(key).nodes == out.nodes
    assert [p.name for p in store._file(key).parent.iterdir()] == [f"{key}.json"]   # no temp files left


def test_default_cache_dir_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv(cache_mod.ENV_VAR, str(tmp_path / "c"))
    assert LayoutCache().directory == tmp_path / "c"
    lay.layout(random_request(20, 2), engine="builtin")
    assert list((tmp_path / "c").rglob("*.json"))


def test_progress_reports_pieces(tmp_path):
    seen = []
    lay.layout(transformer_request(5), engine="builtin", cache=False, max_piece=BLOCK_SIZE + 5,
               progress=lambda done, total: seen.append((done, total)))
    assert seen[-1][0] == seen[-1][1] and seen[0][0] == 0


@pytest.mark.skipif("pygraphviz" not in lay.available_engines(), reason="needs pygraphviz")
def test_cancel_kills_the_pygraphviz_worker():
    from onnxstudio.core.layout import pygraphviz_engine as pge
    token = CancelToken()
    outcome = {}

    def worker():
        try:
            lay.layout(heavy_request(), engine="pygraphviz", cancel=token, cache=False, max_piece=10**6)
            outcome["result"] = "finished"
        except LayoutCancelled:
            outcome["result"] = "cancelled"

    pge.shutdown_workers()
    before = set(pge.multiprocessing.active_children())
    thread = threading.Thread(target=worker)
    thread.start()
    # The worker's start-up (~0.5 s idle, far more on a busy machine): wait for its process.
    deadline = time.monotonic() + 120
    while not set(pge.multiprocessing.active_children()) - before and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    busy = set(pge.multiprocessing.active_children()) - before
    assert busy, "no worker process running"
    token.cancel()
    thread.join(120)
    assert not thread.is_alive()
    assert outcome["result"] == "cancelled"
    for proc in busy:
        proc.join(120)
        assert not proc.is_alive() and proc.exitcode < 0        # killed, not left to finish
    # The next layout gets a fresh worker and works.
    req = random_request(60, 9)
    assert check_layout(req, lay.layout(req, engine="pygraphviz", cache=False)) == []


def test_prune_keeps_the_newest_files(tmp_path):
    import os
    store = LayoutCache(tmp_path)
    out = lay.layout(random_request(30, 1), engine="builtin", cache=False)
    keys = [f"{i:02x}" * 32 for i in range(6)]
    for age, key in enumerate(keys):
        store.put(key, out)
        os.utime(store._file(key), (1000 + age, 1000 + age))   # keys[0] is the oldest
    size = store._file(keys[0]).stat().st_size
    assert store.prune(max_bytes=2 * size) == 4
    assert [k for k in keys if store.get(k) is not None] == keys[-2:]


def test_unusable_graphviz_output_falls_back(monkeypatch):
    # A dot that answers with JSON lacking positions: that piece uses the
    # built-in layout and the user is told, nothing crashes.
    monkeypatch.setattr(dot_engine, "run_graphviz", lambda *a, **k: b'{"bb": "0,0,10,10", "objects": []}')
    req = random_request(40, 2)
    out = lay.layout(req, engine="dot", cache=False) if "dot" in lay.available_engines() else None
    if out is not None:
        assert out.engine == "builtin" and "missing positions" in out.warnings[0]
        assert check_layout(req, out, clusters_exact=False) == []
