"""A run's inputs and values as one .npz file, as the app and `onnxstudio
run` write and read them (`--save-inputs`, `--save-values`, `--load-inputs`;
the Run menu's Save Inputs / Save Values / Load Inputs).

    written, left_out = save_npz(path, {name: array})   # atomic: beside, then renamed
    arrays = load_npz(path)                             # {name: array}; FeedError names the file

Each array is stored under its value's own name, whatever characters it
holds ("/m/encoder/Add_output_0", "x:0"): numpy keys an .npz by the text
before ".npy" of each member, so names come back as they went in. Only
main-graph values are written (a body's values exist per iteration and
are not kept by name). What an .npz cannot hold without pickling, which
reading never allows, is left out and named: sequences, maps, absent
optionals, and element types numpy does not know (bfloat16 and the float8
types of ml_dtypes). Strings are stored as numpy unicode arrays.
"""
from __future__ import annotations

import pathlib
import zipfile

import numpy as np

from ..whole_file import whole_file
from .errors import FeedError
from .feeds import read_array_file


def storable(value):
    """`value` as an array an .npz holds without pickling, or None."""
    if not isinstance(value, np.ndarray):
        if isinstance(value, np.generic):
            value = np.asarray(value)
        else:
            return None
    if value.dtype == object:
        try:
            return value.astype(np.str_)
        except (TypeError, ValueError):
            return None
    if value.dtype.kind == "V" or value.dtype.type.__module__.startswith("ml_dtypes"):
        return None
    return value


def save_npz(path, arrays: dict) -> tuple[list, list]:
    """Write `arrays` ({name: value}) to the .npz at `path` atomically: into a
    temporary file in the same folder, then renamed over `path`, so a failed
    write never leaves half a file. Returns (names written, names left out
    because an .npz cannot hold them). OSError when the folder cannot be
    written."""
    path = pathlib.Path(path)
    kept, left_out = {}, []
    for name, value in arrays.items():
        array = storable(value)
        if array is None:
            left_out.append(name)
        else:
            kept[name] = array
    with whole_file(path, "wb") as f:
        # Written member by member (np.savez takes names as keyword arguments, so a
        # value called "file" would clash); the member format is np.save's.
        with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
            for name, array in kept.items():
                with z.open(name + ".npy", "w", force_zip64=True) as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    return list(kept), left_out


def load_npz(path) -> dict:
    """{name: array} of the .npz at `path`; FeedError names the file when it
    is not one or cannot be read."""
    if not str(path).lower().endswith(".npz"):
        raise FeedError(f"{path}: not an .npz file (save inputs with --save-inputs or the Run menu's Save Inputs)")
    return read_array_file(path)


__all__ = ["save_npz", "load_npz", "storable"]
