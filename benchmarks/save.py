"""Saving a model with ~1 GB of external weights over its own file (Ctrl+S).

    python benchmarks/save.py [--megabytes N] [--rounds R]

The model (8 weights in one data file, a Cast at the end) is built in a
temporary folder, deleted at the end. Each round opens it afresh, edits
the Cast's attribute and saves it in place, three ways in turn (so machine
load hits them alike):

  rewrite   the data file written whole beside the old one and renamed
            over it, what every save did before appends (forced here by
            giving the writer no file to append to, its fallback path)
  append    the save as it is: the data file kept, nothing appended
  weight    one weight (1/8 of them, 128 MB of 1 GB) edited as well: appended

For each: the median time, the bytes written into data files and whether
the data file is still the same file (inode). The ratio is rewrite/append.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent


def _timed_save(path: pathlib.Path, round_no: int, edit_weight: bool, rewrite: bool) -> tuple[float, int, bool]:
    """Open, edit, save in place: (seconds, bytes written to data files, same data file)."""
    from onnxstudio import core
    from onnxstudio.core.edits import SetAttribute, SetInitializer
    from onnxstudio.core.ir import AttrType
    from onnxstudio.core.serde import io

    data = path.parent / "model.onnx.data"
    before = data.stat()
    doc = core.Document.open(path)
    doc.apply(SetAttribute("cast", "to", AttrType.INT, 11 if round_no % 2 else 1))    # DOUBLE / FLOAT
    if edit_weight:
        w = doc.model.graph.initializers["w0"].const
        doc.apply(SetInitializer("w0", np.full(w.shape, round_no, np.float32)))
    real = io._appendable_locations
    if rewrite:
        io._appendable_locations = lambda *args: {}
    try:
        t = time.perf_counter()
        doc.save()
        seconds = time.perf_counter() - t
    finally:
        io._appendable_locations = real
    after = data.stat()
    same = (after.st_ino, after.st_dev) == (before.st_ino, before.st_dev)
    written = after.st_size if not same else after.st_size - before.st_size
    return seconds, written, same


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO / "benchmarks"))
    ways = {"rewrite": (False, True), "append": (False, False), "weight": (True, False)}
    times = {k: [] for k in ways}
    facts = {}
    with tempfile.TemporaryDirectory() as tmp:
        from external_weights import external_model
        path = external_model(pathlib.Path(tmp), args.megabytes, model_name="model.onnx",
                              data_name="model.onnx.data", cast=True)
        size = (path.parent / "model.onnx.data").stat().st_size
        print(f"model: {size / 2**20:.0f} MB of external weights in one data file, 8 weights; "
              f"{args.rounds} rounds, each way in turn")
        for r in range(args.rounds):
            for name, (edit_weight, rewrite) in ways.items():
                seconds, written, same = _timed_save(path, r, edit_weight, rewrite)
                times[name].append(seconds)
                facts[name] = (written, same)
        print(f"{'save':10} {'median s':>9} {'min s':>7} {'MB written to data':>19} {'same data file':>15}")
        for name in ways:
            written, same = facts[name]
            print(f"{name:10} {statistics.median(times[name]):9.3f} {min(times[name]):7.3f} "
                  f"{written / 2**20:19.1f} {str(same):>15}")
        print(f"ratio rewrite/append (attribute edit): "
              f"{statistics.median(times['rewrite']) / statistics.median(times['append']):.0f}x")
        print(f"data file after the rounds: {(path.parent / 'model.onnx.data').stat().st_size / 2**20:.0f} MB "
              f"(grew by the edited weights appended)")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main(sys.argv[1:]))
