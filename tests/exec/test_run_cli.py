"""`onnxstudio run`: inputs from files or random, selections, outputs, exit codes."""
import subprocess
import sys

import numpy as np
import pytest

from shared_models import SHARED_MODELS
from onnxstudio.resources import sample_path

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "onnxstudio", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_random_inputs_and_output_files(tmp_path):
    r = _cli(sample_path(), "--random", "--seed", "3", "--dim", "batch=2", "-o", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "logits: float[2,10]" in r.stdout and "probs: float[2,10]" in r.stdout and "mean" in r.stdout
    assert np.load(tmp_path / "probs.npy").shape == (2, 10)


def test_inputs_from_npz_match_expected_outputs(tmp_path):
    d = SHARED_MODELS / "bert_small"
    r = _cli(d / "model.onnx", "--input", d / "inputs.npz", "-o", tmp_path, "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    expected = np.load(d / "expected_outputs.npz")
    got = np.load(tmp_path / "last_hidden_state.npy")
    assert np.allclose(got, expected["last_hidden_state"], rtol=1e-3, atol=1e-4)
    assert "compared with onnxruntime" in r.stdout and "max abs error" in r.stdout


def test_selection_by_values_computes_its_inputs_from_the_model_inputs(tmp_path):
    x = np.random.default_rng(1).standard_normal((1, 3, 32, 32)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "flag.npy", np.array(True))
    full = tmp_path / "full"
    part = tmp_path / "part"
    assert _cli(sample_path(), "-i", f"pixels={tmp_path / 'x.npy'}", "-i", f"use_softmax={tmp_path / 'flag.npy'}",
                "--keep-intermediates", "-o", full).returncode == 0
    r = _cli(sample_path(), "-i", f"pixels={tmp_path / 'x.npy'}", "-i", f"use_softmax={tmp_path / 'flag.npy'}",
             "--from", "/backbone/stage2/conv_out", "--to", "/backbone/stage2/pool_out", "-o", part)
    assert r.returncode == 0, r.stderr
    assert "ran 2 nodes" in r.stdout
    a = np.load(part / "backbone_stage2_pool_out.npy")
    assert np.array_equal(a, np.load(full / "backbone_stage2_pool_out.npy"))


@pytest.mark.parametrize("args,code,needle", [
    (["--input", "pixels=/nonexistent.npy"], 2, "no such file"),
    ([], 2, 'missing inputs "pixels", "use_softmax"'),
    (["--nodes", "not_a_node", "--random"], 2, "--nodes 'not_a_node': no node of that name"),
    (["--nodes", "/backbone/stage2/conv/conv", "--random"], 2, "did you mean '/backbone/stage2/conv/Conv'"),
    (["--from", "pixel", "--to", "probs", "--random"], 2, "--from 'pixel': no value of that name"),
    (["--from", "pixels", "--to", "prob", "--random"], 2, "did you mean 'probs'"),
    (["--nodes", ",", "--random"], 2, "--nodes: give at least one name"),
    (["--random", "--seed", "-1"], 2, "--seed -1: the seed must be a whole number, 0 or more"),
    (["--random", "--nodes", "/head/fc/Gemm", "--compare-onnxruntime"], 2, "compares whole-model runs only"),
    (["--random", "--rtol", "1e-2"], 2, "--rtol sets the onnxruntime comparison: add --compare-onnxruntime"),
    (["--random", "--compare-onnxruntime", "--atol", "-1"], 2, "--atol -1: a tolerance is a number, 0 or more"),
    (["--random", "--compare-onnxruntime", "--tolerance", "prob=1e-2,1e-3"], 2, "did you mean 'probs'"),
    (["--random", "--compare-onnxruntime", "--tolerance", "probs=1e-2"], 2, "expected NAME=RTOL,ATOL"),
    (["--random", "--compare-onnxruntime", "--ort-provider", "NoSuchProvider"], 2,
     "--ort-provider 'NoSuchProvider': onnxruntime has no such execution provider here; choose one of"),
    (["--random", "--save-inputs", "inputs.npy"], 2, "--save-inputs inputs.npy: name the file FILE.npz"),
    (["--random", "--save-values", "/nonexistent/v.npz"], 2, "the folder /nonexistent does not exist"),
    (["--load-inputs", "/nonexistent.npz"], 2, "/nonexistent.npz: no such file"),
    (["--load-inputs", "/nonexistent.json"], 2, "--load-inputs /nonexistent.json: no such file"),
])
def test_errors_have_exit_codes_and_one_line(args, code, needle):
    r = _cli(sample_path(), *args)
    assert r.returncode == code, r.stderr
    assert needle in r.stderr and "Traceback" not in r.stderr


def _gather_model(path, table_through_identity: bool):
    """ids -> Gather from a one-row table, the table an initializer or (when
    `table_through_identity`) an Identity of one, which no default reads."""
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Gather", ["t" if table_through_identity else "table", "ids"], ["rows"],
                              name="lookup")]
    if table_through_identity:
        nodes.insert(0, helper.make_node("Identity", ["table"], ["t"], name="copy"))
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [16])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [16, 2])],
        initializer=[helper.make_tensor("table", TensorProto.FLOAT, [1, 2], [1.0, 2.0])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return path


def test_a_failure_on_random_inputs_names_them(tmp_path):
    """Random integers are 0 or 1, so a one-row table indexed by them fails
    on some seed, and the error says the inputs were made up. Ids into a
    constant table are made below its size, as in the app: they run."""
    path = _gather_model(tmp_path / "gather.onnx", table_through_identity=True)
    r = _cli(path, "--random")
    assert r.returncode == 1, r.stderr
    assert 'node[1] Gather "lookup"' in r.stderr and "random values were used for ids" in r.stderr
    assert "Traceback" not in r.stderr
    ones = tmp_path / "ids.npy"
    np.save(ones, np.zeros(16, np.int64))
    r = _cli(path, "-i", f"ids={ones}")
    assert r.returncode == 0 and "rows: float[16,2]" in r.stdout, r.stderr
    direct = _gather_model(tmp_path / "embedding.onnx", table_through_identity=False)
    r = _cli(direct, "--random", "--save-inputs", tmp_path / "ids.npz")
    assert r.returncode == 0 and "rows: float[16,2]" in r.stdout, r.stderr
    assert not np.load(tmp_path / "ids.npz")["ids"].any()


def _paddle_style_classifier(path):
    """An input the way Paddle exports write one: -1 for the batch and the
    symbolic name "?" on both image axes; a 2x2 pooling needs at least 2x2."""
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3, "?", "?"])
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
         helper.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
         helper.make_node("Flatten", ["g"], ["y"], name="flat")], "paddle_like",
        [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]).SerializeToString())
    return path


