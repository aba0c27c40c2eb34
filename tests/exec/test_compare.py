"""core.exec.compare: value-by-value comparison of two runs, per node, and
against onnxruntime with every intermediate exposed."""
import dataclasses
import sys

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.exec import Session
from onnxstudio.core.exec import compare as cmp
from onnxstudio.core.exec import plan as plan_module
from onnxstudio.resources import sample_path


def _feeds(seed=0):
    rng = np.random.default_rng(seed)
    return {"pixels": rng.standard_normal((1, 3, 32, 32)).astype(np.float32), "use_softmax": np.array(True)}


def _run_keeping(model, feeds):
    s = Session(model, keep=True)
    out = s.run(feeds)
    return {**s.values, **out}


def test_sequence_of_maps_differing_by_float_rounding_agrees():
    ours = [{0: np.float32(0.25), 1: np.float32(0.75)}, {0: np.float32(0.5), 1: np.float32(0.5)}]
    theirs = [{0: 0.25 + 6e-8, 1: 0.75}, {0: 0.5, 1: 0.5 - 6e-8}]
    d = cmp.compare_value("output_probability", ours, theirs)
    assert d.agrees and 0 < d.max_abs < 1e-7 and d.where == "[0]{0}"
    theirs[1][1] = 0.4
    d = cmp.compare_value("output_probability", ours, theirs)
    assert not d.agrees and d.where == "[1]{1}" and d.max_abs == pytest.approx(0.1)


def test_sequence_and_map_structure_mismatches_are_named():
    d = cmp.compare_value("s", [np.ones(2)], [np.ones(2), np.ones(2)])
    assert not d.agrees and "sequence of 1 vs 2" in d.note
    d = cmp.compare_value("m", {"a": np.ones(1)}, {"b": np.ones(1)})
    assert not d.agrees and "keys differ" in d.note
    d = cmp.compare_value("t", np.ones((2, 3)), np.ones((3, 2)))
    assert not d.agrees and "shape [2, 3] vs [3, 2]" in d.note


def test_relative_error_is_relative_to_the_outputs_scale_not_to_an_element_near_zero():
    """ppocr's sigmoid output: elements of 1e-12 next to 8e-6, 1e-7 off."""
    theirs = np.array([1e-12, 3e-6, 8.35e-6], np.float32)
    ours = theirs + np.array([1e-7, 0, 0], np.float32)
    d = cmp.compare_value("sigmoid", ours, theirs)
    assert d.agrees
    assert d.where == "[0]" and d.max_abs == pytest.approx(1e-7, rel=1e-3)
    assert d.rel == pytest.approx(1e-7 / 8.35e-6, rel=1e-3)      # ~1.2e-2, not 1e+05


def test_nan_on_both_sides_agrees_and_one_sided_nan_does_not():
    assert cmp.compare_value("x", np.array([np.nan, 1.0]), np.array([np.nan, 1.0])).agrees
    d = cmp.compare_value("x", np.array([np.nan, 1.0]), np.array([0.0, 1.0]))
    assert not d.agrees and "NaN on one side only" in d.note


def test_strings_compare_exactly():
    a = np.array(["cat", "dog"], dtype=object)
    assert cmp.compare_value("s", a, a.copy()).agrees
    d = cmp.compare_value("s", a, np.array(["cat", "cow"], dtype=object))
    assert not d.agrees and d.note.startswith("[1]")


def test_a_broken_initializer_is_found_as_the_first_divergence():
    model = core.load(sample_path())
    feeds = _feeds()
    good = _run_keeping(model, feeds)
    weight = "backbone.stage2.conv.weight"
    broken = core.load(sample_path())
    w = broken.graph.initializers[weight].const.numpy().copy()
    w[0, 0, 0, 0] += 5.0
    broken.graph.initializers[weight].const = core.Tensor.from_numpy(w, weight)
    bad = _run_keeping(broken, feeds)
    report = cmp.node_report(model.graph, cmp.compare_values(bad, good))
    assert report.differing_sources == [weight]
    first = report.first_divergence
    assert first is not None and first.node.name == "/backbone/stage2/conv/Conv"
    # In graph order, with the nodes before it agreeing and those after it marked as fed bad inputs.
    names = [n.node.name for n in report.nodes]
    assert names == [n.name for n in model.graph.nodes]
    assert all(n.agrees for n in report.nodes[:3])
    later = report.nodes[names.index("/backbone/stage2/act/Swish")]
    assert not later.agrees and not later.inputs_agree
    assert report.to_json()["first_divergence"]["node"] == first.node.path


def test_two_equal_runs_agree_everywhere():
    model = core.load(sample_path())
    a = _run_keeping(model, _feeds())
    report = cmp.node_report(model.graph, cmp.compare_values(a, _run_keeping(model, _feeds())))
    assert report.agrees and report.first_divergence is None and report.nodes[0].max_abs == 0


