"""core.exec.debug: the debug run shared by the app and `onnxstudio run`."""
import numpy as np
import pytest

from shared_models import SHARED_MODELS
from onnxstudio.core import load
from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetAttribute
from onnxstudio.core.exec import Cancelled, ExecError, run
from onnxstudio.core.exec.debug import DebugRun, boundary_feeds
from onnxstudio.core.ir import AttrType
from onnxstudio.core.ir.nesting import top_level_node
from onnxstudio.resources import sample_path


def demo_feeds(batch=1, seed=0):
    x = np.random.default_rng(seed).standard_normal((batch, 3, 32, 32)).astype(np.float32)
    return {"pixels": x, "use_softmax": np.array(True)}


def test_run_equals_the_executor():
    model = load(sample_path("demo.onnx"))
    feeds = demo_feeds()
    out = DebugRun(model).run(feeds)
    ref = run(load(sample_path("demo.onnx")), feeds)
    assert out.keys() == ref.keys()
    for k in ref:
        np.testing.assert_array_equal(out[k], ref[k])


def test_steps_keep_every_value_and_stop_at_breakpoints():
    model = load(sample_path("demo.onnx"))
    nodes = list(model.graph.nodes)
    d = DebugRun(model)
    d.start(demo_feeds())
    assert d.current is nodes[0]
    seen = [d.step().node for _ in range(3)]
    assert seen == nodes[:3]
    for n in nodes[:3]:
        for v in n.outputs:
            assert d.value_of(v) is not None
    assert d.value_of(nodes[3].outputs[0]) is None
    d.breakpoints.add(nodes[6])
    ev = d.resume()
    assert ev.reason == "breakpoint" and d.current is nodes[6] and ev.node is nodes[5]
    ev = d.resume()
    assert ev.reason == "done" and d.done
    ref = run(load(sample_path("demo.onnx")), demo_feeds())
    for k, v in ref.items():
        np.testing.assert_array_equal(d.values[k], v)


def test_step_into_an_if_body_walks_its_nodes():
    model = load(sample_path("demo.onnx"))
    d = DebugRun(model)
    d.start(demo_feeds())
    if_node = list(model.graph.nodes)[-1]
    d.run_to(if_node)
    assert d.current is if_node
    d.step(into=True)
    body = if_node.attributes["then_branch"].value      # use_softmax is True
    inside = d.current
    assert inside is not None and inside.graph is body
    ev = d.step()
    assert ev.graph is body and ev.iteration == 0
    for v in inside.outputs:
        assert d.value_of(v) is not None        # keyed by the body's value
    while not d.done:
        d.step()
    assert d.current is None


def test_silero_vad_steps_into_nested_bodies():
    folder = SHARED_MODELS / "silero_vad"
    model = load(folder / "model.onnx")
    with np.load(folder / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    d = DebugRun(model)
    d.start(feeds)
    if0 = [n for n in model.graph.nodes if n.op_type == "If"][0]
    lstms = [n for g in model.graph.walk() for n in g.nodes if n.op_type == "LSTM"]
    d.breakpoints.update(lstms)          # in both branches: the data decides which one runs
    ev = d.resume()
    assert ev.reason == "breakpoint" and d.current in lstms
    lstm = d.current
    assert top_level_node(lstm, model.graph) is if0 and lstm.graph.parent_graph is not model.graph
    ev = d.step()
    assert ev.node is lstm and all(d.value_of(v) is not None for v in lstm.outputs if v is not None)
    d.breakpoints.clear()
    d.resume()
    ref = run(load(folder / "model.onnx"), feeds)
    for k, v in ref.items():
        np.testing.assert_allclose(d.values[k], v)


def test_step_into_a_loop_shows_each_iteration(tmp_path):
    import sys
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent.parent / "ui"))
    from loop_model import BODY_NODE, write_loop_model
    model = load(write_loop_model(tmp_path / "loop.onnx"))
    d = DebugRun(model)
    d.start({"trips": np.array(3), "cond": np.array(True), "start": np.zeros(2, np.float32)})
    body_node = next(n for g in model.graph.walk() for n in g.nodes if n.name == BODY_NODE)
    d.breakpoints.add(body_node)
    sums = []
    while True:
        ev = d.resume()
        if ev.reason != "breakpoint":
            break
        ev = d.step()
        sums.append(d.value_of(body_node.outputs[0]).tolist())
        assert ev.iteration == len(sums) - 1
    assert sums == [[1, 2], [2, 4], [3, 6]]
    assert d.values["out"].tolist() == [3, 6]


