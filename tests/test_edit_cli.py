"""The editing commands: extract, cleanup, set-shape, rename, edit. Results
run with onnxruntime; extract agrees with onnx.utils.extract_model; external
weights stay valid for the new file and the old one; bad input is exit 2,
one line naming the place, and nothing written."""
import json

import numpy as np
import onnx
import onnx.utils
import onnxruntime as ort
import pytest

from onnxstudio import core
from onnxstudio.cli import main
from onnxstudio.core import Document
from onnxstudio.core.edits import AddInitializer, AddNode, SetInitializer, bypass_node, insert_on_edge

from edits.models import chain, chain_model
from shared_models import shared_models_root

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow

X = np.array([[-2.0, -1.0, 0.5, 3.0]], np.float32)
W = np.arange(4, dtype=np.float32)
FEEDS = {"x": X, "cond": np.array(True)}


def _ort(path, feeds):
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = {i.name for i in s.get_inputs()}
    return s.run(None, {k: v for k, v in feeds.items() if k in names})


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chain_file(tmp_path):
    p = tmp_path / "m.onnx"
    p.write_bytes(chain_model())
    return p


@pytest.fixture
def external_file(tmp_path):
    """The chain model with a 16 KB weight kept in external data (weights.bin)."""
    m = chain()
    AddInitializer("big", np.linspace(0, 1, 4096, dtype=np.float32)).apply(m)
    AddNode("ReduceSum", ["big"], ["big_sum"], name="sum").apply(m)
    AddNode("Add", ["y", "big_sum"], ["shifted"], name="shift").apply(m)
    from onnxstudio.core.edits import AddGraphOutput
    AddGraphOutput("shifted").apply(m)
    m.graph.get_value("shifted").type = core.TensorType(1, ("N", 4))
    d = tmp_path / "src"
    d.mkdir()
    core.save(m, d / "model.onnx", external_data="weights.bin", size_threshold=1024)
    return d / "model.onnx"


def test_extract_agrees_with_onnx_on_bert(tmp_path, capsys):
    src = shared_models_root() / "bert_small" / "model.onnx"
    ins = ["/m/encoder/layer.0/output/LayerNorm/LayerNormalization_output_0", "attention_mask"]
    outs = ["/m/encoder/layer.1/output/LayerNorm/LayerNormalization_output_0"]
    code, out, err = _cli(capsys, "extract", src, "-o", tmp_path / "ours.onnx", "--inputs", ",".join(ins),
                          "--outputs", ",".join(outs))
    assert code == 0, err
    onnx.utils.extract_model(str(src), str(tmp_path / "theirs.onnx"), ins, outs)
    ours, theirs = onnx.load(tmp_path / "ours.onnx"), onnx.load(tmp_path / "theirs.onnx")
    onnx.checker.check_model(ours, full_check=True)
    assert len(ours.graph.node) == len(theirs.graph.node)
    # Typed boundary: the cut through the middle has its full shape.
    dims = [d.dim_value for d in ours.graph.input[0].type.tensor_type.shape.dim]
    assert dims == [1, 128, 256]
    rng = np.random.default_rng(0)
    feeds = {ins[0]: rng.standard_normal((1, 128, 256)).astype(np.float32),
             "attention_mask": np.load(shared_models_root() / "bert_small" / "inputs.npz")["attention_mask"]}
    a, b = _ort(tmp_path / "ours.onnx", feeds), _ort(tmp_path / "theirs.onnx", feeds)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-5, atol=1e-6)


def test_extract_with_external_weights_beside_out_and_the_source_intact(external_file, tmp_path, capsys):
    before = _ort(external_file, FEEDS)
    for out in (tmp_path / "elsewhere" / "part.onnx", external_file.parent / "part.onnx"):
        out.parent.mkdir(exist_ok=True)
        code, _, err = _cli(capsys, "extract", external_file, "-o", out, "--inputs", "y", "--outputs", "shifted")
        assert code == 0, err
        y = np.abs(np.maximum(X, 0) + W)
        got = _ort(out, {"y": y})[0]
        np.testing.assert_allclose(got, y + np.linspace(0, 1, 4096, dtype=np.float32).sum(), rtol=1e-5)
        m = onnx.load(out, load_external_data=False)
        locations = {e.value for t in m.graph.initializer for e in t.external_data if e.key == "location"}
        assert locations and all((out.parent / loc).is_file() for loc in locations)
    # Beside the source under another name: its own weights file, not weights.bin.
    assert locations == {"part.onnx.data"}
    for a, b in zip(_ort(external_file, FEEDS), before):     # the source still reads its weights
        np.testing.assert_array_equal(a, b)