def test_against_onnxruntime_every_intermediate_is_compared():
    pytest.importorskip("onnxruntime")
    model = core.load(sample_path())
    report = cmp.compare_with_onnxruntime(model, _feeds())
    assert report.agrees and report.first_divergence is None and report.skipped == []
    assert [n.node.name for n in report.nodes] == [n.name for n in model.graph.nodes]


def test_against_onnxruntime_a_wrong_kernel_is_the_first_divergence(monkeypatch):
    pytest.importorskip("onnxruntime")
    real = plan_module.find_kernel

    def find_kernel(domain, op_type, opset):
        k = real(domain, op_type, opset)
        if op_type == "MaxPool":      # a planted bug: every pooled value 0.5 too high
            return dataclasses.replace(k, fn=lambda *a, **kw: k.fn(*a, **kw) + np.float32(0.5), prepare=None)
        return k

    monkeypatch.setattr(plan_module, "find_kernel", find_kernel)
    model = core.load(sample_path())
    report = cmp.compare_with_onnxruntime(model, _feeds())
    assert not report.agrees
    first = report.first_divergence
    assert first.node.name == "/backbone/stage1/pool/MaxPool"
    assert first.max_abs == pytest.approx(0.5, abs=1e-5)


def test_without_onnxruntime_the_comparison_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)
    model = core.load(sample_path())
    with pytest.raises(cmp.CompareError, match="onnxruntime is not installed"):
        cmp.compare_with_onnxruntime(model, _feeds())


def _constant_weight_conv():
    """A Conv whose weight is held by an unnamed Constant node (as torch
    exports write them), and a Relu after it."""
    from onnx import TensorProto, helper, numpy_helper
    w = np.random.default_rng(0).standard_normal((2, 1, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(w)),
         helper.make_node("Cast", ["w"], ["w32"], to=TensorProto.FLOAT),
         helper.make_node("Conv", ["x", "w32"], ["y"], name="conv"),
         helper.make_node("Relu", ["y"], ["z"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return core.load_bytes(model.SerializeToString())


def test_a_changed_constant_weight_is_named_by_the_node_that_reads_it():
    model = _constant_weight_conv()
    feeds = {"x": np.random.default_rng(1).standard_normal((1, 1, 5, 5)).astype(np.float32)}
    ours = _run_keeping(model, feeds)
    theirs = {k: (v * 1.5 if k in ("w", "w32") else v) for k, v in ours.items()}
    theirs["y"] = ours["y"] * 1.5
    theirs["z"] = ours["z"] * 1.5
    report = cmp.node_report(model.graph, cmp.compare_values(ours, theirs))
    rows = {n.node.op_type: n for n in report.nodes}
    assert rows["Constant"].constant and rows["Cast"].constant and not rows["Conv"].constant
    assert report.first_divergence.node.name == "conv"
    assert {"w", "w32"} <= set(report.differing_sources)
    assert report.to_json()["first_divergence"]["name"] == "conv"


def test_per_value_tolerances_judge_the_values_they_name():
    ours = {"a": np.float32([1.0, 2.0]), "b": np.float32([1.0, 2.0])}
    theirs = {"a": np.float32([1.0, 2.01]), "b": np.float32([1.0, 2.01])}
    diffs = cmp.compare_values(ours, theirs, tolerances={"b": (1e-2, 0.0)})
    assert not diffs["a"].agrees and diffs["b"].agrees
    assert (diffs["b"].rtol, diffs["b"].atol) == (1e-2, 0.0) and diffs["a"].rtol == cmp.RTOL
    diffs = cmp.compare_values(ours, theirs, rtol=0.0, atol=0.0, tolerances={"a": (0.1, 0.1)})
    assert diffs["a"].agrees and not diffs["b"].agrees


def test_onnxruntime_provider_and_optimisation_level_are_chosen():
    pytest.importorskip("onnxruntime")
    model = core.load(sample_path("demo.onnx"))
    assert "CPUExecutionProvider" in cmp.available_providers()
    tolerances = {"probs": (0.0, 0.0)}
    report = cmp.compare_with_onnxruntime(model, _feeds(), provider="CPUExecutionProvider", opt_level="all",
                                          tolerances=tolerances)
    assert report.values["logits"].agrees and report.tolerances == tolerances
    assert (report.values["probs"].rtol, report.values["probs"].atol) == (0.0, 0.0)
    with pytest.raises(cmp.CompareError, match="no execution provider 'NoSuchProvider'.*CPUExecutionProvider"):
        cmp.compare_with_onnxruntime(model, _feeds(), provider="NoSuchProvider")
    with pytest.raises(cmp.CompareError, match="no graph optimisation level 'most'; choose one of disable"):
        cmp.compare_with_onnxruntime(model, _feeds(), opt_level="most")