def test_break_on_first_nan():
    model = load(sample_path("demo.onnx"))
    feeds = demo_feeds()
    feeds["pixels"][0, 0, 5, 5] = np.nan
    d = DebugRun(model)
    d.break_on_nonfinite = True
    d.start(feeds)
    ev = d.resume()                    # the input itself is flagged first, before any node runs
    assert ev.reason == "nonfinite" and ev.node is None and ev.nonfinite == ["pixels"]
    assert d.nonfinite_inputs == ["pixels"] and d.position == 0 and not d.nodes_run
    ev = d.resume()
    assert ev.reason == "nonfinite" and ev.node is list(model.graph.nodes)[0]
    assert d.nonfinite[ev.node]


def test_selection_takes_the_last_runs_values_else_random():
    model = load(sample_path("demo.onnx"))
    nodes = list(model.graph.nodes)
    d = DebugRun(model)
    d.run(demo_feeds())
    before = d.values[nodes[4].outputs[0].name].copy()
    d.run({}, nodes=nodes[3:5])
    assert d.nodes_run == nodes[3:5]
    np.testing.assert_allclose(d.values[nodes[4].outputs[0].name], before)
    fresh = DebugRun(load(sample_path("demo.onnx")))
    sel = list(fresh.model.graph.nodes)[6:9]
    fresh.run({}, nodes=sel)          # nothing known: random boundary of the inferred type
    logits = sel[-1].outputs[0].name
    assert fresh.values[logits].shape == d.values[logits].shape


def test_boundary_feeds_prefix_run():
    model = load(sample_path("demo.onnx"))
    nodes = list(model.graph.nodes)
    name = nodes[3].inputs[0].name
    got = boundary_feeds(model, [name], given=demo_feeds())
    ref = run(load(sample_path("demo.onnx")), demo_feeds(), keep=True)
    np.testing.assert_array_equal(got.feeds[name], ref[name])


def test_an_edit_invalidates_exactly_downstream_and_rerun_computes_only_that():
    doc = Document.open(sample_path("demo.onnx"))
    model = doc.model
    nodes = list(model.graph.nodes)
    d = DebugRun(model)
    doc.subscribe(lambda ev: d.invalidate(ev.changes))
    feeds = demo_feeds()
    d.run(feeds)
    assert len(d.nodes_run) == len(nodes)
    pool = nodes[5]                                   # stage2 MaxPool
    doc.apply(SetAttribute(pool.name, "kernel_shape", AttrType.INTS, [3, 3]))
    kept = {v.name for n in nodes[:5] for v in n.outputs}
    gone = {v.name for n in nodes[5:] for v in n.outputs}
    assert kept <= set(d.values) and not gone & set(d.values)
    out = d.run(feeds)
    assert d.nodes_run == nodes[5:]
    ref = run(model, feeds)
    for k, v in ref.items():
        np.testing.assert_allclose(out[k], v)
    d.run(feeds)
    assert d.nodes_run == []                          # nothing stale: nothing to run


def test_failures_keep_the_values_so_far_and_cancel_stops():
    model = load(sample_path("demo.onnx"))
    d = DebugRun(model)
    feeds = demo_feeds()
    feeds["pixels"] = feeds["pixels"][:, :2]          # wrong channel count
    with pytest.raises(Exception):
        d.run(feeds)
    d = DebugRun(model)
    calls = []

    def progress(i, n, node):
        calls.append((i, n))
        if i == 2:
            d.cancel()
    d.progress = progress
    with pytest.raises(Cancelled):
        d.run(demo_feeds())
    assert calls[0] == (0, 10) and len(calls) == 3
    assert list(model.graph.nodes)[1].outputs[0].name in d.values


def test_kernel_failure_names_the_node():
    model = load(sample_path("demo.onnx"))
    d = DebugRun(model)
    d.start(demo_feeds())
    d.step()
    conv2 = list(model.graph.nodes)[3]
    d.values.clear()
    d.session._frame.values[conv2.inputs[1].name] = np.zeros((4, 4, 4, 4), np.float32)
    d.run_to(conv2)
    with pytest.raises(ExecError, match="Conv"):
        d.step()
    assert d.error is not None and list(model.graph.nodes)[2].outputs[0].name in d.values


def test_can_reach_tells_what_is_still_ahead():
    model = load(sample_path("demo.onnx"))
    nodes = list(model.graph.nodes)
    d = DebugRun(model)
    assert not d.can_reach(nodes[0])
    d.start(demo_feeds())
    d.run_to(nodes[-1])
    body_node = list(nodes[-1].attributes["then_branch"].value.nodes)[0]
    assert d.can_reach(body_node) and d.can_reach(nodes[-1]) and not d.can_reach(nodes[3])
    d.step(into=True)
    assert d.can_reach(body_node) and not d.can_reach(nodes[-1])
