"""The edit script derived with node names looked up through an index
(to_script.py runs its steps inside core/edits/refs.py's
`node_names_indexed`) is the very script derived by passes over the graphs,
and replays on A to B: on bert_small with every value and node renamed,
attributes changed, nodes bypassed and inserted; and on a model with bodies
whose first node takes the second's name, and the second a new one (two
nodes share a name between the steps)."""
from __future__ import annotations

import contextlib

from onnxstudio.core import Document, load
from onnxstudio.core.diff import diff_models, to_script
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import SetAttribute, bypass_node, insert_on_edge, replay
from onnxstudio.core.ir import AttrType
from shared_models import SHARED_MODELS

from .models import with_bodies

BERT = SHARED_MODELS / "bert_small" / "model.onnx"


def _exported_again(b):
    """B as another exporter would name it, with a few edits."""
    g = b.graph
    nodes = list(g.nodes)
    for k, n in enumerate(nodes):
        for v in n.outputs:
            if v is not None:
                g.rename_value(v, f"v{k}_{v.name.rsplit('/', 1)[-1]}")
        n.name = f"n{k}_{n.op_type}"
    for n in [n for n in g.nodes if n.op_type == "Softmax"][::2]:
        SetAttribute({"output": n.outputs[0].name}, "axis", AttrType.INT, 1).apply(b)
    for n in [n for n in g.nodes if n.op_type == "Erf"][:2]:
        bypass_node(b, {"output": n.outputs[0].name}).apply(b)
    for i, n in enumerate([n for n in g.nodes if n.op_type == "MatMul"][::4]):
        insert_on_edge(b, n.outputs[0].name, "Relu", name=f"inserted_{i}").apply(b)
    return b


def _derived_both_ways(a, b, monkeypatch):
    indexed = derive_script(diff_models(a, b))
    with monkeypatch.context() as patched:
        patched.setattr(to_script, "node_names_indexed", lambda model: contextlib.nullcontext())
        scanned = derive_script(diff_models(a, b))
    return indexed, scanned


def _replays_to(a, b, script) -> bool:
    doc = Document(a.clone())
    replay(doc, script)
    return diff_models(doc.model, b).equal


def test_bert_exported_again(monkeypatch):
    a, b = load(BERT), _exported_again(load(BERT))
    indexed, scanned = _derived_both_ways(a, b, monkeypatch)
    assert indexed.script == scanned.script
    assert indexed.not_expressed == scanned.not_expressed
    assert indexed.complete
    kinds = {s["kind"] for s in indexed.script}
    assert {"rename_value", "set_node_field", "set_attribute", "add_node", "remove_node"} <= kinds
    assert _replays_to(a, b, indexed.script)


def test_bodies(monkeypatch):
    a, b = with_bodies(0.1), with_bodies(0.3)
    g = b.graph
    g.find_node("choose").name = "choose2"
    g.find_node("pre").name = "choose"
    indexed, scanned = _derived_both_ways(a, b, monkeypatch)
    assert indexed.script == scanned.script and indexed.complete
    # While both were called "choose", the second rename named its node by its output.
    renames = [s for s in indexed.script if s["kind"] == "set_node_field"]
    assert [s["node"] for s in renames] == ["pre", {"output": "y"}]
    assert _replays_to(a, b, indexed.script)


def test_no_step_scans_a_graph_again(monkeypatch):
    """What keeps each step O(touched): the index is built once per graph,
    and neither deriving nor replaying falls back to a pass over a graph."""
    from onnxstudio.core.edits import refs
    built, rebuilt = [], []
    index, rebuild = refs._NodeNames._index, refs._NodeNames.rebuild
    monkeypatch.setattr(refs._NodeNames, "_index", lambda self, g: built.append(g) or index(self, g))
    monkeypatch.setattr(refs._NodeNames, "rebuild", lambda self, g: rebuilt.append(g) or rebuild(self, g))
    a, b = load(BERT), _exported_again(load(BERT))
    derived = derive_script(diff_models(a, b))
    assert derived.complete and len(derived.script) > 500
    assert rebuilt == [] and len(built) == len(set(built)) == 1
    built.clear()
    assert _replays_to(a, b, derived.script)
    assert rebuilt == [] and len(built) == 1
