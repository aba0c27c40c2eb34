"""ZipMap (ai.onnx.ml) against its labels. Each rule is proved on the oracles
first: onnx.checker (full_check) or onnxruntime refuses every case we call
an error (onnxruntime at load, or when run on an input of the declared
shape), and accepts every valid form we call clean.

- exactly one non-empty list of labels (attr.one-of, operator_rules);
- the output's map key is the labels' type (node.output-type-conflict,
  operator_rules, which reads the declared output type);
- the input is [N, C] or [C] with one column per label (shape.rank-mismatch,
  shape.dim-mismatch: shape facts, found by inference, so by the app and
  `onnxstudio check`, not by a bare file check).

The shared scikit-learn pipeline is damaged the same ways, in the style of
tools/check_differential.py: the file check and the app's check of the
loaded IR agree word for word, and the undamaged model stays clean."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core import edits
from onnxstudio.core.analysis import Analysis
from onnxstudio.core.check import ERROR, check
from onnxstudio.core.document import Document
from onnxstudio.core.ir import AttrType
from shared_models import SHARED_MODELS

F, I64, STR = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING
PIPELINE = SHARED_MODELS / "skl_logreg_pipeline" / "model.onnx"
NODE = 'graph/node[0] ZipMap "zip"'


def _zipmap(in_shape=("N", 3), key=STR, **labels):
    node = helper.make_node("ZipMap", ["X"], ["Z"], name="zip", domain="ai.onnx.ml", **labels)
    out = helper.make_value_info("Z", helper.make_sequence_type_proto(
        helper.make_map_type_proto(key, helper.make_tensor_type_proto(F, None))))
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("X", F, in_shape)], [out])
    return helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 18),
                                                             helper.make_opsetid("ai.onnx.ml", 1)])


def _empty_labels():
    """classlabels_strings present with no value (onnx.helper cannot write it)."""
    m = _zipmap()
    m.graph.node[0].attribute.add(name="classlabels_strings", type=onnx.AttributeProto.STRINGS)
    return m


def _reshaped():
    """ZipMap reading Reshape(X, S) with S a graph input: the rank is not known."""
    m = _zipmap(classlabels_strings=["a", "b", "c"])
    m.graph.node[0].input[0] = "R"
    m.graph.node.insert(0, helper.make_node("Reshape", ["X", "S"], ["R"], name="reshape"))
    m.graph.input.append(helper.make_tensor_value_info("S", I64, [2]))
    return m


def _refusal(model, feed_shape) -> str:
    """What the oracles say against the model ("" when all accept): onnx
    full_check, then onnxruntime's load, then its run on `feed_shape`."""
    feed = {"X": np.full(feed_shape, 0.5, np.float32)}
    if len(model.graph.input) > 1:
        feed["S"] = np.array(feed_shape, np.int64)
    return _oracles_refuse(model, feed)


def _oracles_refuse(model, feed: dict) -> str:
    """onnx full_check's refusal, else onnxruntime's at load or on a run
    with `feed`; "" when both accept."""
    try:
        onnx.checker.check_model(model, full_check=True)
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError, ValueError) as e:
        return f"onnx: {e}"
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(None, feed)
    except Exception as e:  # noqa: BLE001 - any refusal of onnxruntime's is the verdict
        return f"onnxruntime: {e}"
    return ""


def _errors(model, tmp_path, *, inference=True) -> set:
    """(code, path) of the errors of `check(path)`, which must equal the
    app's check of the loaded IR without inference word for word; with
    `inference`, those of the app's check (inference's findings added)."""
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    file_verdict = check(path)
    ir = core.load(path)
    assert file_verdict == check(ir, use_inference=False)
    diags = check(ir) if inference else file_verdict
    return {(d.code, d.path) for d in diags if d.severity == ERROR}


# (id, model, shape fed to onnxruntime, code, path, found without inference)
CASES = [
    ("strings, int64 key declared", _zipmap(key=I64, classlabels_strings=["a", "b", "c"]), (2, 3),
     "node.output-type-conflict", NODE + '/output[0] "Z"', True),
    ("int64s, string key declared", _zipmap(key=STR, classlabels_int64s=[1, 2, 3]), (2, 3),
     "node.output-type-conflict", NODE + '/output[0] "Z"', True),
    ("both lists", _zipmap(key=I64, classlabels_strings=["a", "b", "c"], classlabels_int64s=[1, 2, 3]), (2, 3),
     "attr.one-of", NODE, True),
    ("no list", _zipmap(), (2, 3), "attr.one-of", NODE, True),
    ("an empty list", _empty_labels(), (2, 3), "attr.one-of", NODE, True),
    ("4 columns, 3 labels", _zipmap(("N", 4), classlabels_strings=["a", "b", "c"]), (2, 4),
     "shape.dim-mismatch", NODE, False),
    ("[4], 3 labels", _zipmap((4,), key=I64, classlabels_int64s=[1, 2, 3]), (4,), "shape.dim-mismatch", NODE, False),
    ("rank 3", _zipmap((1, 2, 3), classlabels_strings=["a", "b", "c"]), (1, 2, 3), "shape.rank-mismatch", NODE, False),
    ("rank 0", _zipmap((), classlabels_strings=["a", "b", "c"]), (), "shape.rank-mismatch", NODE, False),
]
VALID = [
    ("strings", _zipmap(classlabels_strings=["a", "b", "c"]), (2, 3)),
    ("int64s", _zipmap(key=I64, classlabels_int64s=[4, 5, 6]), (2, 3)),
    ("one row [C]", _zipmap((3,), classlabels_strings=["a", "b", "c"]), (3,)),
    ("width unknown", _zipmap(("N", "C"), classlabels_strings=["a", "b", "c"]), (2, 3)),
    ("rank unknown", _reshaped(), (2, 3)),
]


