"""The onnxruntime comparison covers the values inside If/Loop bodies, or
names what it did not compare and why (issue 22); a subgraph's outer reads
are scoped by graph (issue 21)."""
import json
import sys
import pathlib

import numpy as np
import pytest

from shared_models import SHARED_MODELS
from onnxstudio import core
from onnxstudio.core import load
from onnxstudio.core.exec.compare import compare_values, compare_with_onnxruntime, node_report

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from test_body_values import LOOP_FEEDS, _body, loop_model, nested_if_model  # noqa: E402

pytest.importorskip("onnxruntime")
X = {"x": np.array([1, -2, 3], np.float32)}


def _by_path(report):
    return {b.path: b for b in report.bodies}


def test_if_bodies_are_compared_by_running_each_on_its_own(tmp_path):
    model = nested_if_model(tmp_path / "m.onnx")
    report = compare_with_onnxruntime(model, X)
    bodies = _by_path(report)
    then, inner = _body(model, "then_branch"), _body(model, "then_branch", "then_branch")
    b = bodies[then.path]
    assert b.report is not None and b.report.agrees and not b.not_compared
    assert set(b.report.values) == {"then_abs", "then_max", "then_cond", "then_if", "then_y"}
    assert bodies[inner.path].report.values["inner_y"].agrees
    skipped = bodies[_body(model, "else_branch").path]
    assert skipped.report is None and "did not run" in skipped.note
    data = json.loads(json.dumps(report.to_json()))
    entry = next(e for e in data["bodies"] if e["graph"] == then.path)
    assert entry["compared"] == 5 and entry["agrees"] is True


def test_a_body_value_that_differs_is_found_inside_the_body(tmp_path, monkeypatch):
    model = nested_if_model(tmp_path / "m.onnx")
    from onnxstudio.core.exec import kept as kept_module
    real = kept_module.BodyValues.keep

    def spoil(self, graph, names, values):      # our Abs inside the body is off by 1
        if "then_abs" in values:
            values = dict(values, then_abs=values["then_abs"] + 1)
        return real(self, graph, names, values)
    monkeypatch.setattr(kept_module.BodyValues, "keep", spoil)
    report = compare_with_onnxruntime(model, X)
    b = _by_path(report)[_body(model, "then_branch").path]
    assert not b.report.values["then_abs"].agrees
    assert b.report.first_divergence.node.op_type == "Abs"


def test_a_loop_body_is_compared_on_its_last_iteration(tmp_path):
    model = loop_model(tmp_path / "m.onnx")
    report = compare_with_onnxruntime(model, LOOP_FEEDS)
    b = _by_path(report)[_body(model, "body").path]
    assert b.runs == 3 and b.run == 2
    assert b.report.agrees and b.report.values["acc_sum"].agrees
    assert b.report.values["acc_sum"].scale == 6          # the last iteration's [3, 6]


def test_what_the_budget_left_out_is_named_not_compared(tmp_path):
    model = loop_model(tmp_path / "m.onnx")
    report = compare_with_onnxruntime(model, LOOP_FEEDS, body_budget=20)
    b = _by_path(report)[_body(model, "body").path]
    assert ("acc_sum", "not kept: over the memory budget") in b.not_compared or b.report is None
    assert "acc_sum" not in (b.report.values if b.report is not None else {})
    data = report.to_json()["bodies"][0]
    assert any(e["name"] == "acc_sum" for e in data["not_compared"])


def test_without_bodies_nothing_is_claimed(tmp_path):
    model = nested_if_model(tmp_path / "m.onnx")
    report = compare_with_onnxruntime(model, X, bodies=False)
    assert report.bodies == [] and "bodies" not in report.to_json()


