"""`onnxstudio set-shape` leaves the dim names an exporter wrote
(`LayerNormalization399_dim_1`) where the change does not reach them, so a
round trip (a size, then the name back) gives them back; a name it does
replace is said on screen, with what it became."""
import onnx
import pytest
from onnx import TensorProto, helper

from onnxstudio.cli import main

# Runs the CLI (in this process, but as the slow CLI tests do).
pytestmark = pytest.mark.slow


def _exported(path):
    """x [batch, seq, 4] -> Relu -> r -> Neg -> y, r and y declared with
    names of the exporter's own, as torch's exporter writes them."""
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"), helper.make_node("Neg", ["r"], ["y"], name="neg")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["Neg7_dim_0", "Neg7_dim_1", 4])],
        value_info=[helper.make_tensor_value_info("r", TensorProto.FLOAT, ["Relu3_dim_0", "Relu3_dim_1", 4])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def _dims(path):
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    return {vi.name: [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
            for vi in list(m.graph.input) + list(m.graph.value_info) + list(m.graph.output)}


def _set_shape(capsys, src, out, dims):
    code = main(["set-shape", str(src), "-o", str(out), "--input", f"x={dims}"])
    text, err = capsys.readouterr()
    assert code == 0, err
    return text


def test_a_round_trip_through_a_size_gives_the_untouched_names_back(tmp_path, capsys):
    src, fixed, back = tmp_path / "m.onnx", tmp_path / "fixed.onnx", tmp_path / "back.onnx"
    _exported(src)
    text = _set_shape(capsys, src, fixed, "2,seq,4")
    assert _dims(fixed) == {"x": [2, "seq", 4], "r": [2, "Relu3_dim_1", 4], "y": [2, "Neg7_dim_1", 4]}
    assert "dim names replaced in the declarations: r[0] Relu3_dim_0 -> 2, y[0] Neg7_dim_0 -> 2\n" in text, text
    text = _set_shape(capsys, fixed, back, "batch,seq,4")
    assert _dims(back) == {"x": ["batch", "seq", 4], "r": ["batch", "Relu3_dim_1", 4],
                           "y": ["batch", "Neg7_dim_1", 4]}
    assert "dim names replaced" not in text          # only numbers were replaced


def test_a_name_given_anew_replaces_the_exporters_and_says_so(tmp_path, capsys):
    src, out = tmp_path / "m.onnx", tmp_path / "out.onnx"
    _exported(src)
    text = _set_shape(capsys, src, out, "n,m,4")
    assert _dims(out) == {"x": ["n", "m", 4], "r": ["n", "m", 4], "y": ["n", "m", 4]}
    assert ("dim names replaced in the declarations: r[0] Relu3_dim_0 -> n, r[1] Relu3_dim_1 -> m, "
            "y[0] Neg7_dim_0 -> n, y[1] Neg7_dim_1 -> m\n") in text, text
