"""`onnxstudio run --dim`: a symbol is sized in every input that has it, an
INPUT[AXIS] that is a symbol sizes the symbol (so inputs sharing it agree),
and a request that sizes nothing is refused naming the dims there are
(exit 2), never ignored. Sizes are read with the shared dims grammar."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from onnxstudio.cli import main
from onnxstudio.core import load
from onnxstudio.core.exec.dim_sizes import DimSizeError, resolve_dim_sizes


@pytest.fixture
def ids_and_mask(tmp_path):
    """y = input_ids + attention_mask, both [batch, seq]; z = Relu(pixels [?, 3])."""
    g = helper.make_graph(
        [helper.make_node("Add", ["input_ids", "attention_mask"], ["y"], name="add"),
         helper.make_node("Relu", ["pixels"], ["z"], name="relu")], "g",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("pixels", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [None, 3])])
    path = tmp_path / "ids.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _run(capsys, path, *args):
    code = main(["run", str(path), "--random", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_an_axis_that_is_a_symbol_sizes_every_input_sharing_it(ids_and_mask, tmp_path, capsys):
    code, out, err = _run(capsys, ids_and_mask, "--dim", "input_ids[1]=32", "-o", tmp_path / "out")
    assert code == 0, err
    assert np.load(tmp_path / "out" / "y.npy").shape == (1, 32)
    code, out, err = _run(capsys, ids_and_mask, "--dim", "batch=2", "--dim", "pixels[0]=5", "-o", tmp_path / "o2")
    assert code == 0, err
    assert np.load(tmp_path / "o2" / "y.npy").shape == (2, 1) and np.load(tmp_path / "o2" / "z.npy").shape == (5, 3)


@pytest.mark.parametrize("dim, words", [
    ("sequence=64", "--dim sequence=64: no input has a dim named sequence; the symbolic dims are batch, seq"),
    ("ids[1]=3", "--dim ids[1]=3: no input named ids; the inputs are input_ids, attention_mask, pixels"),
    ("input_ids[2]=3", "--dim input_ids[2]=3: input_ids has rank 2 (axes 0 to 1)"),
    ("seq=2.5", "--dim seq=2.5: the size must be a whole number, 0 or more"),
    ("seq=99999999999999999999999", "the size must be a whole number, 0 or more (at most 2**63-1)"),
    ("seq=?", "--dim seq=?: the size must be a whole number"),
    ("seq", "--dim 'seq': expected NAME=SIZE or INPUT[AXIS]=SIZE"),
])
def test_a_request_that_sizes_nothing_is_refused(ids_and_mask, capsys, dim, words):
    code, out, err = _run(capsys, ids_and_mask, "--dim", dim)
    assert code == 2 and words in err and err.count("\n") == 1, err


def test_one_symbol_given_two_sizes_is_refused(ids_and_mask, capsys):
    code, _, err = _run(capsys, ids_and_mask, "--dim", "seq=4", "--dim", "attention_mask[1]=5")
    assert code == 2, err
    assert "--dim attention_mask[1]=5: attention_mask[1] is the dim seq, which is already sized 4 by seq=4" in err
    assert _run(capsys, ids_and_mask, "--dim", "seq=4", "--dim", "input_ids[1]=4")[0] == 0


def test_resolve_dim_sizes(ids_and_mask):
    inputs = list(load(ids_and_mask).graph.inputs)
    assert resolve_dim_sizes(inputs, [("input_ids[1]", "32"), ("batch", "2"), ("pixels[0]", " 7 ")]) == \
        {"seq": 32, "batch": 2, "pixels[0]": 7}
    no_symbols = [v for v in inputs if v.name == "pixels"]
    with pytest.raises(DimSizeError, match="the inputs have no symbolic dims; size one axis with INPUT"):
        resolve_dim_sizes(no_symbols, [("batch", "2")])