def test_negative_and_question_mark_dims_mean_any_size(tmp_path):
    path = _paddle_style_classifier(tmp_path / "paddle.onnx")
    # Each "?" axis is sized on its own (by INPUT[AXIS]), and -1 accepts any batch.
    r = _cli(path, "--random", "--dim", "x[0]=2", "--dim", "x[2]=4", "--dim", "x[3]=6", "-o", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "y: float[2,3]" in r.stdout
    np.save(tmp_path / "x.npy", np.ones((5, 3, 8, 12), np.float32))
    r = _cli(path, "-i", f"x={tmp_path / 'x.npy'}")
    assert r.returncode == 0, r.stderr
    assert "y: float[5,3]" in r.stdout


def test_random_inputs_of_unknown_size_say_which_dims_were_guessed(tmp_path):
    path = _paddle_style_classifier(tmp_path / "paddle.onnx")
    r = _cli(path, "--random")
    # The unknown image axes are made 1: a 1x1 image pooled 2x2 gives the one
    # value its window holds, as onnxruntime does (41abbad; the floor of the
    # spec's formula left nothing and the run gave NaN), without numpy's warnings.
    assert r.returncode == 0, r.stderr
    assert "y: float[1,3]  min " in r.stdout and "NaN" not in r.stdout
    assert "Warning" not in r.stderr, r.stderr
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="to_rows")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, None])],
        initializer=[helper.make_tensor("shape", TensorProto.INT64, [2], [4, -1])])
    path = tmp_path / "rows.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    r = _cli(path, "--random")
    assert r.returncode == 1
    assert "dimensions of unknown size were made 1 (n, x[1]): give sizes with --dim" in r.stderr, r.stderr
    assert _cli(path, "--random", "--dim", "n=2", "--dim", "x[1]=6").returncode == 0


def test_a_bad_dim_size_is_refused():
    r = _cli(sample_path(), "--random", "--dim", "batch=-3")
    assert r.returncode == 2 and "--dim batch=-3: the size must be a whole number, 0 or more" in r.stderr


