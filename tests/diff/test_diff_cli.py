"""`onnxstudio diff`: the JSON shape, exit codes, bad input, and --inputs
(both models run by our executor, every paired value compared)."""
import json

import numpy as np
import pytest

from onnxstudio.cli import main
from onnxstudio.core import load, save
from onnxstudio.core.edits import SetInitializer
from shared_models import SHARED_MODELS

from .models import edited_bert, fused_pair, rename_everything

BERT = SHARED_MODELS / "bert_small" / "model.onnx"
BERT_INPUTS = SHARED_MODELS / "bert_small" / "inputs.npz"


def _diff(capsys, *args):
    rc = main(["diff", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.slow
def test_json_shape_and_exit_1_on_a_difference(tmp_path, capsys):
    a, b, touched = edited_bert(BERT)
    save(a, tmp_path / "a.onnx")
    save(b, tmp_path / "b.onnx")
    rc, out, _ = _diff(capsys, tmp_path / "a.onnx", tmp_path / "b.onnx", "--json")
    assert rc == 1
    j = json.loads(out)
    assert isinstance(j["matched"], int) and j["matched"] == 290
    assert set(j["nodes"]) == {"added", "removed", "changed"}
    assert j["nodes"]["added"] == ["inserted_relu"] and j["nodes"]["removed"] == [touched["tanh"]]
    [c] = j["nodes"]["changed"]
    assert set(c) == {"a", "b", "op", "attributes", "inputs"} and c["attributes"] == ["axis"]
    assert all(isinstance(p, list) and len(p) == 2 for p in j["renamed"])
    [w] = j["initializers"]["changed"]
    assert {"a", "b", "max_abs"} <= set(w) and w["max_abs"] == 0.5
    assert set(j["initializers"]) == {"changed", "added", "removed"}
    assert set(j["io"]) == {"inputs", "outputs"}


def test_same_file_exits_0_and_says_so(capsys):
    rc, out, _ = _diff(capsys, BERT, BERT)
    assert rc == 0 and "the models are the same" in out and "227 of 227 computing nodes in A, 227 of 227 in B" in out


def test_summary_lists_rewrites_and_renames(tmp_path, capsys):
    a, b = fused_pair()
    save(a, tmp_path / "a.onnx")
    save(rename_everything(b), tmp_path / "b.onnx")
    rc, out, _ = _diff(capsys, tmp_path / "a.onnx", tmp_path / "b.onnx")
    assert rc == 1
    assert "MatMul+Add -> Gemm: mm, add -> r_node_0" in out
    assert "relu -> r_node_1" in out


def test_unreadable_file_exits_2_naming_it(tmp_path, capsys):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a model")
    rc, out, err = _diff(capsys, BERT, bad)
    assert rc == 2 and out == ""
    assert err.startswith("onnxstudio diff: B: ") and "broken.onnx" in err and "Traceback" not in err
    rc, _, err = _diff(capsys, tmp_path / "missing.onnx", BERT)
    assert rc == 2 and "A: " in err and "missing.onnx" in err


def test_bad_inputs_file_exits_2(tmp_path, capsys):
    (tmp_path / "x.npz").write_bytes(b"garbage")
    rc, _, err = _diff(capsys, BERT, BERT, "--inputs", tmp_path / "x.npz")
    assert rc == 2 and "--inputs" in err and "x.npz" in err
    rc, _, err = _diff(capsys, BERT, BERT, "--inputs", tmp_path / "x.txt")
    assert rc == 2 and ".npz" in err


@pytest.mark.slow
def test_inputs_compare_renamed_values_and_find_the_first_divergence(tmp_path, capsys):
    a2, b2 = load(BERT), load(BERT)
    weight = next(iter(b2.graph.initializers.values()))
    weight_name = weight.name
    data = np.array(weight.const.numpy())
    data *= 1.5
    SetInitializer(weight.name, data).apply(b2)
    save(a2, tmp_path / "a.onnx")
    save(rename_everything(b2), tmp_path / "b.onnx")
    rc, out, _ = _diff(capsys, tmp_path / "a.onnx", tmp_path / "b.onnx", "--json", "--inputs", BERT_INPUTS)
    assert rc == 1
    n = json.loads(out)["numeric"]
    assert not n["agrees"]
    reader = a2.graph.initializers[weight_name].consumers[0]
    assert n["first_divergence"]["name"] in {reader.name} | {c.name for c in reader.outputs[0].consumers}
    assert all(v["b"].startswith("r_value_") for v in n["values"])
    assert any(v["agrees"] for v in n["values"]) and any(not v["agrees"] for v in n["values"])

