"""Random edit sequences through a Document: after every step the incremental
diagnostics and inferred types equal a fresh Analysis of the same model;
undoing everything gives the original bytes back, redoing everything the
edited ones (and the analysis stays equal to a fresh one throughout).

The CI run is a fixed-seed sample (derandomize=True). For a long run:

    ONNXSTUDIO_RANDOM_EDITS=500 pytest -q -p no:cacheprovider tests/edits/test_random_edits.py

(examples per model; the examples then vary from run to run, unless
ONNXSTUDIO_RANDOM_EDITS_SEEDED=1 keeps them fixed). A failure names the edit
steps and hypothesis prints each draw.
"""
from __future__ import annotations

import os
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from backend_data import all_cases
from onnxstudio import core
from onnxstudio.core import edits
from onnxstudio.core.analysis import Analysis
from onnxstudio.core.document import Document
from onnxstudio.core.edits import EditError
from onnxstudio.core.ir import AttrType
from check.kept_objects import file_form_messages
from shared_models import shared_model_dirs

from .models import chain_model

# Long property runs: random edit sequences on real models.
pytestmark = pytest.mark.slow

LONG = int(os.environ.get("ONNXSTUDIO_RANDOM_EDITS", "0"))
EXAMPLES = LONG or 4
STEPS = 6
SETTINGS = settings(max_examples=EXAMPLES,
                    derandomize=not LONG or bool(os.environ.get("ONNXSTUDIO_RANDOM_EDITS_SEEDED")),
                    deadline=None, database=None, phases=(Phase.explicit, Phase.generate),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Backend models with subgraphs, functions-like expansions, sequences and plain ops.
BACKEND = ["test_if", "test_loop11", "test_scan9_sum", "test_lstm_defaults", "test_softmax_axis_0_expanded",
           "test_range_float_type_positive_delta_expanded", "test_gemm_default_single_elem_vector_bias",
           "test_sequence_map_add_2_sequences"]


def _sources():
    out = [pytest.param(("shared", d), id=d.name) for d in shared_model_dirs()]
    cases = {c.name: c for c in all_cases(kinds=("node",))}
    for name in BACKEND:
        if name in cases:
            out.append(pytest.param(("backend", cases[name].model_path), id=name))
    out.append(pytest.param(("chain", None), id="chain_with_function"))
    out.append(pytest.param(("nested", None), id="nested_functions"))
    return out


def _nested_functions_model() -> bytes:
    """Main calls Outer, directly and in an If branch; Outer's body calls
    Inner, which transposes (so a rewire or an edit there moves shapes)."""
    from onnx import TensorProto, helper
    opsets = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]
    inner = helper.make_function("local", "Inner", ["x"], ["y"],
                                 [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0], name="inner_t"),
                                  helper.make_node("Relu", ["t"], ["y"], name="inner_relu")], opsets)
    outer = helper.make_function("local", "Outer", ["u"], ["w"],
                                 [helper.make_node("Inner", ["u"], ["v"], domain="local", name="outer_call"),
                                  helper.make_node("Abs", ["v"], ["w"], name="outer_abs")], opsets)
    then_g = helper.make_graph([helper.make_node("Outer", ["o"], ["t2"], domain="local", name="branch_call")],
                               "then", [], [helper.make_tensor_value_info("t2", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="branch_neg")], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Outer", ["x"], ["o"], domain="local", name="main_call"),
             helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
             helper.make_node("Shape", ["o"], ["o_shape"], name="reader")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
                                       helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, None),
                           helper.make_tensor_value_info("o_shape", TensorProto.INT64, None)])
    return helper.make_model(g, opset_imports=opsets, functions=[inner, outer], ir_version=10).SerializeToString()


_BYTES: dict = {}


def _load(source):
    kind, where = source
    key = (kind, str(where))
    if key not in _BYTES:
        if kind == "chain":
            _BYTES[key] = chain_model()
        elif kind == "nested":
            _BYTES[key] = _nested_functions_model()
        else:
            _BYTES[key] = (where / "model.onnx" if where.is_dir() else where).read_bytes()
    return core.load_bytes(_BYTES[key])


# -- comparing with a fresh analysis -------------------------------------------------------

_FRESH = re.compile(r"\?\d+")


def _types(analysis) -> list:
    """Every inferred type of every graph (function bodies too), in walk
    order, with the fresh dim names (?N, arbitrary per run by design)
    numbered by first appearance."""
    names: dict = {}

    def canon(m):
        return names.setdefault(m.group(0), f"?{len(names) + 1}")
    out = []
    graphs = list(analysis.model.graph.walk())
    for fn in analysis.model.functions.values():
        graphs.extend(fn.graph.walk())
    for g in graphs:
        for name, t in analysis.inference.types_in(g).items():
            out.append((g.path if g.parent_node is None else "sub", name, _FRESH.sub(canon, str(t))))
    return out


