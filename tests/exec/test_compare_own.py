"""Own vs inherited error, and reduce, on real models with one deliberate
error: ours runs the edited copy, onnxruntime the shared original (as the
app does with unsaved edits). The edited node must be the one with the
largest own error, every other node's own error small, and reduce must
write a few-node model that still disagrees on the saved inputs."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core import load
from onnxstudio.core.exec.compare import compare_run_with_onnxruntime, run_onnxruntime_model
from onnxstudio.core.exec.reduce import onnxruntime_runner, reduce_failing, write_reduced
from onnxstudio.core.exec.session import Session, run

from edited_models import bert_layernorm_epsilon, inputs_of, ppocr_conv_scaled, text_lines_image
from shared_models import shared_model

pytest.importorskip("onnxruntime")

CASES = {
    "ppocr_v4_det": (ppocr_conv_scaled, lambda: {"x": text_lines_image()}),
    "bert_12layer_narrow": (bert_layernorm_epsilon, lambda: inputs_of("bert_12layer_narrow")),
}


def _compared(name, tmp_path):
    make, feeds_of = CASES[name]
    path, culprit = make(tmp_path)
    feeds = feeds_of()
    model, reference = load(path), load(shared_model(name) / "model.onnx")
    s = Session(model, keep=True)
    outputs = s.run(feeds)
    report, theirs = compare_run_with_onnxruntime(model, {**s.values, **outputs}, feeds,
                                                  reference_model=reference)
    return model, reference, feeds, culprit, report, theirs


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_edited_node_has_the_largest_own_error(name, tmp_path):
    model, reference, feeds, culprit, report, theirs = _compared(name, tmp_path)
    assert report.worst_own.node.name == culprit
    assert report.worst_own.own_rel > 0.1
    assert report.first_divergence.node.name == culprit
    judged = [nd for nd in report.nodes if nd.own is not None]
    assert len(judged) >= len([nd for nd in report.nodes if not nd.constant]) * 0.95
    for nd in judged:
        if nd.node.name != culprit:
            assert nd.own_rel < 1e-3, (nd.node.name, nd.own_rel)
    # Downstream nodes inherit: their total error is large, their own is not.
    inherited = [nd for nd in judged if not nd.agrees and nd.node.name != culprit]
    assert inherited
    js = report.to_json()
    assert js["worst_own"]["name"] == culprit and js["worst_own"]["op_type"] in ("Conv", "LayerNormalization")
    assert js["first_divergence"]["name"] == culprit
    row = next(n for n in js["nodes"] if n["name"] == culprit)
    assert {"max_abs", "max_rel", "own_max_abs", "own_max_rel"} <= set(row)

    small = reduce_failing(model, report, {**feeds, **theirs}, run_reference=onnxruntime_runner(),
                           reference_model=reference)
    assert small.nodes == [culprit]
    paths = write_reduced(small, tmp_path / "small.onnx")
    assert sorted(p.name for p in paths) == ["small.expected.npz", "small.inputs.npz", "small.onnx",
                                             "small.reference.onnx"]
    written = load(tmp_path / "small.onnx")
    assert len(written.graph.nodes) <= 4
    with np.load(tmp_path / "small.inputs.npz") as z:
        saved = {k: z[k] for k in z.files}
    ours = run(written, saved)
    out_names = [v.name for v in written.graph.outputs]
    theirs_small = run_onnxruntime_model(load(tmp_path / "small.reference.onnx"), saved, out_names)
    worst = max(float(np.max(np.abs(ours[n] - theirs_small[n]))) / float(np.max(np.abs(theirs_small[n])))
                for n in out_names)
    assert worst > 0.1
    # onnxruntime on our small model agrees with us: the disagreement is the edit, carried by the small model.
    theirs_ours = run_onnxruntime_model(written, saved, out_names)
    for n in out_names:
        np.testing.assert_allclose(ours[n], theirs_ours[n], rtol=1e-3, atol=1e-4 * max(1, np.abs(ours[n]).max()))
