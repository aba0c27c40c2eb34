"""Layouts kept on disk, keyed by a content hash of the (sub)graph and options.

One small JSON file per key.  Writers never clash: each writes a private
temporary file and renames it into place (atomic on every OS we support), so
two processes laying out the same model at once both end with a whole file.
A file that cannot be read is treated as a miss.
"""
from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import tempfile
import threading
from collections import OrderedDict

from .geometry import EdgePath, GroupBox, Layout, NodeBox

FORMAT = 1
ENV_VAR = "ONNXSTUDIO_LAYOUT_CACHE"
DEFAULT_MAX_BYTES = 256 * 1024 * 1024


def default_cache_dir() -> pathlib.Path:
    explicit = os.environ.get(ENV_VAR)
    if explicit:
        return pathlib.Path(explicit)
    if os.name == "nt":
        base = pathlib.Path(os.environ.get("LOCALAPPDATA", pathlib.Path.home() / "AppData" / "Local"))
    else:
        base = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache"))
    return base / "onnxstudio" / "layout"


# Piece layouts recently read or written, kept in memory too: after an edit
# every unchanged piece is looked up again, and reading ~150 JSON files costs
# more than the edited piece's own layout. Bounded by boxes held; whole-model
# results (thousands of boxes each) are not kept here.
MEMORY_BOXES = 200_000
MEMORY_MAX_ENTRY = 2_000
# (directory, key) -> (file's (mtime_ns, size) when read or written, layout):
# a file changed or removed since (another process, a test) is read again.
_memory: "OrderedDict[tuple[str, str], tuple[tuple, Layout]]" = OrderedDict()
_memory_boxes = 0
_memory_lock = threading.Lock()


def _stamp(path: pathlib.Path):
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _remember(where: str, key: str, stamp, layout: Layout) -> None:
    global _memory_boxes
    size = len(layout.nodes)
    if size > MEMORY_MAX_ENTRY or stamp is None:
        return
    with _memory_lock:
        old = _memory.pop((where, key), None)
        if old is not None:
            _memory_boxes -= len(old[1].nodes)
        _memory[(where, key)] = (stamp, layout)
        _memory_boxes += size
        while _memory_boxes > MEMORY_BOXES and _memory:
            _, (_, dropped) = _memory.popitem(last=False)
            _memory_boxes -= len(dropped.nodes)


def _recall(where: str, key: str, stamp) -> Layout | None:
    with _memory_lock:
        entry = _memory.get((where, key))
        if entry is None or stamp is None or entry[0] != stamp:
            return None
        _memory.move_to_end((where, key))
        return entry[1]


class LayoutCache:
    """Results are shared between callers: treat them as read-only."""

    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = pathlib.Path(directory) if directory is not None else default_cache_dir()

    def _file(self, key: str) -> pathlib.Path:
        # Two-level fan-out keeps directories small with many cached pieces.
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Layout | None:
        where, path = str(self.directory), self._file(key)
        stamp = _stamp(path)
        hit = _recall(where, key, stamp)
        if hit is not None:
            return hit
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            layout = from_json(data)
        except (KeyError, TypeError, ValueError):
            return None
        _remember(where, key, stamp, layout)
        return layout

    def put(self, key: str, layout: Layout) -> None:
        """Store; failures (read-only disk, full disk) only cost a re-layout later."""
        target = self._file(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=target.parent)
            try:
                # dumps (C encoder) then one write: json.dump streams through
                # the pure-Python encoder and is ~10x slower on big layouts.
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(json.dumps(to_json(layout), separators=(",", ":")))
                os.replace(tmp, target)
                _remember(str(self.directory), key, _stamp(target), dataclasses.replace(layout, from_cache=True))
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            pass


    def prune(self, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
        """Delete the least recently written files until the cache fits in
        max_bytes; returns how many were deleted.  Cheap enough to call from a
        background thread at start-up."""
        entries = []
        for path in self.directory.glob("*/*.json"):
            try:
                st = path.stat()
            except OSError:
                continue
            entries.append((st.st_mtime, st.st_size, path))
        total = sum(size for _, size, _ in entries)
        removed = 0
        for _, size, path in sorted(entries):
            if total <= max_bytes:
                break
            try:
                path.unlink()
            except OSError:
                continue
            total -= size
            removed += 1
        return removed


def to_json(layout: Layout) -> dict:
    return {
        "format": FORMAT,
        "engine": layout.engine,
        "warnings": layout.warnings,
        "size": [layout.width, layout.height],
        "nodes": [[b.id, b.x, b.y, b.width, b.height] for b in layout.nodes.values()],
        "edges": [[e.id, e.source, e.target, [c for p in e.points for c in p]]
                  for e in layout.edges.values()],
        "groups": [[list(g.path), g.x, g.y, g.width, g.height] for g in layout.groups.values()],
    }


def from_json(data: dict) -> Layout:
    nodes = {r[0]: NodeBox(r[0], r[1], r[2], r[3], r[4]) for r in data["nodes"]}
    edges = {}
    for eid, src, tgt, flat in data["edges"]:
        edges[eid] = EdgePath(eid, src, tgt, tuple(zip(flat[0::2], flat[1::2])))
    groups = {}
    for path, x, y, w, h in data["groups"]:
        groups[tuple(path)] = GroupBox(tuple(path), x, y, w, h)
    width, height = data["size"]
    return Layout(nodes, edges, groups, width, height, data.get("engine", ""),
                  list(data.get("warnings", [])), from_cache=True)