def _assert_like_fresh(doc, what: str) -> None:
    got = doc.diagnostics
    analysis = doc.analysis
    assert not file_form_messages(analysis.checker), f"{what}: the live checker kept a protobuf copy"
    fresh = Analysis(doc.model)
    assert got == fresh.diagnostics(), f"{what}: incremental diagnostics differ from a full check"
    assert _types(analysis) == _types(fresh), f"{what}: incremental inference differs from a full run"
    got_c = {v.name: str(c[2]) for v, c in analysis.inference.contradictions.items()
             if v.graph is doc.model.graph and doc.model.graph.get_value(v.name) is v}
    want_c = {v.name: str(c[2]) for v, c in fresh.inference.contradictions.items() if v.graph is doc.model.graph}
    assert got_c == want_c, f"{what}: declarations held against inference differ"


# -- random edits ---------------------------------------------------------------------------

def _graphs(model):
    # Subgraph bodies and model-local function bodies too.
    return list(model.graph.walk()) + [f.graph for f in model.functions.values()]


def _values_with_consumers(g):
    return [v for n in g.nodes for v in n.outputs if v is not None and v.consumers]


def _make_edit(model, draw, counter):
    """One random edit (or None when the kind has no target here)."""
    kinds = ["attribute", "insert", "bypass", "rename", "retype_output", "value_info", "input_shape",
             "graph_output", "initializer", "add_remove_node", "rewire", "model_field", "opset",
             "graph_input", "promote_demote", "reorder"]
    kind = draw(st.sampled_from(kinds))
    gs = _graphs(model)
    g = gs[0] if len(gs) == 1 or draw(st.integers(0, 3)) else draw(st.sampled_from(gs))
    path = edits.graph_path(g)
    ref = edits.node_ref
    n = next(counter)
    nodes = list(g.nodes)
    if kind == "attribute" and nodes:
        node = draw(st.sampled_from(nodes))
        return edits.SetAttribute(ref(node), f"rnd_{n % 3}", AttrType.INT, n, graph=path) if draw(st.booleans()) \
            else edits.SetNodeField(ref(node), "name", f"renamed_node_{n}", graph=path)
    if kind == "insert":
        values = _values_with_consumers(g)
        if values:
            v = draw(st.sampled_from(values))
            return edits.insert_on_edge(model, v.name, draw(st.sampled_from(["Identity", "Neg", "Relu"])), graph=path)
    if kind == "bypass":
        cands = [x for x in nodes if len(x.inputs) >= 1 and len(x.outputs) == 1 and x.outputs[0] is not None]
        if cands:
            return edits.bypass_node(model, ref(draw(st.sampled_from(cands))), graph=path)
    if kind == "rename" and g is model.graph:
        values = [v for x in nodes for v in x.outputs if v is not None]
        if values:
            v = draw(st.sampled_from(values))
            return edits.rename_everywhere(model, v.name, f"{v.name}_r{n}") if draw(st.booleans()) \
                else edits.RenameValue(v.name, f"{v.name}_q{n}")
    if kind == "retype_output" and g.outputs:
        v = draw(st.sampled_from(list(g.outputs)))
        shape = getattr(v.type, "shape", None)
        return edits.SetValueType(v.name, draw(st.sampled_from([1, 7, 10])),
                                  None if shape is None else [draw(st.sampled_from([1, 3, "s"])) for _ in shape],
                                  graph=path)
    if kind == "value_info":
        declared = list(g.value_info)
        if declared and draw(st.booleans()):
            return edits.RemoveValueInfo(draw(st.sampled_from(declared)).name, graph=path)
        values = [v for x in nodes for v in x.outputs if v is not None and v not in declared and not v.is_graph_output]
        if values:
            return edits.AddValueInfo(draw(st.sampled_from(values)).name, draw(st.sampled_from([1, 6, 7])),
                                      draw(st.sampled_from([None, [2], ["n", 3]])), graph=path)
    if kind == "input_shape" and model.graph.inputs:
        v = draw(st.sampled_from(list(model.graph.inputs)))
        shape = getattr(v.type, "shape", None)
        if shape:
            return edits.set_input_shape(model, v.name, [draw(st.sampled_from([d, 1, 2, "b"])) for d in shape])
    if kind == "graph_output":
        if len(g.outputs) > 1 and draw(st.booleans()):
            return edits.RemoveGraphOutput(draw(st.sampled_from(list(g.outputs))).name, graph=path)
        values = [v for x in nodes for v in x.outputs if v is not None and not v.is_graph_output]
        if values:
            return edits.AddGraphOutput(draw(st.sampled_from(values)).name, graph=path)
    if kind == "initializer":
        inits = list(g.initializers.values())
        choice = draw(st.integers(0, 2))
        if choice == 0 or not inits:
            return edits.AddInitializer(f"rnd_init_{n}", np.arange(3, dtype=np.float32), graph=path)
        v = draw(st.sampled_from(inits))
        arr = getattr(v.const, "shape", None)
        if choice == 1 and not v.consumers and not v.is_graph_input:
            return edits.RemoveInitializer(v.name, graph=path)
        if arr is not None and int(np.prod(arr or (1,))) <= 4096:
            data = np.asarray(v.const.numpy())
            return edits.SetInitializer(v.name, (data + 1).astype(data.dtype) if data.dtype.kind in "fiu" else data,
                                        graph=path)
    if kind == "add_remove_node":
        dead = [x for x in nodes if all(v is None or (not v.consumers and not v.is_graph_output) for v in x.outputs)]
        if dead and draw(st.booleans()):
            return edits.RemoveNode(ref(draw(st.sampled_from(dead))), graph=path)
        values = [v for x in nodes for v in x.outputs if v is not None] + list(g.inputs)
        if values:
            v = draw(st.sampled_from(values))
            return edits.AddNode(draw(st.sampled_from(["Relu", "Shape", "Cast", "NoSuchOp"])), [v.name],
                                 [f"added_{n}"], {"to": (AttrType.INT, 7)} if n % 2 else {}, f"added_node_{n}",
                                 graph=path)
    if kind == "rewire" and nodes:
        node = draw(st.sampled_from(nodes))
        if node.inputs:
            i = draw(st.integers(0, len(node.inputs) - 1))
            before = nodes[:node.index]
            values = [v for x in before for v in x.outputs if v is not None] + list(g.inputs)
            if values:
                return edits.SetNodeInput(ref(node), i, draw(st.sampled_from(values)).name, graph=path)
    if kind == "model_field":
        which = draw(st.integers(0, 2))
        if which == 0:
            return edits.SetModelField("producer_name", f"rnd{n}")
        if which == 1:
            return edits.SetGraphField("doc_string", f"doc {n}", graph=path)
        return edits.SetMetadata(f"k{n % 2}", None if n % 3 == 0 else f"v{n}")
    if kind == "graph_input":
        choice = draw(st.integers(0, 2))
        if choice == 0:
            return edits.AddGraphInput(f"rnd_in_{n}", 1, [draw(st.sampled_from([1, "b"])), 3],
                                       draw(st.sampled_from([None, 0])), graph=path)
        if choice == 1 and g.inputs:
            return edits.RemoveGraphInput(draw(st.sampled_from(list(g.inputs))).name, graph=path)
        if len(g.outputs) > 1:
            return edits.MoveGraphOutput(draw(st.sampled_from(list(g.outputs))).name, 0, graph=path)
    if kind == "promote_demote" and g is model.graph:
        inits = [v for v in g.initializers.values() if not v.is_graph_input]
        inputs = [v for v in g.inputs if v.const is not None]
        if inputs and draw(st.booleans()):
            return edits.demote_input(model, draw(st.sampled_from(inputs)).name)
        if inits:
            return edits.promote_initializer(model, draw(st.sampled_from(inits)).name)
    if kind == "reorder":
        return edits.toposort(model, graph=path) if draw(st.booleans()) else edits.cleanup(model)
    if kind == "opset" and draw(st.integers(0, 3)) == 0:
        current = model.opset_imports.get("", 0)
        if current:
            return edits.SetOpsetImport("", max(7, current - 1) if n % 2 else current)
    return None


def _counter():
    n = 0
    while True:
        n += 1
        yield n


@pytest.mark.parametrize("source", _sources())
@SETTINGS
@given(data=st.data())
def test_random_edits_stay_equal_to_a_full_analysis(source, data):
    model = _load(source)
    doc = Document(model)
    original = core.to_bytes(model)
    doc.diagnostics
    counter = _counter()
    applied = []
    for step in range(STEPS):
        try:
            # Compound edits look at the model when they are built, and may
            # refuse then; primitives refuse when applied.
            edit = _make_edit(model, data.draw, counter)
            if edit is None:
                continue
            doc.apply(edit)
        except EditError:
            continue            # refused: nothing changed (the edit tests check that)
        applied.append(edit.describe())
        _assert_like_fresh(doc, f"after {applied}")
    edited = core.to_bytes(model)
    while doc.can_undo:
        doc.undo()
        _assert_like_fresh(doc, f"after undoing down to {doc.index} of {applied}")
    assert core.to_bytes(model) == original, "undoing everything did not give the original back"
    while doc.can_redo:
        doc.redo()
    _assert_like_fresh(doc, f"after redoing {applied}")
    assert core.to_bytes(model) == edited, "redoing everything did not give the edited model back"
