"""Every kind of edit on every shared model (real exports): applied, the
result loads again, undone to the original bytes (external weights and all),
redone to the edited bytes."""
import pytest

from onnxstudio import core
from onnxstudio.core.edits import (AddGraphOutput, AddValueInfo, SetAttribute, SetInitializer, SetMetadata,
                                   SetModelField, SetNodeField, SetOpsetImport, bypass_node, cleanup, graph_path,
                                   insert_on_edge, promote_initializer, rename_everywhere, set_input_shape)
from onnxstudio.core.edits.compound import stable_ref
from shared_models import shared_models_root

from .models import check_roundtrip

MODELS = ["bert_12layer_narrow", "bert_small", "ppocr_v4_det", "silero_vad", "skl_gbr", "skl_logreg_pipeline"]
UNARY = ("Relu", "Identity", "Cast", "Sigmoid", "Tanh", "Erf", "Sqrt", "Neg", "Softmax", "Transpose", "Unsqueeze")


def _edits(m):
    """(label, edit) for one model, chosen from what it holds."""
    g = m.graph
    out = []
    n0 = next((n for n in g.nodes if n.attributes), g.nodes[0])
    for a in list(n0.attributes.values())[:2]:
        if not a.ref_attr_name:
            # The same value through the editor: a new Attr written as the old one.
            out.append(("set attribute (same value)", SetAttribute(stable_ref(n0), a.name, a.type, a.value)))
            out.append(("remove attribute", SetAttribute(stable_ref(n0), a.name, None)))
    out.append(("node field", SetNodeField(stable_ref(n0), "name", "renamed_node")))
    first = g.inputs[0]
    out.append(("insert on edge", insert_on_edge(m, first.name, "Identity")))
    mid = next((v for n in g.nodes for v in n.outputs if v is not None and v.uses and not v.is_graph_output),
               g.nodes[0].outputs[0])
    out.append(("rename everywhere", rename_everywhere(m, mid.name, mid.name + "_renamed")))
    if not mid.is_graph_output:
        out.append(("add output", AddGraphOutput(mid.name)))
    if not any(v is mid for v in g.value_info):
        out.append(("add value_info", AddValueInfo(mid.name, 1, ["n", 1])))
    unary = next((n for n in g.nodes if n.op_type in UNARY and n.inputs and n.inputs[0] is not None), None)
    if unary is not None:
        out.append(("bypass", bypass_node(m, stable_ref(unary))))
    if getattr(first.type, "shape", None) is not None:
        dims = [d if isinstance(d, int) else 2 for d in first.type.shape]
        if dims and all(isinstance(d, int) for d in first.type.shape):
            dims[0] = "batch"
        out.append(("set input shape", set_input_shape(m, first.name, dims)))
    tidy = cleanup(m)
    if tidy.edits:
        out.append(("cleanup", tidy))
    if g.initializers:
        name, v = next(iter(g.initializers.items()))
        out.append(("promote initializer", promote_initializer(m, name)))
        out.append(("reshape initializer", SetInitializer(name, shape=[v.const.size])))
    out += [("model field", SetModelField("producer_name", "edited")), ("opset", SetOpsetImport("com.example", 1)),
            ("metadata", SetMetadata("k", "v"))]
    body = next((sub for sub in g.walk() if sub is not g and sub.nodes), None)
    if body is not None:
        out.append(("inside a body", SetNodeField(stable_ref(body.nodes[0]), "doc_string", "in", graph_path(body))))
    return out


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.slow
def test_every_edit_kind_round_trips_on_a_shared_model(name):
    path = shared_models_root() / name / "model.onnx"
    m = core.load(path)
    labels = []
    for label, edit in _edits(m):
        check_roundtrip(m, edit, same_bytes_ok=label.endswith("(same value)"), end_original=True)
        core.load(path)          # the source file is untouched
        labels.append(label)
    assert {"node field", "insert on edge", "rename everywhere", "model field"} <= set(labels)