def test_cleanup(chain_file, tmp_path, capsys):
    m = core.load(chain_file)
    AddNode("Neg", ["x"], ["dead"], name="dead").apply(m)
    AddInitializer("unused", np.ones(3, np.float32)).apply(m)
    core.save(m, chain_file)
    out = tmp_path / "clean.onnx"
    code, text, err = _cli(capsys, "cleanup", chain_file, "-o", out)
    assert code == 0, err
    assert "removed 1 node, 2 initializers" in text        # the unused sparse S too
    cleaned = onnx.load(out)
    assert [n.name for n in cleaned.graph.node] == ["a", "b", "c", "if", "call"]
    for a, b in zip(_ort(out, FEEDS), _ort(chain_file, FEEDS)):
        np.testing.assert_array_equal(a, b)


def test_set_shape_on_bert_rewrites_value_info_with_int_dims(tmp_path, capsys):
    src = shared_models_root() / "bert_12layer_narrow" / "model.onnx"
    inferred = tmp_path / "inferred.onnx"
    assert main(["infer", str(src), "-o", str(inferred), "-q"]) == 0
    out = tmp_path / "fixed.onnx"
    code, text, err = _cli(capsys, "set-shape", inferred, "-o", out, "--input", "input_ids=1,128",
                           "--input", "attention_mask=1,128", "--input", "token_type_ids=1,128")
    assert code == 0, err
    m = onnx.load(out)
    for vi in list(m.graph.input) + list(m.graph.output) + list(m.graph.value_info):
        for d in vi.type.tensor_type.shape.dim:
            assert d.WhichOneof("value") != "dim_param" or not d.dim_param.isdigit(), vi.name
            assert d.dim_param not in ("batch", "seq"), vi.name
    assert [d.dim_value for d in m.graph.output[0].type.tensor_type.shape.dim] == [1, 128, 128]
    inputs = dict(np.load(src.parent / "inputs.npz"))
    expected = np.load(src.parent / "expected_outputs.npz")
    got = _ort(out, inputs)
    names = [o.name for o in m.graph.output]
    for name, value in zip(names, got):
        np.testing.assert_allclose(value, expected[name], rtol=1e-3, atol=1e-4)


def test_set_shape_symbolic_and_bad_dims(chain_file, tmp_path, capsys):
    out = tmp_path / "s.onnx"
    code, _, err = _cli(capsys, "set-shape", chain_file, "-o", out, "--input", "x=batch,4")
    assert code == 0, err
    dims = onnx.load(out).graph.value_info[0].type.tensor_type.shape.dim
    assert dims[0].dim_param == "batch" and dims[1].dim_value == 4
    np.testing.assert_allclose(_ort(out, FEEDS)[0], np.abs(np.maximum(X, 0) + W))
    bad = tmp_path / "bad.onnx"
    for arg, needle in (("x=1,$", "'$' is neither"), ("x", "expected NAME=VALUE"), ("x=-1,4", "negative"),
                        ("nope=1", "no graph input named 'nope'")):
        code, _, err = _cli(capsys, "set-shape", chain_file, "-o", bad, "--input", arg)
        assert code == 2 and needle in err and err.count("\n") == 1, err
        assert not bad.exists()


def test_rename(chain_file, tmp_path, capsys):
    out = tmp_path / "r.onnx"
    code, _, err = _cli(capsys, "rename", chain_file, "-o", out, "--value", "x=pixels", "--value", "a_out=hidden")
    assert code == 0, err
    m = onnx.load(out)
    assert m.graph.input[0].name == "pixels"
    then = next(a for a in m.graph.node[3].attribute if a.name == "then_branch").g
    assert then.node[0].input[0] == "hidden"
    got = _ort(out, {"pixels": X, "cond": np.array(True)})
    np.testing.assert_allclose(got[1], np.maximum(X, 0))
    code, _, err = _cli(capsys, "rename", chain_file, "-o", tmp_path / "r2.onnx", "--value", "x=y")
    assert code == 2 and "'y' is already used" in err and not (tmp_path / "r2.onnx").exists()


