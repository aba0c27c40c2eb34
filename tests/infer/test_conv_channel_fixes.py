"""A Conv's or ConvTranspose's channels against its weight (shape.dim-mismatch)
say what to change: W's dim that counts X's channels, a `group` that fits,
or X's channels. Each change the message names is applied and shown to run
on onnxruntime and to be clean for us, so the message never sends the user
to a model that fails again."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from oracle_verdicts import onnx_accepts, our_errors

F = TensorProto.FLOAT


def _conv(channels, w, group=1, op="Conv"):
    """One Conv (or ConvTranspose) of a [1, channels, 6, 6] input and a
    constant weight `w`; the output's dims symbolic."""
    x = helper.make_tensor_value_info("x", F, [1, channels, 6, 6])
    y = helper.make_tensor_value_info("y", F, ["n", "c", "h", "w"])
    weight = helper.make_tensor("w", F, w, np.ones(w, np.float32).ravel().tolist())
    node = helper.make_node(op, ["x", "w"], ["y"], name="conv", group=group)
    graph = helper.make_graph([node], "g", [x], [y], initializer=[weight])
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", 21)])


def _runs(model, channels) -> bool:
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.ones((1, channels, 6, 6), np.float32)})
    except Exception:  # noqa: BLE001 - any refusal or failure is the verdict
        return False
    return True


# name -> (X's channels, W's shape, group, the fixes named: (X's channels, W's shape, group) each)
CONV = {
    # W's dim 1 of 2 with group 2 reads 4 channels; 6 = 3 x 2, or 2 x 3 but M=4 is no multiple of 3.
    "group_2_on_6_channels": (6, [4, 2, 3, 3], 2, "give W a dim 1 of 3, or give X 4 channels",
                              [(6, [4, 3, 3, 3], 2), (4, [4, 2, 3, 3], 2)]),
    "group_1_on_4_channels": (4, [4, 2, 3, 3], 1, "give W a dim 1 of 4, or set group to 2, or give X 2 channels",
                              [(4, [4, 4, 3, 3], 1), (4, [4, 2, 3, 3], 2), (2, [4, 2, 3, 3], 1)]),
    "depthwise_with_group_left_out": (8, [8, 1, 3, 3], 1, "give W a dim 1 of 8, or set group to 8, or give X 1 "
                                      "channel", [(8, [8, 8, 3, 3], 1), (8, [8, 1, 3, 3], 8), (1, [8, 1, 3, 3], 1)]),
    "group_that_does_not_divide_x": (5, [4, 1, 3, 3], 2, "give X 2 channels", [(2, [4, 1, 3, 3], 2)]),
}


@pytest.mark.parametrize("name", sorted(CONV))
def test_a_conv_s_channel_mismatch_names_the_changes_that_run(name, tmp_path):
    channels, w, group, words, fixes = CONV[name]
    model = _conv(channels, w, group)
    assert not onnx_accepts(model) or not _runs(model, channels)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == ["shape.dim-mismatch"], found
    assert found[0].message.endswith(f"with group {group} expects {w[1]} x {group} = {w[1] * group}: W's dim 1 "
                                     f"is X's channels over group, so {words}"), found[0].message
    for fixed_channels, fixed_w, fixed_group in fixes:
        fixed = _conv(fixed_channels, fixed_w, fixed_group)
        assert _runs(fixed, fixed_channels), (fixed_channels, fixed_w, fixed_group)
        assert our_errors(fixed, tmp_path) == []


def test_a_conv_transpose_s_channel_mismatch_names_the_changes_that_run(tmp_path):
    """ConvTranspose's W is (C, M/group, k...): its dim 0 counts X's channels."""
    model = _conv(4, [3, 2, 3, 3], op="ConvTranspose")
    assert not onnx_accepts(model) or not _runs(model, 4)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == ["shape.dim-mismatch"], found
    assert found[0].message.endswith("expects 3 (its dim 0): W's dim 0 is X's channels, so give W a dim 0 of 4, "
                                     "or give X 3 channels"), found[0].message
    for channels, w in ((4, [4, 2, 3, 3]), (3, [3, 2, 3, 3])):
        fixed = _conv(channels, w, op="ConvTranspose")
        assert _runs(fixed, channels)
        assert our_errors(fixed, tmp_path) == []
