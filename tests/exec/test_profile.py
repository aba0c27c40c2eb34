"""Time per node: our executor's profiled runs, onnxruntime's profiles tied
back to the graph, two profiles compared, and `onnxstudio profile`."""
import json
import shutil

import numpy as np
import pytest
from onnx import helper

from onnxstudio import core
from onnxstudio.core.exec import Cancelled, Session
from onnxstudio.core.exec.ort_profile import profile_from_events, profile_with_onnxruntime, read_ort_profile
from onnxstudio.core.exec.profile import Profile, ProfileError, Profiler, profile_run
from onnxstudio.core.exec.profile_compare import compare_profiles
from shared_models import SHARED_MODELS

from one_graph import load_graph, tensor


def _shared(name):
    d = SHARED_MODELS / name
    return core.load(d / "model.onnx"), dict(np.load(d / "inputs.npz"))


def _matmul_add_relu(tmp_path):
    rng = np.random.default_rng(0)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"], name="mm"),
             helper.make_node("Add", ["p", "b"], ["q"], name="bias"),
             helper.make_node("Relu", ["q"], ["y"], name="relu")]
    inits = [("w", rng.standard_normal((64, 64)).astype(np.float32)),
             ("b", rng.standard_normal(64).astype(np.float32))]
    model = load_graph(tmp_path, nodes, [tensor("x", [32, 64])], [tensor("y", [32, 64])], inits)
    return model, {"x": rng.standard_normal((32, 64)).astype(np.float32)}


@pytest.mark.slow     # a few seconds on a busy machine: BLAS threads tried both ways, then 3 runs
def test_node_times_add_up_to_the_run_wall_time():
    model, feeds = _shared("bert_small")
    profile = profile_run(model, feeds, runs=3)
    assert profile.wall > 0
    assert abs(profile.total - profile.wall) <= 0.1 * profile.wall, (profile.total, profile.wall)
    # every node the repeated runs compute has a time; nodes of constants only have none
    plan = Session(model).plan
    live = {s.node.name for s in plan.live_steps}
    timed = {n.name for n in profile.nodes if n.seconds > 0}
    assert timed <= live and len(timed) > 0.9 * len(live)
    assert [n.node for n in profile.nodes] == list(model.graph.nodes)


def test_merged_units_share_their_time_and_say_with_whom(tmp_path):
    model, feeds = _matmul_add_relu(tmp_path)
    profile = profile_run(model, feeds, runs=2)
    by = {n.name: n for n in profile.nodes}
    assert by["mm"].merged == ("bias",) and by["bias"].merged == ("mm",)
    assert by["relu"].merged == ()
    assert all(by[k].seconds > 0 for k in by)
    assert any(note.startswith("1 merged unit computed 2 nodes together") for note in profile.notes)
    assert {t.op_type for t in profile.by_op()} == {"MatMul", "Add", "Relu"}
    assert profile.top_nodes(1)[0].seconds == max(n.seconds for n in profile.nodes)


def test_a_profiled_run_computes_what_a_run_computes(tmp_path):
    model, feeds = _matmul_add_relu(tmp_path)
    expected = Session(model).run(feeds)["y"]
    s = Session(model)
    s.run(feeds)
    runners = list(s.plan.runners)
    for merged in (True, False, True):
        outputs, times, wall = s.timed_run(feeds, merged=merged)
        np.testing.assert_array_equal(outputs["y"], expected)
        assert len(times) == (len(s.plan.runners) if merged else len(s.plan.live_steps))
        assert sum(times) <= wall
    # nothing of the profiled path stays behind: a plain run calls the same runners, unwrapped
    assert s.plan.runners == runners
    np.testing.assert_array_equal(s.run(feeds)["y"], expected)
    # the plan says which nodes each runner computes
    assert [[n.name for n in c] for c in s.plan.runner_nodes] == [["mm", "bias"], ["relu"]]


def test_progress_and_cancel(tmp_path):
    model, feeds = _matmul_add_relu(tmp_path)
    seen = []
    profiler = Profiler(model, runs=2)
    profiler.run(feeds, progress=lambda i, n, node: seen.append((i, n)))
    assert seen and all(i < n for i, n in seen)
    assert seen[-1][0] == seen[-1][1] - 1          # the last report is the last piece of all

    def cancel_at_fourth(i, n, node):
        if i == 3:
            profiler.cancel()
    profiler = Profiler(model, runs=2)
    with pytest.raises(Cancelled):
        profiler.run(feeds, progress=cancel_at_fourth)


