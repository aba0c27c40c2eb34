"""Making an intermediate value a graph output declares its type: a file
whose output has no type is refused by onnx's checker (and by ours, as
graph.io-type-missing). Found on real exports (bert, gpt2, kv_decoder,
whisper): 'Make X a Graph Output' on a value without value_info saved a
file onnx.checker refused."""
import onnx
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.check import errors
from onnxstudio.core.edits import AddGraphOutput, from_script, typed_output

from .models import check_roundtrip


def _model() -> core.Model:
    # x -> Relu -> r (no value_info) -> Flatten -> f -> Abs -> y;
    # r's shape follows x's symbolic "N" and a size inference must make up.
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Flatten", ["r"], ["f"], name="flat", axis=1),
             helper.make_node("Abs", ["f"], ["y"], name="abs")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, "W"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", None])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)
    return core.load_bytes(m.SerializeToString())


def _saved(doc, tmp_path, name):
    path = tmp_path / name
    doc.save(path)
    return path


def test_typed_output_declares_the_inferred_type_and_the_file_passes_onnx(tmp_path):
    doc = core.Document(_model())
    r = doc.model.graph.get_value("r")
    assert r.type is None
    doc.apply(typed_output(r, doc.type_of(r)))
    path = _saved(doc, tmp_path, "out.onnx")
    onnx.checker.check_model(str(path), full_check=True)
    out = onnx.load(str(path)).graph.output[-1]
    assert out.name == "r"
    assert out.type.tensor_type.elem_type == TensorProto.FLOAT
    dims = [d.dim_param or d.dim_value for d in out.type.tensor_type.shape.dim]
    assert dims == ["N", 3, "W"]
    assert not [d for d in errors(core.check(core.load(path))) if d.code == "graph.io-type-missing"]


def test_a_size_inference_made_up_is_written_unknown(tmp_path):
    doc = core.Document(_model())
    f = doc.model.graph.get_value("f")
    doc.apply(typed_output(f, doc.type_of(f)))
    path = _saved(doc, tmp_path, "out.onnx")
    onnx.checker.check_model(str(path), full_check=True)
    dims = onnx.load(str(path)).graph.output[-1].type.tensor_type.shape.dim
    assert dims[0].dim_param == "N"
    # 3*W has no name in the file: inference's own name for it must not leak
    assert not dims[1].dim_param.startswith("?")


def test_a_declared_type_is_kept(tmp_path):
    m = _model()
    doc = core.Document(m)
    x_type = doc.model.graph.get_value("x").type
    edit = typed_output(doc.model.graph.get_value("x"), None)
    assert (edit.elem_type, edit.shape) == (None, None)
    doc.apply(edit)
    assert doc.model.graph.get_value("x").type == x_type


def test_undo_gives_back_the_file_and_the_edit_replays_from_a_script():
    m = _model()
    r = m.graph.get_value("r")
    doc = core.Document(m)
    edit = typed_output(r, doc.type_of(r))
    assert isinstance(edit, AddGraphOutput) and edit.elem_type == TensorProto.FLOAT
    check_roundtrip(m, edit, end_original=True)
    assert m.graph.get_value("r").type is None          # undone: no type left behind
    again = from_script(doc.script() + [{"kind": "add_graph_output", "name": "r", "elem_type": 1,
                                         "shape": ["N", 3, "W"]}])
    other = core.Document(_model())
    for e in again:
        other.apply(e)
    assert other.model.graph.outputs[-1].type == edit_type(edit)


def edit_type(edit):
    from onnxstudio.core import TensorType
    return TensorType(edit.elem_type, tuple(edit.shape))
