"""Lossless load/save on the ONNX backend test data and the shared models."""
import onnx
import pytest
from onnx import numpy_helper

import backend_data
from same_bits import same_bits
from shared_models import shared_model_dirs
from onnxstudio import core
from onnxstudio.core.serde.convert import model_to_proto


def _as_onnx(model: core.Model) -> onnx.ModelProto:
    out = onnx.ModelProto()
    out.ParseFromString(model_to_proto(model).SerializeToString())
    return out


def _tensors(proto_graph):
    """Every TensorProto of a graph: initializers and tensor attributes, recursively."""
    for t in proto_graph.initializer:
        yield t
    for n in proto_graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.TENSOR:
                yield a.t
            for t in a.tensors:
                yield t
            if a.type == onnx.AttributeProto.GRAPH:
                yield from _tensors(a.g)
            for g in a.graphs:
                yield from _tensors(g)


def _our_tensors(graph):
    for v in graph.initializers.values():
        yield v.const
    for n in graph.nodes:
        for a in n.attributes.values():
            if isinstance(a.value, core.Tensor):
                yield a.value
            elif isinstance(a.value, list):
                yield from (x for x in a.value if isinstance(x, core.Tensor))
            if a.type == core.AttrType.GRAPH:
                yield from _our_tensors(a.value)
            elif a.type == core.AttrType.GRAPHS:
                for g in a.value:
                    yield from _our_tensors(g)


def _model_paths():
    cases = backend_data.all_cases()
    return [c.model_path for c in cases] + [d / "model.onnx" for d in shared_model_dirs()]


@pytest.mark.slow
def test_every_model_round_trips(tmp_path):
    paths = _model_paths()
    assert len(paths) > 2000
    failures = []
    for i, path in enumerate(paths):
        original = onnx.load(path, load_external_data=False)
        model = core.load(path)
        if _as_onnx(model) != original:
            failures.append(f"{path}: converted message differs")
            continue
        ours = list(_our_tensors(model.graph))
        theirs = list(_tensors(original.graph))
        if len(ours) != len(theirs):
            failures.append(f"{path}: {len(ours)} tensors decoded, expected {len(theirs)}")
            continue
        for mine, ref in zip(ours, theirs):
            try:
                expected = numpy_helper.to_array(ref)
            except Exception:  # noqa: BLE001  (the oracle cannot decode it either)
                continue
            if not same_bits(expected, mine.numpy()):
                failures.append(f"{path}: tensor {ref.name!r} decodes differently")
                break
        if i % 50 == 0 or "shared" in str(path):
            out = tmp_path / f"m{i}.onnx"
            core.save(model, out)
            if onnx.load(out, load_external_data=False) != original:
                failures.append(f"{path}: the saved file differs from the original")
    assert not failures, "\n".join(failures[:20])


@pytest.mark.parametrize("cli", [False, True])
def test_convert_writes_a_file_that_reloads_equal(shared_model_dir, tmp_path, cli):
    src = shared_model_dir / "model.onnx"
    dst = tmp_path / "copy.onnx"
    if cli:
        from onnxstudio.__main__ import main
        assert main(["convert", str(src), str(dst)]) == 0
    else:
        core.save(core.load(src), dst)
    assert onnx.load(dst) == onnx.load(src)
    assert _as_onnx(core.load(dst)) == onnx.load(src)
