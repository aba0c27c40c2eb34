"""Layouts kept on disk, keyed by a content hash of the (sub)graph and options.

One small JSON file per key.  Writers never clash: each writes a private
temporary file and renames it into place (atomic on every OS we support), so
two processes laying out the same model at once both end with a whole file.
A file that cannot be read is treated as a miss.
"""
from __future__ import annotations

import json
import os
import pathlib
import tempfile

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


class LayoutCache:
    def __init__(self, directory: str | os.PathLike | None = None):
        self.directory = pathlib.Path(directory) if directory is not None else default_cache_dir()

    def _file(self, key: str) -> pathlib.Path:
        # Two-level fan-out keeps directories small with many cached pieces.
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> Layout | None:
        try:
            data = json.loads(self._file(key).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return None
        try:
            return from_json(data)
        except (KeyError, TypeError, ValueError):
            return None

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
