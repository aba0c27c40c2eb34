"""Stepping into an If inside a Loop: the status named the loop's
iteration for the body's own nodes ("Ran Add (iteration 0)") but not for
the branch's ("Ran Mul"), though the branch runs once per iteration."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto as TP, helper as h, numpy_helper as nh

from viewer_helpers import open_model, wait_idle


def _loop_with_a_branch(path):
    then_g = h.make_graph([h.make_node("Mul", ["acc_in", "two"], ["t_out"], name="then_mul")], "then_branch", [],
                          [h.make_tensor_value_info("t_out", TP.FLOAT, [2])],
                          [nh.from_array(np.array(2.0, np.float32), "two")])
    else_g = h.make_graph([h.make_node("Neg", ["acc_in"], ["e_out"], name="else_neg")], "else_branch", [],
                          [h.make_tensor_value_info("e_out", TP.FLOAT, [2])])
    body = h.make_graph([
        h.make_node("Mod", ["i", "two_i"], ["imod"], name="mod2"),
        h.make_node("Equal", ["imod", "zero_i"], ["even"], name="is_even"),
        h.make_node("If", ["even"], ["acc_out"], then_branch=then_g, else_branch=else_g, name="branch"),
        h.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
    ], "loop_body", [h.make_tensor_value_info("i", TP.INT64, []), h.make_tensor_value_info("cond_in", TP.BOOL, []),
                     h.make_tensor_value_info("acc_in", TP.FLOAT, [2])],
        [h.make_tensor_value_info("cond_out", TP.BOOL, []), h.make_tensor_value_info("acc_out", TP.FLOAT, [2])],
        [nh.from_array(np.array(2, np.int64), "two_i"), nh.from_array(np.array(0, np.int64), "zero_i")])
    graph = h.make_graph([h.make_node("Loop", ["n", "", "x"], ["y"], body=body, name="the_loop")], "g",
                         [h.make_tensor_value_info("x", TP.FLOAT, [2])],
                         [h.make_tensor_value_info("y", TP.FLOAT, [2])],
                         [nh.from_array(np.array(3, np.int64), "n")])
    path.write_bytes(h.make_model(graph, opset_imports=[h.make_opsetid("", 17)]).SerializeToString())
    return path


def test_a_branch_node_ran_names_the_loops_iteration(qtbot, window, tmp_path):
    open_model(qtbot, window, _loop_with_a_branch(tmp_path / "loop_if.onnx"))
    r = window.run_ui
    said = []
    for _ in range(12):
        r.step("into")
        assert r.controller.wait(300_000)
        wait_idle(qtbot, window)
        said.append(r.dock_widget.status.text())
    branch = [text for text in said if text.startswith(("Ran Mul", "Ran Neg"))]
    assert branch[:2] == ['Ran Mul "then_mul" (iteration 0); next: Identity "keep_going"',
                          'Ran Neg "else_neg" (iteration 1); next: Identity "keep_going"'], said
