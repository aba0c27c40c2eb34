"""The executor's session: shared models, subgraph runs, stepping, cancel, errors."""
import json
import threading

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec import Cancelled, ExecError, FeedError, Session, run
from onnxstudio.resources import sample_path


def _expected(model_dir):
    out = dict(np.load(model_dir / "expected_outputs.npz", allow_pickle=False))
    j = model_dir / "expected_outputs.json"
    if j.exists():
        out.update(json.loads(j.read_text()))
    return out


def _close(got, expected) -> bool:
    if isinstance(expected, list):      # e.g. ZipMap: a list of maps
        return len(got) == len(expected) and all(
            set(map(str, g)) == set(e) and all(np.isclose(g[k], e[str(k)], rtol=1e-3, atol=1e-4) for k in g)
            for g, e in zip(got, expected))
    got = np.asarray(got)
    return got.shape == expected.shape and np.allclose(got, expected, rtol=1e-3, atol=1e-4)


def test_shared_models_match_onnxruntime(shared_model_dir):
    m = core.load(shared_model_dir / "model.onnx")
    feeds = dict(np.load(shared_model_dir / "inputs.npz"))
    out = run(m, feeds)
    expected = _expected(shared_model_dir)
    assert set(expected) <= set(out)
    for name, value in expected.items():
        assert _close(out[name], value), name


def test_stepping_gives_the_same_outputs_as_run(shared_model_dir):
    m = core.load(shared_model_dir / "model.onnx")
    feeds = dict(np.load(shared_model_dir / "inputs.npz"))
    whole = run(m, feeds)
    s = Session(m)
    s.start(feeds)
    seen = []
    while not s.done:
        r = s.step()
        seen.append(r.node)
        assert r.index == len(seen) - 1
    assert seen == list(m.graph.nodes)
    for name, value in s.results().items():
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, whole[name])


def test_selected_nodes_reproduce_the_full_run():
    m = core.load(sample_path())
    feeds = {"pixels": np.random.default_rng(0).standard_normal((2, 3, 32, 32)).astype(np.float32),
             "use_softmax": np.array(True)}
    full = run(m, feeds, keep=True)
    chosen = ["/backbone/stage2/conv/Conv", "/backbone/stage2/act/Swish", "/backbone/stage2/pool/MaxPool"]
    s = Session(m, nodes=chosen)
    assert s.input_names == ["/backbone/stage1/pool_out"]
    assert s.output_names == ["/backbone/stage2/pool_out"]
    part = s.run({"/backbone/stage1/pool_out": full["/backbone/stage1/pool_out"]})
    assert np.array_equal(part["/backbone/stage2/pool_out"], full["/backbone/stage2/pool_out"])
    # a selection containing the If: its body reads `logits` from the outer scope
    s2 = Session(m, nodes=["/head/choose_activation"])
    assert s2.input_names == ["use_softmax", "logits"]
    got = s2.run({"use_softmax": feeds["use_softmax"], "logits": full["logits"]})
    assert np.array_equal(got["probs"], full["probs"])


def test_breakpoints_and_run_to():
    m = core.load(sample_path())
    feeds = {"pixels": np.zeros((1, 3, 32, 32), np.float32), "use_softmax": np.array(False)}
    s = Session(m, keep=True)
    s.breakpoints.add("/head/Flatten")
    s.start(feeds)
    s.resume()
    assert s.plan.steps[s.position].node.name == "/head/Flatten"   # stopped before it
    assert "/head/gap_out" in s.values and "/head/flat" not in s.values
    r = s.run_to("/head/fc/Gemm")
    assert r.node.name == "/head/fc/Gemm" and "logits" in r.outputs
    s.resume()
    assert s.done and set(s.results()) == {"logits", "probs"}


