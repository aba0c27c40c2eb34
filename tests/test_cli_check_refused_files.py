"""`onnxstudio check` of a file with an external data reference the app
cannot follow: the file opens (it used to be refused at open) and is
checked, every problem listed, exit 1, one summary line. Before that, check
printed only the refusal (exit 2, bad input). A file protobuf cannot read
at all stays bad input."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.cli import main

pytestmark = pytest.mark.slow


def _cli(capsys, *args):
    code = main(["check", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _damaged_location(tmp_path):
    """y = x + w, w in w.bin, the location's bytes damaged (not UTF-8)."""
    w = np.arange(1024, dtype=np.float32)
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
                          [numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    path = tmp_path / "m.onnx"
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True, location="w.bin",
                    size_threshold=0)
    data = path.read_bytes()
    assert data.count(b"w.bin") == 1
    path.write_bytes(data.replace(b"w.bin", b"w\xffbin"))
    return path


def test_a_file_with_an_unreadable_reference_is_checked(tmp_path, capsys):
    code, out, err = _cli(capsys, _damaged_location(tmp_path))
    assert code == 1, err
    assert 'graph/initializer "w": error tensor.external' in out
    # One line on stderr (the summary): the app opens the file, nothing to add.
    assert len(err.strip().splitlines()) == 1, err
    assert "1 error" in err and "cannot open it" not in err


def test_no_model_at_all_is_bad_input(tmp_path, capsys):
    path = tmp_path / "g.onnx"
    path.write_bytes(b"garbage")
    code, out, err = _cli(capsys, path)
    assert code == 2 and out == ""
    assert "not an ONNX model" in err and len(err.strip().splitlines()) == 1
