"""A breakpoint inside a Loop body stops once per iteration, and the Run
dock's status said "Stopped at breakpoint Mul "then_double"" each time,
whichever iteration it was (seen under Xvfb, F5 after F5): it names the
loop's iteration, also for a node in an If branch inside the body, whose
own count of runs is not the loop's."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from viewer_helpers import open_model, wait_idle


def _write_if_in_loop(path) -> str:
    """Loop of `trips` iterations: acc + step, then doubled on even
    iterations (If "choose", then branch Mul "then_double") and negated on odd ones."""
    import onnx
    from onnx import TensorProto as T, helper as h
    then_b = h.make_graph([h.make_node("Mul", ["acc_sum", "two"], ["then_out"], name="then_double")], "then_b", [],
                          [h.make_tensor_value_info("then_out", T.FLOAT, [2])])
    else_b = h.make_graph([h.make_node("Neg", ["acc_sum"], ["else_out"], name="else_neg")], "else_b", [],
                          [h.make_tensor_value_info("else_out", T.FLOAT, [2])])
    body = h.make_graph(
        [h.make_node("Add", ["acc_in", "step"], ["acc_sum"], name="accumulate"),
         h.make_node("Mod", ["iter", "two_i"], ["parity"], name="parity"),
         h.make_node("Equal", ["parity", "zero_i"], ["even"], name="is_even"),
         h.make_node("If", ["even"], ["branch_out"], name="choose", then_branch=then_b, else_branch=else_b),
         h.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         h.make_node("Identity", ["branch_out"], ["acc_out"], name="pass_on")],
        "loop_body",
        [h.make_tensor_value_info("iter", T.INT64, []), h.make_tensor_value_info("cond_in", T.BOOL, []),
         h.make_tensor_value_info("acc_in", T.FLOAT, [2])],
        [h.make_tensor_value_info("cond_out", T.BOOL, []), h.make_tensor_value_info("acc_out", T.FLOAT, [2])])
    graph = h.make_graph(
        [h.make_node("Loop", ["trips", "cond", "start"], ["out"], name="the_loop", body=body)],
        "main",
        [h.make_tensor_value_info("trips", T.INT64, []), h.make_tensor_value_info("cond", T.BOOL, []),
         h.make_tensor_value_info("start", T.FLOAT, [2])],
        [h.make_tensor_value_info("out", T.FLOAT, [2])],
        initializer=[h.make_tensor("step", T.FLOAT, [2], [1.0, -2.0]), h.make_tensor("two", T.FLOAT, [], [2.0]),
                     h.make_tensor("two_i", T.INT64, [], [2]), h.make_tensor("zero_i", T.INT64, [], [0])])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 17)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, str(path))
    return str(path)


def _press(qtbot, window, key, modifiers=Qt.NoModifier) -> str:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=10_000)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, key, modifiers)
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)
    return window.statusBar().currentMessage()


def test_a_breakpoint_in_a_loop_says_which_iteration_it_stopped_in(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_if_in_loop(tmp_path / "if_in_loop.onnx"))
    r = window.run_ui
    c = r.controller
    r.inputs.set_source("trips", "constant", value=4)
    r.inputs.set_source("cond", "ones")
    r.inputs.set_source("start", "zeros")
    loop = window.model.graph.nodes[0]
    body = loop.subgraphs()[0][1]
    accumulate = next(n for n in body.nodes if n.name == "accumulate")
    choose = next(n for n in body.nodes if n.op_type == "If")
    then_double = dict(choose.subgraphs())["then_branch"].nodes[0]
    c.toggle_breakpoint(accumulate)
    c.toggle_breakpoint(then_double)

    stops = [_press(qtbot, window, Qt.Key_F5) for _ in range(5)]
    assert stops == ['Stopped at breakpoint Add "accumulate" (iteration 0)',
                     'Stopped at breakpoint Mul "then_double" (iteration 0)',
                     'Stopped at breakpoint Add "accumulate" (iteration 1)',
                     'Stopped at breakpoint Add "accumulate" (iteration 2)',
                     # the then branch's second run, in the loop's third iteration
                     'Stopped at breakpoint Mul "then_double" (iteration 2)']
    assert c.debug.current is then_double
    # What it is about to double is the third iteration's sum: [1, -2] doubled, plus step, negated, plus step.
    np.testing.assert_array_equal(c.debug.value_of("acc_sum", body), [-2.0, 4.0])
    assert "(iteration 2)" in r.dock_widget.status.text()

    # Run to a node of the body (Ctrl+F10 on it): the iteration it stopped in.
    c.toggle_breakpoint(accumulate)
    c.toggle_breakpoint(then_double)
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)      # start again
    c.run_to(accumulate)
    assert c.wait(300_000)
    wait_idle(qtbot, window)
    assert window.statusBar().currentMessage() == 'Stopped before Add "accumulate" (iteration 0)'