def test_nan_on_both_sides_agrees_with_onnxruntime(tmp_path):
    path = _paddle_style_classifier(tmp_path / "paddle.onnx")
    np.save(tmp_path / "x.npy", np.full((1, 3, 4, 4), np.nan, np.float32))
    r = _cli(path, "-i", f"x={tmp_path / 'x.npy'}", "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    assert "y: max abs error 0, max rel error 0" in r.stdout and "one side" not in r.stdout


def test_a_damaged_initializer_is_named_not_a_crash(tmp_path):
    """Data shorter than its dims (a damaged file): the run stops with one
    line naming the tensor, exit 2, as for any unreadable input."""
    from onnx import TensorProto, helper
    short = helper.make_tensor("weights", TensorProto.FLOAT, [4], [1.0, 2.0, 3.0, 4.0])
    del short.float_data[3]
    graph = helper.make_graph([helper.make_node("Add", ["x", "weights"], ["y"], name="add")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], initializer=[short])
    path = tmp_path / "damaged.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    r = _cli(path, "--random")
    assert r.returncode == 2, r.stderr
    assert "tensor 'weights': 3 stored elements but dims [4] need 4" in r.stderr
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1


def test_compare_sequence_of_maps_element_wise():
    """skl_logreg_pipeline's ZipMap output (a sequence of maps) differs from
    onnxruntime's by float rounding only: it agrees, as a tensor would."""
    d = SHARED_MODELS / "skl_logreg_pipeline"
    r = _cli(d / "model.onnx", "--input", d / "inputs.npz", "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  output_probability: max abs"))
    assert line.endswith("- agrees") and "DIFFERENT" not in r.stdout, r.stdout
    assert "first divergent node: none (5 of 5 nodes agree)" in r.stdout


def test_compare_relative_error_is_relative_to_the_outputs_scale():
    """ppocr's sigmoid output has elements of 1e-20 next to 8e-6; an error
    of 1e-7 must not read as a relative error of 1e+05, and the line says
    which element it is."""
    d = SHARED_MODELS / "ppocr_v4_det"
    r = _cli(d / "model.onnx", "--input", d / "inputs.npz", "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  sigmoid_0.tmp_0: max abs"))
    rel = float(line.split("max rel error ")[1].split()[0])
    assert rel < 0.1, line
    assert " at [0,0," in line and "onnxruntime " in line and line.endswith("- agrees")