def test_profile_json_round_trip_and_bad_json(tmp_path):
    model, feeds = _matmul_add_relu(tmp_path)
    profile = profile_run(model, feeds, runs=1)
    again = Profile.from_dict(json.loads(json.dumps(profile.to_dict())))
    assert [(n.name, n.op_type, n.seconds, n.merged) for n in again.nodes] == \
        [(n.name, n.op_type, n.seconds, n.merged) for n in profile.nodes]
    with pytest.raises(ProfileError, match="not a profile written by onnxstudio"):
        Profile.from_dict({"nodes": []}, "old.json")
    with pytest.raises(ProfileError, match="old.json: a profile with a missing"):
        Profile.from_dict({"format": "onnxstudio-profile-1", "nodes": [{"name": "a"}]}, "old.json")


def test_compare_profiles_per_node_and_op_type(tmp_path):
    model, feeds = _matmul_add_relu(tmp_path)
    before = profile_run(model, feeds, runs=1)
    after = Profile.from_dict(before.to_dict())
    for n in after.nodes:
        n.seconds = 0.5 if n.name == "relu" else n.seconds
    after.nodes.append(type(after.nodes[0])("extra", "Identity", 0.25))
    diff = compare_profiles(before, after)
    assert diff.nodes[0].name == "relu" and diff.nodes[0].after == 0.5
    assert diff.nodes[0].delta == pytest.approx(0.5 - before.nodes[2].seconds)
    ops = {d.op_type: d for d in diff.op_types}
    assert ops["Relu"].after == 0.5 and ops["Identity"].before == 0 and ops["Identity"].after == 0.25
    assert ops["MatMul"].delta == 0
    assert diff.only_after == ["extra"] and diff.only_before == []


# -- onnxruntime's profiles ---------------------------------------------------------------------