def test_edit_replays_a_script_and_stops_at_a_step_that_no_longer_applies(chain_file, tmp_path, capsys):
    doc = Document.open(chain_file)
    doc.apply(insert_on_edge(doc.model, "a_out", "Neg"))
    doc.apply(bypass_node(doc.model, "c"))
    doc.apply(SetInitializer("W", W * 10))
    script = tmp_path / "fix.json"
    script.write_text(json.dumps(doc.script(), indent=1))
    out = tmp_path / "edited.onnx"
    code, text, err = _cli(capsys, "edit", chain_file, "-o", out, "--script", script)
    assert code == 0 and "3 edits replayed" in text, err
    assert core.to_bytes(core.load(out)) == core.to_bytes(doc.model)
    np.testing.assert_allclose(_ort(out, FEEDS)[0], -np.maximum(X, 0) + 10 * W)
    # The same script on a model without node "c": step 2 no longer applies.
    other = tmp_path / "other.onnx"
    m = core.load(chain_file)
    from onnxstudio.core.edits import SetNodeField
    SetNodeField("c", "name", "renamed").apply(m)
    core.save(m, other)
    bad = tmp_path / "bad.onnx"
    code, _, err = _cli(capsys, "edit", other, "-o", bad, "--script", script)
    assert code == 2 and not bad.exists()
    assert 'fix.json: step 2 (Delete Abs "c" and reconnect) no longer applies' in err
    assert 'no node named "c"' in err and "nothing was written" in err
    code, _, err = _cli(capsys, "edit", chain_file, "-o", bad, "--script", tmp_path / "missing.json")
    assert code == 2 and "missing.json: no such file" in err
    (tmp_path / "junk.json").write_text("[{")
    code, _, err = _cli(capsys, "edit", chain_file, "-o", bad, "--script", tmp_path / "junk.json")
    assert code == 2 and "invalid JSON" in err and not bad.exists()


def test_edit_keeps_external_weights_valid(external_file, tmp_path, capsys):
    script = tmp_path / "s.json"
    from onnxstudio.core.edits import to_script, RenameValue
    script.write_text(json.dumps(to_script([RenameValue("big", "bigger")])))
    out = tmp_path / "out" / "model.onnx"
    out.parent.mkdir()
    code, _, err = _cli(capsys, "edit", external_file, "-o", out, "--script", script)
    assert code == 0, err
    assert (out.parent / "weights.bin").is_file()
    for a, b in zip(_ort(out, FEEDS), _ort(external_file, FEEDS)):
        np.testing.assert_array_equal(a, b)


def test_an_edit_written_over_its_input_appends_to_the_data_file_and_says_so(external_file, capsys):
    """Written over the input, an edited external weight is appended to the
    model's data file (never rewritten: offsets others read stay valid), and
    stderr says how much the data file grew, as the app's status bar does."""
    from onnxstudio.core.edits.script import to_script
    data = external_file.parent / "weights.bin"
    size = data.stat().st_size
    new = np.linspace(1, 2, 4096, dtype=np.float32)
    script = external_file.parent / "edit.json"
    script.write_text(json.dumps(to_script([SetInitializer("big", new)])))
    code, _, err = _cli(capsys, "edit", external_file, "--script", script, "-o", external_file)
    assert code == 0, err
    assert data.stat().st_size > size
    assert "appended 16.0 KB to weights.bin (the data files only grow" in err
    assert np.array_equal(core.load(external_file).graph.initializers["big"].const.numpy(), new)
    # An edit that touches no weight appends nothing and says nothing of it.
    script.write_text(json.dumps(to_script([core.edits.SetMetadata("k", "v")])))
    code, _, err = _cli(capsys, "edit", external_file, "--script", script, "-o", external_file)
    assert code == 0 and "appended" not in err
