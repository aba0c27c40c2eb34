"""A model whose external data file is gone: every command names the tensor
(or, for a tensor without a name, the node attribute holding it) and the
missing file, and says to put the file back; `info` says the file is missing
instead of listing it as if it were there."""
import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.cli import main

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _saved_without_its_data(tmp_path, in_constant):
    """y = x + w, w (4 KB) kept in data.bin, which is then deleted. With
    `in_constant`, w is the value of a Constant node: a tensor with no name."""
    w = np.arange(1024, dtype=np.float32)
    if in_constant:
        nodes = [helper.make_node("Constant", [], ["w"], value=numpy_helper.from_array(w)),
                 helper.make_node("Add", ["x", "w"], ["y"])]
        inits = []
    else:
        nodes, inits = [helper.make_node("Add", ["x", "w"], ["y"])], [numpy_helper.from_array(w, "w")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])], initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    path = tmp_path / "m.onnx"
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location="data.bin",
                    size_threshold=0, convert_attribute=True)
    (tmp_path / "data.bin").unlink()
    return path


PLACE = {False: "tensor 'w'", True: 'graph/node[0] Constant/attribute "value"'}


@pytest.mark.parametrize("in_constant", [False, True], ids=["initializer", "constant"])
def test_info_says_the_data_file_is_missing(tmp_path, capsys, in_constant):
    path = _saved_without_its_data(tmp_path, in_constant)
    code, out, err = _cli(capsys, "info", path)
    assert code == 0, err
    line = next(x for x in out.splitlines() if "external file data.bin" in x)
    assert "MISSING" in line and str(tmp_path / "data.bin") in line and "put the file back" in line
    code, out, err = _cli(capsys, "info", path, "--json")
    entry = json.loads(out)["external_data"]["data.bin"]
    assert entry["missing"] is True and entry["tensors"] == 1


def test_info_says_a_data_file_is_cut_short(tmp_path, capsys):
    path = _saved_without_its_data(tmp_path, False)
    (tmp_path / "data.bin").write_bytes(b"\0" * 100)
    code, out, err = _cli(capsys, "info", path)
    assert code == 0, err
    assert "CUT SHORT" in next(x for x in out.splitlines() if "external file data.bin" in x)
    (tmp_path / "data.bin").write_bytes(b"\0" * 4096)
    code, out, err = _cli(capsys, "info", "--json", path)
    assert json.loads(out)["external_data"]["data.bin"] == {
        "tensors": 1, "bytes": 4096, "missing": False, "path": str(tmp_path / "data.bin"), "file_bytes": 4096,
        "short": False}


@pytest.mark.parametrize("in_constant", [False, True], ids=["initializer", "constant"])
@pytest.mark.parametrize("command", ["run", "convert", "infer"])
def test_commands_name_the_tensor_and_the_missing_file(tmp_path, capsys, in_constant, command):
    path = _saved_without_its_data(tmp_path, in_constant)
    out = tmp_path / "out.onnx"
    args = {"run": [path, "--random"], "convert": [path, out], "infer": [path, "-o", out]}[command]
    code, text, err = _cli(capsys, command, *args)
    assert code == 2, (text, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert "tensor ''" not in err
    assert PLACE[in_constant] in err and "'data.bin'" in err and str(tmp_path) in err, err
    assert "put the file back" in err
    assert not out.exists()


@pytest.mark.parametrize("in_constant", [False, True], ids=["initializer", "constant"])
def test_check_says_where_the_file_should_be(tmp_path, capsys, in_constant):
    path = _saved_without_its_data(tmp_path, in_constant)
    code, out, err = _cli(capsys, "check", path, "--json")
    assert code == 1
    found = [d for d in json.loads(out[:out.rindex("]") + 1]) if d["code"] == "tensor.external-missing-file"]
    assert len(found) == 1
    assert str(tmp_path) in found[0]["message"] and "put the file back" in found[0]["message"]


def _onnx_saved_with_external_data(tmp_path):
    """The demo model saved by onnx with its weights in w.bin (onnx's layout:
    offsets ours would not give)."""
    from onnxstudio.resources import sample_path
    m = onnx.load(sample_path())
    path = tmp_path / "m.onnx"
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location="w.bin",
                    size_threshold=10)
    return path


@pytest.mark.parametrize("command", ["infer", "convert"])
def test_a_copy_beside_the_source_leaves_the_source_weights_alone(tmp_path, capsys, command):
    """infer/convert to another name in the same folder rewrote w.bin with
    their own layout: the source then read wrong weights, silently."""
    import onnxruntime as ort
    src = _onnx_saved_with_external_data(tmp_path)
    before = (tmp_path / "w.bin").read_bytes()
    out = tmp_path / "copy.onnx"
    args = [src, "-o", out, "-q"] if command == "infer" else [src, out]
    code, _, err = _cli(capsys, command, *args)
    assert code == 0, err
    assert (tmp_path / "w.bin").read_bytes() == before
    assert (tmp_path / "copy.onnx.data").is_file()
    feeds = {"pixels": np.random.default_rng(0).standard_normal((1, 3, 32, 32)).astype(np.float32),
             "use_softmax": np.array(True)}
    want = ort.InferenceSession(str(src), providers=["CPUExecutionProvider"]).run(None, feeds)
    code, _, err = _cli(capsys, "run", src, "--input", _npz(tmp_path, feeds), "-o", tmp_path / "a")
    assert code == 0, err
    code, _, err = _cli(capsys, "run", out, "--input", _npz(tmp_path, feeds), "-o", tmp_path / "b")
    assert code == 0, err
    for name, w in zip(["logits", "probs"], want):
        np.testing.assert_allclose(np.load(tmp_path / "a" / f"{name}.npy"), w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.load(tmp_path / "b" / f"{name}.npy"), w, rtol=1e-5, atol=1e-6)


def _npz(folder, feeds):
    path = folder / "feeds.npz"
    np.savez(path, **feeds)
    return path


def test_damaged_data_of_a_constant_names_the_node_attribute(tmp_path, capsys):
    """A Constant's tensor has no name: run named it tensor ''."""
    t = numpy_helper.from_array(np.arange(16, dtype=np.float32))
    t.raw_data = t.raw_data[:30]                 # 30 of the 64 bytes
    nodes = [helper.make_node("Constant", [], ["c"], value=t), helper.make_node("Add", ["x", "c"], ["y"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [16])])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10), path)
    code, _, err = _cli(capsys, "run", path, "--random")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "tensor ''" not in err and 'graph/node[0] Constant/attribute "value": raw_data has 30 bytes' in err
