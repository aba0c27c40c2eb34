"""Two models that share almost nothing: the diff says so (report.
may_be_unrelated, the summary's line, the JSON's flag) instead of leaving
a reader to find it out from hundreds of added and removed nodes; versions
of one model, even one that adds eleven layers, are not called unrelated."""
from onnxstudio.core import load
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import may_be_unrelated, shared_nodes, summary_lines, to_json
from onnxstudio.core.edits import SetAttribute, bypass_node
from onnxstudio.core.ir import AttrType
from shared_models import SHARED_MODELS

BERT = SHARED_MODELS / "bert_small" / "model.onnx"
PPOCR = SHARED_MODELS / "ppocr_v4_det" / "model.onnx"
LINE = ("these models share 0 of A's 227 and B's 330 computing nodes: they may not be versions of one model")


def edited_copy(path):
    """A model and its copy with one attribute changed and one node removed."""
    a, b = load(path), load(path)
    softmax = next(n for n in b.graph.nodes if n.op_type == "Softmax")
    tanh = next(n for n in b.graph.nodes if n.op_type == "Tanh")
    SetAttribute(softmax.name, "axis", AttrType.INT, 1).apply(b)
    bypass_node(b, tanh.name).apply(b)
    return a, b


def test_bert_against_ppocr_may_be_unrelated():
    d = diff_models(load(BERT), load(PPOCR))
    assert shared_nodes(d) == (0, 227, 330)
    assert may_be_unrelated(d) and to_json(d)["may_be_unrelated"] is True
    lines = summary_lines(d)
    # Right beneath the counts, before the hundreds of nodes listed.
    assert lines[3] == LINE


def test_versions_of_one_model_are_not():
    a, b = edited_copy(BERT)
    d = diff_models(a, b)
    assert shared_nodes(d) == (226, 227, 226) and not may_be_unrelated(d)
    assert not any("may not be versions" in line for line in summary_lines(d))
    # bert_12layer_narrow adds layers to bert_small: all of A's 227 pair.
    wider = diff_models(load(BERT), load(SHARED_MODELS / "bert_12layer_narrow" / "model.onnx"))
    assert shared_nodes(wider)[:2] == (227, 227) and not may_be_unrelated(wider)
    assert to_json(wider)["may_be_unrelated"] is False