def test_silero_vad_body_values_are_compared():
    folder = SHARED_MODELS / "silero_vad"
    model = load(folder / "model.onnx")
    with np.load(folder / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    report = compare_with_onnxruntime(model, feeds)
    compared = sum(b.compared for b in report.bodies)
    assert compared > 100
    ran = [b for b in report.bodies if b.runs]
    assert ran and all(b.report is not None or b.note for b in ran)
    for b in ran:
        if b.report is not None:
            assert b.report.agrees, (b.path, b.report.first_divergence)
    assert all(b.note for b in report.bodies if not b.runs)     # the branches not taken say so


def _shadow_model():
    """Relu "pre" -> t; If "outer" whose branch reads t and holds an If whose
    branch defines its own t (tests/ir/test_nesting.py's shape)."""
    from onnx import TensorProto, helper
    f = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, None)  # noqa: E731
    shadow = helper.make_graph([helper.make_node("Neg", ["x"], ["t"]), helper.make_node("Identity", ["t"], ["s"])],
                               "shadow", [], [f("s")])
    plain = helper.make_graph([helper.make_node("Identity", ["x"], ["p"])], "plain", [], [f("p")])
    then = helper.make_graph([helper.make_node("Add", ["t", "t"], ["tt"]),
                              helper.make_node("If", ["cond"], ["i"], then_branch=shadow, else_branch=plain),
                              helper.make_node("Add", ["tt", "i"], ["o"])], "then", [], [f("o")])
    other = helper.make_graph([helper.make_node("Identity", ["t"], ["e"])], "else", [], [f("e")])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="pre"),
                           helper.make_node("If", ["cond"], ["y"], name="outer", then_branch=then,
                                            else_branch=other)],
                          "m", [f("x"), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])], [f("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return core.load_bytes(m.SerializeToString())


def test_a_subgraphs_outer_reads_are_scoped_by_graph_not_by_name():
    graph = _shadow_model().graph
    ours = {"t": np.ones(2, np.float32), "y": np.ones(2, np.float32)}
    theirs = {"t": np.zeros(2, np.float32), "y": np.zeros(2, np.float32)}
    report = node_report(graph, compare_values(ours, theirs))
    outer = next(n for n in report.nodes if n.node.name == "outer")
    # The If reads the differing t (its branch does), though a nested body
    # defines a t of its own: its inputs do not all agree.
    assert not outer.inputs_agree
    assert report.first_divergence.node.name == "pre"


def test_within_a_memory_budget_bodies_are_compared_as_in_the_whole_comparison(tmp_path):
    from onnxstudio.core.exec.budget_compare import compare_bounded
    model = nested_if_model(tmp_path / "m.onnx")
    whole = _by_path(compare_with_onnxruntime(model, X))
    bounded = compare_bounded(model, X, budget=1 << 20)
    bodies = _by_path(bounded.report)
    assert set(bodies) == set(whole)
    for path, b in bodies.items():
        assert (b.report is None) == (whole[path].report is None), path
        if b.report is not None:
            assert set(b.report.values) == set(whole[path].report.values) and b.report.agrees
    assert "did not run" in bodies[_body(model, "else_branch").path].note
    loop = loop_model(tmp_path / "loop.onnx")
    b = _by_path(compare_bounded(loop, LOOP_FEEDS, budget=1 << 20).report)[_body(loop, "body").path]
    assert b.runs == 3 and b.report.values["acc_sum"].agrees and b.report.values["acc_sum"].scale == 6


def test_body_values_over_an_eighth_of_the_budget_are_named_not_compared(tmp_path):
    from onnxstudio.core.exec.budget_compare import compare_bounded
    model = loop_model(tmp_path / "m.onnx")
    bounded = compare_bounded(model, LOOP_FEEDS, budget=8 * 20)      # the body keeps up to 20 bytes
    b = _by_path(bounded.report)[_body(model, "body").path]
    assert ("acc_sum", "not kept: over the memory budget") in b.not_compared or b.report is None
    assert "acc_sum" not in (b.report.values if b.report is not None else {})
    assert bounded.peak <= bounded.budget
