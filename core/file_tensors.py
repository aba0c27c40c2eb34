"""Weights a model file on disk still holds, named in a recovery file
instead of written into it.

An undo past a save puts back the weight the step replaced. Its values go
into the recovery file (core/recovery.py) unless a file on disk holds that
very tensor: the file the model was opened from, when the save went to
another path (Save As), or the saved file itself. Then the recovery file
says where to read it:

    {"$file_tensor": {"path": "/abs/model.onnx", "name": "w", "model": <file_identity>,
                      "data": {"location": "model.onnx.data", "size": ..., "mtime_ns": ...}}}

A tensor is known to be in a file by identity: the tensor objects of the
main graph's initializers when the file was opened or saved (a tensor never
changes; an edit replaces it). A file written over (saved to its own path)
no longer holds the tensors noted for it. Recovering reads the tensor from
the file again, and refuses when the model file or its data file changed
since (size, modification time, the head's hash), naming the file.
"""
from __future__ import annotations

import hashlib
import os
import pathlib
from typing import Optional

from .errors import CoreError

TAG = "$file_tensor"
HEAD_BYTES = 64 * 1024


def file_identity(path) -> dict | None:
    """Size, mtime and a hash of the head of `path`; None if it cannot be read.
    What tells a file unchanged since: here for the tensors named in it, and
    for recovery.py's model file (which imports it from here)."""
    path = pathlib.Path(path)
    try:
        st = path.stat()
        with open(path, "rb") as f:
            head = hashlib.sha256(f.read(HEAD_BYTES)).hexdigest()
    except OSError:
        return None
    return {"path": str(path.resolve()), "size": st.st_size, "mtime_ns": st.st_mtime_ns, "head": head}


class FileChanged(CoreError):
    """The file a recovery step reads a weight from is no longer as it was."""


class FileTensors:
    """Which tensors of a document files on disk hold, by id."""

    def __init__(self):
        # id(tensor) -> (tensor, path, initializer name, the data file holding it there or None)
        self.where: dict[int, tuple] = {}
        self.identity: dict[str, dict] = {}    # path -> file_identity when noted

    def note(self, model, path) -> None:
        """`path` was just read or written from `model`: it holds the main
        graph's initializers as the model has them now, and none of what was
        noted for it before."""
        from .ir import Tensor
        if path is None:
            return
        identity = file_identity(path)
        key = str(pathlib.Path(path).resolve())
        self.where = {k: v for k, v in self.where.items() if v[1] != key}
        self.identity.pop(key, None)
        if identity is None:
            return
        self.identity[key] = identity
        for name, v in model.graph.initializers.items():
            if isinstance(v.const, Tensor):
                self.where[id(v.const)] = (v.const, key, name, _data_location(model, v.const, key))

    def reference(self, tensor) -> Optional[dict]:
        """The reference to `tensor` in a file still as it was noted, or None."""
        hit = self.where.get(id(tensor)) if tensor is not None else None
        if hit is None or hit[0] is not tensor:
            return None
        _, key, name, location = hit
        noted = self.identity.get(key)
        if noted is None or file_identity(key) != noted:
            return None
        data = None
        if location is not None:
            data = _data_identity(pathlib.Path(key).parent, location)
            if data is None:
                return None
        body = {"path": key, "name": name, "model": noted}
        if data is not None:
            body["data"] = data
        return {TAG: body}


def _data_location(model, tensor, key: str) -> Optional[str]:
    """The data file the file at `key` reads `tensor` from, or None (held
    in the model file): its own reference when it was read from one; for
    an edited weight (held in memory) that a save in place appended to a
    data file, that file (serde's ExternalFiles.appended). Its size and
    modification time then tell it unchanged, as for a weight read from it."""
    if tensor.is_external:
        return tensor.external.location
    files = model.external_files
    written = files.appended.get(id(tensor)) if files is not None else None
    if written is None or written[0] is not tensor or model.path is None:
        return None
    try:
        return written[1].location if str(pathlib.Path(model.path).resolve()) == key else None
    except OSError:
        return None


def _data_identity(folder: pathlib.Path, location: str) -> Optional[dict]:
    """Size and modification time of the data file `location` in `folder`."""
    try:
        st = os.stat(folder / location)
    except OSError:
        return None
    return {"location": location, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


class Resolver:
    """Reads the tensors a recovery file names, each file loaded once."""

    def __init__(self):
        self.models: dict[str, object] = {}

    def resolve(self, data):
        """`data` (a step's JSON) with every file reference replaced by the
        tensor it names; FileChanged naming the file when it changed since
        (LoadError when it cannot be read)."""
        if isinstance(data, list):
            return [self.resolve(x) for x in data]
        if not isinstance(data, dict):
            return data
        if len(data) == 1 and TAG in data:
            return self._tensor(data[TAG])
        return {k: self.resolve(v) for k, v in data.items()}

    def _tensor(self, ref: dict):
        from .ir import Tensor
        from .serde.io import load
        path, name = ref["path"], ref["name"]
        what = f"the old values of initializer {name!r} were to be read from {path}"
        if file_identity(path) != ref["model"]:
            raise FileChanged(f"{what}, which was changed since (or is gone)")
        data = ref.get("data")
        if data is not None and _data_identity(pathlib.Path(path).parent, data["location"]) != data:
            raise FileChanged(f"{what}; its data file {data['location']!r} was changed since (or is gone)")
        model = self.models.get(path)
        if model is None:
            model = self.models[path] = load(path)
        v = model.graph.initializers.get(name)
        if v is None or not isinstance(v.const, Tensor):
            raise FileChanged(f"{what}, which holds no such initializer")
        return v.const