@pytest.mark.parametrize("name,model,feed,code,where,in_file", CASES, ids=[c[0] for c in CASES])
def test_the_oracles_and_we_refuse(name, model, feed, code, where, in_file, tmp_path):
    assert _refusal(model, feed), "no oracle refuses this: it must not be an error"
    assert (code, where) in _errors(model, tmp_path)
    # Rules of the file form hold without inference; shape facts need it.
    assert ((code, where) in _errors(model, tmp_path, inference=False)) == in_file


@pytest.mark.parametrize("name,model,feed", VALID, ids=[c[0] for c in VALID])
def test_valid_forms_are_clean(name, model, feed, tmp_path):
    assert _refusal(model, feed) == ""
    assert not _errors(model, tmp_path)


def test_two_zipmaps_with_the_same_attributes_are_judged_apart(tmp_path):
    """The lean pass keys a node's verdict by the bytes after its op_type:
    a clean ZipMap must not clear a later one whose output is declared
    with the other key."""
    m = _zipmap(classlabels_strings=["a", "b", "c"])
    m.graph.node.append(helper.make_node("ZipMap", ["X"], ["Z2"], name="second", domain="ai.onnx.ml",
                                         classlabels_strings=["a", "b", "c"]))
    m.graph.output.append(helper.make_value_info("Z2", helper.make_sequence_type_proto(
        helper.make_map_type_proto(I64, helper.make_tensor_type_proto(F, None)))))
    assert _errors(m, tmp_path, inference=False) == {
        ("node.output-type-conflict", 'graph/node[1] ZipMap "second"/output[0] "Z2"')}


# --- the shared scikit-learn pipeline, damaged as check_differential would ------------

def _pipeline():
    return onnx.load(str(PIPELINE))


def _zip_node(m):
    return next(n for n in m.graph.node if n.op_type == "ZipMap")


def _set_labels(m, **labels):
    node = _zip_node(m)
    kept = [a for a in node.attribute if not a.name.startswith("classlabels_")]
    del node.attribute[:]
    node.attribute.extend(kept + [helper.make_attribute(k, v) for k, v in labels.items()])
    return m


def _pipeline_feed():
    return dict(np.load(PIPELINE.parent / "inputs.npz"))


def _pipeline_refusal(model) -> str:
    return _oracles_refuse(model, _pipeline_feed())


def _pipeline_labels():
    return list(next(a for a in _zip_node(_pipeline()).attribute if a.name == "classlabels_int64s").ints)


PIPELINE_DAMAGE = [
    ("labels as strings", lambda m: _set_labels(m, classlabels_strings=[str(k) for k in _pipeline_labels()]),
     "node.output-type-conflict"),
    ("both lists", lambda m: _set_labels(m, classlabels_int64s=_pipeline_labels(),
                                         classlabels_strings=[str(k) for k in _pipeline_labels()]), "attr.one-of"),
    ("no labels", lambda m: _set_labels(m), "attr.one-of"),
    ("a label short", lambda m: _set_labels(m, classlabels_int64s=_pipeline_labels()[:-1]), "shape.dim-mismatch"),
    ("a label more", lambda m: _set_labels(m, classlabels_int64s=_pipeline_labels() + [99]), "shape.dim-mismatch"),
]


def test_the_shared_pipeline_is_clean(tmp_path):
    m = _pipeline()
    assert _pipeline_refusal(m) == ""
    assert not _errors(m, tmp_path)
    doc = Document(core.load(PIPELINE))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]


@pytest.mark.parametrize("name,damage,code", PIPELINE_DAMAGE, ids=[c[0] for c in PIPELINE_DAMAGE])
def test_the_damaged_pipeline_is_refused_by_the_oracles_and_us(name, damage, code, tmp_path):
    m = damage(_pipeline())
    assert _pipeline_refusal(m)
    zip_index = list(m.graph.node).index(_zip_node(m))
    found = _errors(m, tmp_path)
    assert {c for c, p in found} == {code}
    assert all(p.startswith(f"graph/node[{zip_index}] ZipMap") for c, p in found)


def test_the_live_checker_follows_label_edits():
    """Attribute edits in the app: the Problems list equals a full check
    after each, and undo brings the clean model back."""
    model = core.load(PIPELINE)
    doc = Document(model)
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    zip_name = next(n.name for n in model.graph.nodes if n.op_type == "ZipMap")
    labels = [str(k) for k in model.graph.find_node(zip_name).attr("classlabels_int64s")]
    doc.apply(edits.SetAttribute(zip_name, "classlabels_strings", AttrType.STRINGS, labels))
    assert {d.code for d in doc.diagnostics if d.severity == ERROR} == {"attr.one-of"}
    assert doc.diagnostics == Analysis(model).diagnostics()
    doc.apply(edits.SetAttribute(zip_name, "classlabels_int64s"))
    assert {d.code for d in doc.diagnostics if d.severity == ERROR} == {"node.output-type-conflict"}
    assert doc.diagnostics == Analysis(model).diagnostics()
    doc.undo()
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    assert doc.diagnostics == Analysis(model).diagnostics()
