"""`onnxstudio cleanup` leaves nothing its own checker reports as unused:
value_info of removed values, of names nothing defines, and of an outer
value listed in a body all go. The cleaned model computes what the original
did, whatever the file's node order."""
import json
import shutil

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnxstudio.cli import main

from shared_models import shared_models_root

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _vi(name, elem=TensorProto.FLOAT, shape=(4,)):
    return helper.make_tensor_value_info(name, elem, list(shape))


def _body(nodes, out, vis=()):
    return helper.make_graph(nodes, "body", [], [_vi(out)], value_info=[_vi(v) for v in vis])


def _model(nodes, vis, inputs=("x",)):
    g = helper.make_graph(nodes, "g", [_vi(i) for i in inputs] + [_vi("cond", TensorProto.BOOL, ())],
                          [_vi("y")], value_info=[_vi(v) for v in vis])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _unused_value_info(capsys, path):
    code, out, err = _cli(capsys, "check", path, "--json", "--severity", "info")
    assert "Traceback" not in err
    found = json.loads(out[:out.rindex("]") + 1])
    return [d["path"] for d in found if d["code"] == "graph.value-info-unused"]


def _ort(path, feeds):
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s.run(None, {i.name: feeds[i.name] for i in s.get_inputs()})


# Each model has value_info the cleaned graph defines no value for.
CASES = {
    # A dead branch that reads a name nothing defines, both with value_info.
    "dead branch reading a ghost": _model(
        [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Neg", ["ghost"], ["d1"]),
         helper.make_node("Exp", ["d1"], ["d2"])], ["ghost", "d1", "d2"]),
    "value_info of a name nothing defines": _model([helper.make_node("Relu", ["x"], ["y"])], ["ghost"]),
    # value_info inside a branch for a value of the main graph.
    "outer value listed in a body": _model(
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("If", ["cond"], ["y"], then_branch=_body([helper.make_node("Neg", ["r"], ["t"])], "t", ["r"]),
                          else_branch=_body([helper.make_node("Abs", ["r"], ["e"]),
                                             helper.make_node("Exp", ["r"], ["dead"])], "e", ["dead"]))], ["r"]),
    # Written out of order: the producer of what y needs comes last, and a
    # dead chain is listed reader first.
    "nodes out of order": _model(
        [helper.make_node("Exp", ["a"], ["y"]), helper.make_node("Sin", ["d1"], ["d2"]),
         helper.make_node("Neg", ["x"], ["d1"]), helper.make_node("Relu", ["x"], ["a"])], ["a", "d1", "d2"]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_cleanup_leaves_no_value_info_the_checker_calls_unused(tmp_path, capsys, case):
    src, out = tmp_path / "m.onnx", tmp_path / "clean.onnx"
    onnx.save(CASES[case], src)
    code, text, err = _cli(capsys, "cleanup", src, "-o", out)
    assert code == 0, err
    assert _unused_value_info(capsys, out) == []
    cleaned = onnx.load(out)
    kept = {vi.name for g in [cleaned.graph] + [a.g for n in cleaned.graph.node for a in n.attribute if a.g.name]
            for vi in g.value_info}
    assert kept <= {"a", "r"}, kept
    if case == "nodes out of order":      # onnxruntime refuses to load an unsorted graph
        assert [n.op_type for n in cleaned.graph.node] == ["Exp", "Relu"]   # only the dead chain went
        return
    x = np.array([-2.0, -1.0, 0.5, 3.0], np.float32)
    for cond in (True, False):
        want = np.maximum(x, 0)
        if case == "outer value listed in a body":
            want = -want if cond else np.abs(want)
        np.testing.assert_array_equal(_ort(out, {"x": x, "cond": np.array(cond)})[0], want)


def test_cleanup_on_a_shared_model_with_stale_value_info(tmp_path, capsys):
    """silero_vad (If bodies) with value_info added for a dead branch, for a
    name nothing defines and, in a body, for a main-graph value."""
    src_dir = shared_models_root() / "silero_vad"
    copy = tmp_path / "silero.onnx"
    shutil.copyfile(src_dir / "model.onnx", copy)
    m = onnx.load(copy)
    g = m.graph
    first = g.input[0].name
    g.node.extend([helper.make_node("Neg", [first], ["dead_1"]), helper.make_node("Abs", ["dead_1"], ["dead_2"])])
    g.value_info.extend([_vi("dead_1", shape=()), _vi("dead_2", shape=()), _vi("ghost")])
    body = next(a.g for n in g.node if n.op_type == "If" for a in n.attribute if a.name == "then_branch")
    body.value_info.append(_vi(first, shape=()))
    onnx.save(m, copy)
    assert len(_unused_value_info(capsys, copy)) == 2           # ghost, and the outer value in the body
    out = tmp_path / "clean.onnx"
    code, text, err = _cli(capsys, "cleanup", copy, "-o", out)
    assert code == 0, err
    assert "removed 2 nodes, 0 initializers, 4 value_info entries" in text
    assert _unused_value_info(capsys, out) == []
    feeds = dict(np.load(src_dir / "inputs.npz"))
    expected = np.load(src_dir / "expected_outputs.npz")
    for name, got in zip(["output", "stateN"], _ort(out, feeds)):
        np.testing.assert_allclose(got, expected[name], rtol=1e-5, atol=1e-6)
