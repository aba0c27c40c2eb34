"""How many inferred values have a full shape (every dim known: a number, a
symbol or an expression), per model, and how many are less precise than
onnx's own shape inference (which names each dim it cannot work out
`unk__N`; here such a fresh symbol counts as "known"). "As written" counts
what Inference.write stores, where our per-run `?N` names are unknown dims.

    python tools/shape_precision.py [--stripped] [MODEL.onnx ...]
        (default: ppocr_v4_det and silero_vad from the shared models)

With --stripped, value_info and graph output types are removed first, so
everything must be inferred from the graph inputs.

With --concrete, the graph inputs are first given the shapes of the sample
inputs in inputs.npz beside the model (set-shape, as a user would): then
every dim should be a number, and the line says how many values still have
one that is not (a size only data can tell: NonZero, TopK's k from data, an
If on an input's value).
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import warnings

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))


def _full(t) -> bool:
    shape = getattr(t, "shape", None)
    return shape is not None and all(d is not None for d in shape)


def _theirs(proto, strip: bool) -> dict:
    """name -> (rank known, full) from onnx's inference, or {} without onnx."""
    try:
        import onnx
        import onnx.shape_inference
    except ImportError:
        return {}
    if strip:
        del proto.graph.value_info[:]
        for o in proto.graph.output:
            o.ClearField("type")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            inferred = onnx.shape_inference.infer_shapes(proto, strict_mode=False, data_prop=True)
        except Exception:  # noqa: BLE001  (onnx fails in many ways; its verdict is simply missing)
            return {}
    out = {}

    def walk(g):
        for vi in list(g.value_info) + list(g.output):
            tt = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
            if tt is not None and tt.HasField("shape"):
                out[vi.name] = all(d.HasField("dim_value") or d.HasField("dim_param") for d in tt.shape.dim)
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    walk(a.g)
                for sub in a.graphs:
                    walk(sub)
    walk(inferred.graph)
    return out


def measure(path: pathlib.Path, strip: bool) -> tuple[int, int, int, int, int]:
    """(tensor values, full shapes ours, full shapes onnx, values where onnx
    is full and ours is not, full shapes ours as written)."""
    from onnxstudio import core
    from onnxstudio.core.infer import Inference
    from onnxstudio.core.infer.fresh import as_written
    from onnxstudio.core.ir.types import TensorType

    data = path.read_bytes()
    try:
        import onnx
        proto = onnx.ModelProto()
        proto.ParseFromString(data)
        theirs = _theirs(proto, strip)
        if strip:
            data = proto.SerializeToString()
    except ImportError:
        theirs = {}
    model = core.load_bytes(data, base_dir=str(path.parent))
    inf = Inference(model)
    inf.run()
    total = ours_full = their_full = worse = written_full = 0
    for g in model.graph.walk():
        for node in g.nodes:
            for v in node.outputs:
                if v is None:
                    continue
                t = inf.type_of(v)
                if not isinstance(t, TensorType):
                    continue
                total += 1
                full = _full(t)
                ours_full += full
                written_full += _full(as_written(t))
                tf = theirs.get(v.name, False)
                their_full += tf
                worse += tf and not full
    return total, ours_full, their_full, worse, written_full


def concrete(path: pathlib.Path) -> tuple[int, int]:
    """(tensor values, values with every dim a number) with the graph inputs
    set to the shapes of the sample inputs beside the model."""
    import numpy as np

    from onnxstudio import core
    from onnxstudio.core.edits import set_input_shape
    from onnxstudio.core.infer import Inference
    from onnxstudio.core.ir.types import TensorType

    model = core.load(path)
    inputs = {v.name for v in model.graph.inputs}
    for name, arr in np.load(path.parent / "inputs.npz", allow_pickle=True).items():
        if name in inputs:
            set_input_shape(model, name, list(arr.shape)).apply(model)
    inf = Inference(model)
    inf.run()
    total = numbers = 0
    for g in model.graph.walk():
        for node in g.nodes:
            for v in node.outputs:
                t = None if v is None else inf.type_of(v)
                if isinstance(t, TensorType):
                    total += 1
                    numbers += t.shape is not None and all(type(d) is int for d in t.shape)
    return total, numbers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("models", nargs="*", type=pathlib.Path)
    ap.add_argument("--stripped", action="store_true")
    ap.add_argument("--concrete", action="store_true")
    args = ap.parse_args(argv)
    paths = args.models
    if not paths:
        from shared_models import shared_models_root
        root = shared_models_root()
        paths = [root / "ppocr_v4_det" / "model.onnx", root / "silero_vad" / "model.onnx"]
    for p in paths:
        name = p.parent.name if p.name == "model.onnx" else p.stem
        if args.concrete:
            total, numbers = concrete(p)
            print(f"{name:24s} tensor values {total:5d}  with the sample's input shapes: every dim a number "
                  f"{numbers:5d} ({numbers / total:6.1%}), not {total - numbers}")
            continue
        total, ours, theirs, worse, written = measure(p, args.stripped)
        print(f"{name:24s} tensor values {total:5d}  full shape: ours {ours:5d} ({ours / total:6.1%})"
              f"  as written {written:5d} ({written / total:6.1%})"
              f"  onnx {theirs:5d} ({theirs / total:6.1%})  full in onnx but not ours: {worse}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