def test_onnxruntime_profile_of_bert_small_maps_to_the_graph(tmp_path, capsys):
    shutil.copytree(SHARED_MODELS / "bert_small", tmp_path / "bert_small")
    model = core.load(tmp_path / "bert_small" / "model.onnx")
    feeds = dict(np.load(tmp_path / "bert_small" / "inputs.npz"))
    profile = profile_with_onnxruntime(model, feeds, runs=2, folder=str(tmp_path))
    assert profile.source == "onnxruntime" and profile.runs == 2
    mapped, lost = profile.total, profile.unmapped_seconds
    assert mapped / (mapped + lost) >= 0.95, profile.unmapped[:5]
    # fused kernels (Gemm from MatMul+Add, SkipLayerNormalization, Gelu) cover several of our nodes
    by = {n.name: n for n in profile.nodes}
    dense = by["/m/encoder/layer.0/intermediate/dense/MatMul"]
    assert "/m/encoder/layer.0/intermediate/dense/Add" in dense.merged and dense.seconds > 0
    erf = by["/m/encoder/layer.0/intermediate/intermediate_act_fn/Erf"]
    assert erf.seconds > 0 and erf.merged                    # Gelu, named anew by onnxruntime
    # the files went where asked; read back without the optimised model, fewer kernels are tied
    written = sorted(tmp_path.glob("ort_profile*.json"))
    assert written and (tmp_path / "ort_optimized.onnx").exists()
    alone = read_ort_profile(written[0], model)
    assert alone.unmapped and any("optimised model" in note for note in alone.notes)
    assert alone.total < mapped
    # the command line reads the same files
    from onnxstudio import cli
    assert cli.main(["profile", str(tmp_path / "bert_small" / "model.onnx"), "--ort-profile", str(written[0]),
                     "--ort-model", str(tmp_path / "ort_optimized.onnx"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "onnxruntime" and data["unmapped_seconds"] < 0.05 * data["node_seconds"]


def test_onnxruntime_profile_of_another_model_is_refused(tmp_path):
    shutil.copytree(SHARED_MODELS / "bert_small", tmp_path / "bert_small")
    model = core.load(tmp_path / "bert_small" / "model.onnx")
    feeds = dict(np.load(tmp_path / "bert_small" / "inputs.npz"))
    profile_with_onnxruntime(model, feeds, runs=1, folder=str(tmp_path))
    path = sorted(tmp_path.glob("ort_profile*.json"))[0]
    other, _ = _matmul_add_relu(tmp_path)
    with pytest.raises(ProfileError,
                       match=r'one of the model \(graph "g"\): only 0% .*not found: .*profile this model'):
        read_ort_profile(path, other)


def test_bad_onnxruntime_profiles(tmp_path):
    model, _ = _matmul_add_relu(tmp_path)
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(ProfileError, match="bad.json: not JSON"):
        read_ort_profile(bad, model)
    with pytest.raises(ProfileError, match="cannot read"):
        read_ort_profile(tmp_path / "missing.json", model)
    with pytest.raises(ProfileError, match="not an onnxruntime profile"):
        profile_from_events({"a": 1}, model)
    with pytest.raises(ProfileError, match="no kernel events"):
        profile_from_events([{"cat": "Session", "name": "model_run", "ts": 0, "dur": 5}], model)


def test_event_names_tie_by_name_and_by_fusion_prefix(tmp_path):
    model, _ = _matmul_add_relu(tmp_path)

    def kernel(name, op, ts, dur):
        return {"cat": "Node", "name": name + "_kernel_time", "ts": ts, "dur": dur, "args": {"op_name": op}}
    events = [{"cat": "Session", "name": "model_run", "ts": 0, "dur": 100},
              kernel("mm", "MatMul", 1, 1000),                         # the warm-up: left out
              {"cat": "Session", "name": "model_run", "ts": 200, "dur": 60},
              kernel("mm/MatMulAddFusion", "Gemm", 201, 40),
              kernel("relu", "Relu", 250, 10),
              kernel("Mystery_token_3", "Mystery", 262, 2)]
    p = profile_from_events(events, model)
    by = {n.name: n for n in p.nodes}
    assert p.runs == 1 and p.wall == pytest.approx(60e-6)
    assert by["mm"].seconds == pytest.approx(40e-6) and by["relu"].seconds == pytest.approx(10e-6)
    assert p.unmapped == [("Mystery_token_3", "Mystery", pytest.approx(2e-6))]
    assert any("warm-up" in note for note in p.notes)
    # a kernel inside another one's time on its thread (a body's node) is the holder's time already
    nested = events + [kernel("If_0_then_branch__Inline_0__/x", "Relu", 252, 5)]
    for e in nested:
        e["tid"] = 7
    p = profile_from_events(nested, model)
    by = {n.name: n for n in p.nodes}
    assert p.unmapped == [("Mystery_token_3", "Mystery", pytest.approx(2e-6))]
    assert by["relu"].seconds == pytest.approx(10e-6) and by["mm"].seconds == pytest.approx(40e-6)
    assert any(note.startswith("1 kernel events ran inside another kernel") for note in p.notes)


# -- the command line ---------------------------------------------------------------------------

@pytest.mark.slow
def test_cli_prints_top_nodes_and_op_types_and_compares(tmp_path, capsys):
    from onnxstudio import cli
    model_path = SHARED_MODELS / "bert_small" / "model.onnx"
    inputs = SHARED_MODELS / "bert_small" / "inputs.npz"
    assert cli.main(["profile", str(model_path), "--load-inputs", str(inputs), "--runs", "1", "--json"]) == 0
    saved = tmp_path / "before.json"
    saved.write_text(capsys.readouterr().out)
    data = json.loads(saved.read_text())
    assert data["source"] == "onnxstudio" and data["op_types"][0]["share"] > 0
    assert abs(sum(n["share"] for n in data["nodes"]) - 1) < 1e-6
    assert cli.main(["profile", str(model_path), "--load-inputs", str(inputs), "--runs", "1", "--top", "3",
                     "--compare", str(saved)]) == 0
    out = capsys.readouterr().out
    assert "slowest nodes" in out and "op types:" in out and "MatMul" in out
    assert "compared with the earlier profile" in out and "by op type:" in out
    lines = out.split("slowest nodes")[1].split("op types:")[0].strip().splitlines()
    assert len(lines) == 1 + 1 + 3          # the count line, the heading, three nodes


def test_cli_bad_input(tmp_path, capsys):
    from onnxstudio import cli
    model_path = str(SHARED_MODELS / "bert_small" / "model.onnx")
    assert cli.main(["profile", model_path]) == 2
    assert "no value for inputs input_ids" in capsys.readouterr().err
    assert cli.main(["profile", model_path, "--random", "--runs", "0"]) == 2
    assert "--runs 0" in capsys.readouterr().err
    (tmp_path / "x.json").write_text("[]")
    assert cli.main(["profile", model_path, "--compare", str(tmp_path / "x.json")]) == 2
    assert "not a profile written by onnxstudio" in capsys.readouterr().err
    assert cli.main(["profile", model_path, "--ort-profile", str(tmp_path / "x.json")]) == 2
    assert "no kernel events" in capsys.readouterr().err
    assert cli.main(["profile", str(tmp_path / "none.onnx"), "--random"]) == 2
    assert "none.onnx" in capsys.readouterr().err