def _long_loop_model(trips=10**7):
    body = helper.make_graph(
        [helper.make_node("Add", ["x_in", "one"], ["x_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("x_in", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("x_out", TensorProto.FLOAT, [1])],
        [helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0])])
    g = helper.make_graph(
        [helper.make_node("Loop", ["n", "c", "x0"], ["x"], body=body)], "g",
        [helper.make_tensor_value_info("x0", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor("n", TensorProto.INT64, [], [trips]),
         helper.make_tensor("c", TensorProto.BOOL, [], [True])])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


def test_cancel_from_another_thread_stops_a_long_run():
    m = _long_loop_model()
    s = Session(m)
    result = {}

    def work():
        try:
            s.run({"x0": np.zeros(1, np.float32)})
            result["outcome"] = "finished"
        except Cancelled:
            result["outcome"] = "cancelled"

    # Cancel once the run is in its loop: a cancel before it starts is forgotten
    # (start() clears it), which a fixed sleep left to the machine's load.
    looping = threading.Event()
    s.progress = lambda i, n, node: looping.set()
    t = threading.Thread(target=work)
    t.start()
    assert looping.wait(120)
    s.cancel()
    t.join(timeout=120)
    assert not t.is_alive() and result["outcome"] == "cancelled"


def test_loop_counts():
    assert run(_long_loop_model(25), {"x0": np.zeros(1, np.float32)})["x"][0] == 25


def test_feeds_are_validated_with_clear_messages():
    m = core.load(sample_path())
    good = np.zeros((2, 3, 32, 32), np.float32)
    with pytest.raises(FeedError, match=r'input "pixels": expected float\[batch,3,32,32\], got double\[3,32,32\]'):
        run(m, {"pixels": np.zeros((3, 32, 32)), "use_softmax": np.array(True)})
    with pytest.raises(FeedError, match=r"dimension 1 is 4, not 3"):
        run(m, {"pixels": np.zeros((2, 4, 32, 32), np.float32), "use_softmax": np.array(True)})
    with pytest.raises(FeedError, match='missing input "use_softmax"'):
        run(m, {"pixels": good})
    with pytest.raises(FeedError, match='unknown input "extra"'):
        run(m, {"pixels": good, "use_softmax": np.array(True), "extra": good})


def test_kernel_failures_name_the_node_and_inputs():
    g = helper.make_graph([helper.make_node("MatMul", ["a", "b"], ["y"], name="mm")], "g",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, None),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, None)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    with pytest.raises(ExecError) as e:
        run(m, {"a": np.zeros((2, 3), np.float32), "b": np.zeros((4, 5), np.float32)})
    msg = str(e.value)
    assert 'graph/node[0] MatMul "mm": MatMul failed' in msg and "a: float[2,3]" in msg and "b: float[4,5]" in msg


def test_missing_kernel_is_reported_before_running():
    g = helper.make_graph([helper.make_node("Frobnicate", ["a"], ["y"], name="f", domain="com.example")], "g",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, None)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18),
                                                            helper.make_opsetid("com.example", 1)]).SerializeToString())
    with pytest.raises(ExecError, match=r'node\[0\] Frobnicate "f".*no kernel for com.example::Frobnicate') as e:
        Session(m)
    assert "com.example is not an ONNX standard domain" in str(e.value)


def test_the_executor_knows_the_standard_domains():
    """core/exec keeps its own copy so that it does not load the signature table."""
    from onnxstudio.core.exec.plan import _STANDARD_DOMAINS
    from onnxstudio.core.schemas import KNOWN_DOMAINS
    assert _STANDARD_DOMAINS == set(KNOWN_DOMAINS)


def test_random_ops_are_seeded():
    g = helper.make_graph([helper.make_node("RandomNormal", [], ["y"], shape=[4])], "g", [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    a, b = run(m, {}, seed=1)["y"], run(m, {}, seed=1)["y"]
    c = run(m, {}, seed=2)["y"]
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_intermediates_are_freed_unless_kept():
    m = core.load(sample_path())
    feeds = {"pixels": np.zeros((1, 3, 32, 32), np.float32), "use_softmax": np.array(True)}
    s = Session(m)
    s.run(feeds)
    assert "/backbone/stage1/conv_out" not in s.values
    s = Session(m, keep=True)
    s.run(feeds)
    assert "/backbone/stage1/conv_out" in s.values