def test_compare_prints_the_first_divergence_and_a_node_table_and_json():
    r = _cli(sample_path(), "--random", "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    assert "first divergent node: none (10 of 10 nodes agree)" in r.stdout
    assert "per node (graph order):" in r.stdout and 'Gemm "/head/fc/Gemm"' in r.stdout
    r = _cli(sample_path(), "--random", "--compare-onnxruntime", "--json")
    assert r.returncode == 0, r.stderr
    import json
    data = json.loads(r.stdout)
    assert data["comparison"]["first_divergence"] is None
    assert [n["name"] for n in data["comparison"]["nodes"]][:2] == ["/backbone/stage1/conv/Conv",
                                                                  "/backbone/stage1/act/Swish"]
    assert data["outputs"] == {"logits": "float[1,10]", "probs": "float[1,10]"}


def test_output_dir_under_a_file_is_the_users_input(tmp_path):
    f = tmp_path / "a_file"
    f.write_text("x")
    r = _cli(sample_path(), "--random", "-o", f / "out")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and "a part of that path is a file" in r.stderr and str(f) in r.stderr
    assert "internal error" not in r.stderr
    r = _cli(sample_path(), "--random", "-o", f)
    assert r.returncode == 2 and "is a file, not a folder" in r.stderr


def test_an_unwritable_output_dir_is_the_users_input(tmp_path, monkeypatch, capsys):
    from onnxstudio import cli
    from onnxstudio.commands import run as run_command
    # Tests may run as root, where chmod does not stop writing: say "not writable" through os.access.
    monkeypatch.setattr(run_command.os, "access", lambda path, mode: False)
    code = cli.main(["run", str(sample_path()), "--random", "-o", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "the folder is not writable" in err and err.count("\n") == 1


def test_selected_nodes_take_random_boundary_inputs_of_inferred_type():
    """The Softmax's input is an intermediate the file gives no type for."""
    d = SHARED_MODELS / "bert_small"
    r = _cli(d / "model.onnx", "--nodes", "/m/encoder/layer.0/attention/self/Softmax", "--random")
    assert r.returncode == 0, r.stderr
    assert "ran 1 node in" in r.stdout and "Softmax_output_0: float[1,4,128,128]" in r.stdout


def test_silero_vad_runs_on_random_inputs():
    """--random gives sr the rate the model compares it with, the state
    zeros and the samples a length the model's window runs on, as the app."""
    r = _cli(SHARED_MODELS / "silero_vad" / "model.onnx", "--random")
    assert r.returncode == 0, r.stderr
    assert "output: float[1,1]" in r.stdout and "stateN: float[2,1,128]" in r.stdout


def test_a_saved_run_reloaded_gives_the_same_outputs(tmp_path):
    """--save-inputs and --save-values write one .npz each, keyed by the
    values' own names ("/backbone/..."); --load-inputs runs them again."""
    first, again = tmp_path / "first", tmp_path / "again"
    r = _cli(sample_path(), "--random", "--seed", "5", "--dim", "batch=2", "--save-inputs", tmp_path / "in.npz",
             "--save-values", tmp_path / "values.npz", "-o", first)
    assert r.returncode == 0, r.stderr
    assert f"wrote 2 inputs to {tmp_path / 'in.npz'}" in r.stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["first", "in.npz", "values.npz"]   # nothing left beside
    with np.load(tmp_path / "in.npz") as saved:
        assert sorted(saved.files) == ["pixels", "use_softmax"] and saved["pixels"].shape[0] == 2
    with np.load(tmp_path / "values.npz") as values:
        assert any(k.startswith("/backbone/") for k in values.files), values.files      # names as they are
        np.testing.assert_array_equal(values["probs"], np.load(first / "probs.npy"))
    r = _cli(sample_path(), "--load-inputs", tmp_path / "in.npz", "-o", again)
    assert r.returncode == 0, r.stderr
    for name in ("logits", "probs"):
        np.testing.assert_array_equal(np.load(again / f"{name}.npy"), np.load(first / f"{name}.npy"))


def test_load_inputs_takes_an_input_set_the_app_saved(tmp_path):
    """An app's input set (.json) is made by the same generator: its seed,
    its sources, its sizes; --dim sizes over its own."""
    import json
    from onnxstudio.core import load
    from onnxstudio.core.exec.input_gen import InputSet, InputSpec, default_input_set, make_feeds
    model = load(sample_path())
    inputs = list(model.graph.inputs)
    chosen = InputSet(seed=9, dims={"batch": 3}, inputs={"use_softmax": InputSpec("use_softmax", "ones")})
    (tmp_path / "set.json").write_text(json.dumps(chosen.to_json()))
    r = _cli(sample_path(), "--load-inputs", tmp_path / "set.json", "--save-inputs", tmp_path / "made.npz")
    assert r.returncode == 0, r.stderr
    whole = default_input_set(inputs, model.graph.outputs, 9, {"batch": 3})
    whole.inputs.update(chosen.inputs)
    expected = make_feeds(inputs, whole)
    with np.load(tmp_path / "made.npz") as made:
        assert made["pixels"].shape[0] == 3 and bool(made["use_softmax"])
        for name, value in expected.items():
            np.testing.assert_array_equal(made[name], value)
    r = _cli(sample_path(), "--load-inputs", tmp_path / "set.json", "--dim", "batch=2")
    assert r.returncode == 0 and "probs: float[2,10]" in r.stdout, r.stderr
    (tmp_path / "bad.json").write_text("[1]")
    r = _cli(sample_path(), "--load-inputs", tmp_path / "bad.json")
    assert r.returncode == 2 and "not an input set the app saved" in r.stderr


def test_compare_tolerances_provider_and_level():
    """A zero tolerance on one output makes float rounding a difference:
    exit 1; the defaults agree: exit 0; the level and provider are taken."""
    path = SHARED_MODELS / "silero_vad" / "model.onnx"
    r = _cli(path, "--random", "--compare-onnxruntime", "--tolerance", "output=0,0",
             "--ort-provider", "CPUExecutionProvider", "--ort-opt-level", "all")
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  output: max abs"))
    if "max abs error 0," not in line:          # onnxruntime rounded it differently: the 0 tolerance sees it
        assert r.returncode == 1 and line.endswith("DIFFERENT"), r.stdout
    assert "output: atol 0, rtol 0" in r.stdout
    r = _cli(path, "--random", "--compare-onnxruntime", "--rtol", "1e-2", "--atol", "1e-3", "--json")
    assert r.returncode == 0, r.stderr
    import json
    data = json.loads(r.stdout)["comparison"]
    assert data["rtol"] == 1e-2 and data["atol"] == 1e-3 and data["agrees"]
