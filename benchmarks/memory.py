"""Resident memory after opening a model and reading its diagnostics.

    python benchmarks/memory.py [MODEL]     (default: bert_small from /work/shared/models)

Prints the process's resident set size (from /proc/self/statm) at start
(after importing the app's core), after `Document.open`, and after
`doc.diagnostics` (inference and the checker), against the bytes of
weights the file holds. The target (issue 21): after diagnostics, at most
1.3 x the weights plus the fixed overhead measured at start. A model is
loaded zero-copy (weights stay in the mapped file until used), so the
weights count in full only once something pages them in. On glibc, the
last line is the resident memory once freed memory went back to the
system (malloc_trim): what the open model, inference and the checker keep.
"""
from __future__ import annotations

import os
import pathlib
import sys

_PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * _PAGE / 2 ** 20


def weights_mb(model) -> float:
    total = 0
    for g in model.graphs():
        for v in g.initializers.values():
            total += v.const.nbytes
        for n in g.nodes:
            for a in n.attributes.values():
                if hasattr(a.value, "nbytes") and hasattr(a.value, "dtype"):
                    total += a.value.nbytes
    return total / 2 ** 20


def main() -> None:
    default = pathlib.Path("/work/shared/models/bert_small/model.onnx")
    path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else default
    from onnxstudio.core.document import Document  # noqa: PLC0415
    import onnxstudio.core.check  # noqa: F401,PLC0415 - the imports count as fixed overhead
    import onnxstudio.core.infer  # noqa: F401,PLC0415
    start = rss_mb()
    doc = Document.open(path)
    opened = rss_mb()
    found = doc.diagnostics
    after = rss_mb()
    weights = weights_mb(doc.model)
    file_mb = path.stat().st_size / 2 ** 20
    print(f"{path.parent.name}: file {file_mb:.1f} MB, weights {weights:.1f} MB, {len(found)} diagnostics")
    print(f"  RSS at start (imports: the fixed overhead) {start:7.1f} MB")
    print(f"  after Document.open                        {opened:7.1f} MB  (+{opened - start:.1f})")
    print(f"  after doc.diagnostics                      {after:7.1f} MB  (+{after - start:.1f})")
    budget = start + 1.3 * weights
    print(f"  growth / weights {(after - start) / weights:.2f}x; budget 1.3 x weights + start = {budget:.1f} MB: "
          f"{'within' if after <= budget else 'OVER'}")
    kept = _after_trim()
    if kept is not None:
        # What the process keeps once freed memory goes back to the system:
        # a full check's file form is written and let go, so the peak above
        # says little about what the checker holds.
        print(f"  after returning freed memory (malloc_trim)  {kept:7.1f} MB  (+{kept - start:.1f})")


def _after_trim():
    import ctypes  # noqa: PLC0415
    import gc  # noqa: PLC0415
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        return None     # not glibc
    return rss_mb()


if __name__ == "__main__":
    main()
