"""Opening time: onnxstudio.core.load against onnx.load, same machine, one run.

    python benchmarks/load.py [MODEL.onnx ...]     (default: ../shared/models/*)

For each model: median of several opens for ours (file -> IR ready to use) and
for onnx.load (file -> ModelProto with external data loaded, its default), and
the ratio ours/onnx (< 1 means we are faster). Then models with 64 MB and
512 MB of external weights, to show that opening time does not grow with
weight bytes.
"""
from __future__ import annotations

import pathlib
import sys
import tempfile


from external_weights import external_model
from timing import interleaved_medians

REPO = pathlib.Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    import onnx

    from onnxstudio import core

    paths = [pathlib.Path(p) for p in argv] or sorted((REPO.parent / "shared" / "models").glob("*/model.onnx"))
    print("ours: core.load (graph IR built on first use); ours+IR: core.load and the IR built")
    print(f"{'model':32} {'ours ms':>9} {'ours+IR ms':>11} {'onnx.load ms':>13} {'ratio':>7} {'ratio+IR':>9}")
    for p in paths:
        core.load(p)
        onnx.load(p)
        repeat = 50 if p.stat().st_size < 50e6 else 9
        ours, full, theirs = interleaved_medians([lambda: core.load(p), lambda: core.load(p).graph,
                                            lambda: onnx.load(p)], repeat)
        name = p.parent.name if p.name == "model.onnx" else p.name
        print(f"{name:32} {ours * 1e3:9.2f} {full * 1e3:11.2f} {theirs * 1e3:13.2f} {ours / theirs:7.2f} "
              f"{full / theirs:9.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        print("\nexternal weights (open = load + first access to nothing):")
        for mb in (64, 512):
            p = external_model(folder, mb, model_name=f"ext{mb}.onnx", data_name=f"w{mb}.bin")
            ours, theirs = interleaved_medians([lambda: core.load(p), lambda: onnx.load(p)], 3)
            full = interleaved_medians([lambda: core.load(p).graph], 5)[0]
            print(f"{f'{mb} MB external':32} {ours * 1e3:9.2f} {full * 1e3:11.2f} {theirs * 1e3:13.2f} "
                  f"{ours / theirs:7.3f} {full / theirs:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
