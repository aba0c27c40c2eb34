"""`onnxstudio set-shape` you can trust: a rank change needs
--allow-rank-change, dims are read with the shared grammar (what cannot be
stored exactly is refused), and a valid model never comes out invalid
(onnx.checker with full_check is the oracle) unless --force says so.
Refusals: one line naming the place, nothing written (exit 2 for a bad
option, 1 for a result with new checker errors)."""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.cli import main

from shared_models import shared_models_root

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _cli(capsys, *args):
    code = main(["set-shape", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def _dims(path, value="input"):
    m = onnx.load(path, load_external_data=False)
    vi = next(v for v in list(m.graph.input) + list(m.graph.output) if v.name == value)
    return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in vi.type.tensor_type.shape.dim]


@pytest.fixture
def ppocr():
    return shared_models_root() / "ppocr_v4_det" / "model.onnx"


@pytest.fixture
def add_model(tmp_path):
    """y = x + W, x declared [N, 4], W of 4 elements."""
    g = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"], name="add")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4])],
                          initializer=[numpy_helper.from_array(np.arange(4, dtype=np.float32), "W")])
    path = tmp_path / "add.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def test_a_rank_change_is_refused_without_allow_rank_change(ppocr, tmp_path, capsys):
    out = tmp_path / "o.onnx"
    for dims, new_rank in (("1,3,4", 3), ("abc", 1)):
        code, _, err = _cli(capsys, ppocr, "-o", out, "--input", f"x={dims}")
        assert code == 2 and not out.exists(), err
        assert err.count("\n") == 1 and 'input "x"' in err and f"rank {new_rank}" in err and "rank 4" in err, err
        assert "--allow-rank-change" in err
    # Allowed, the result is checked: a rank-3 image breaks the first Conv.
    code, _, err = _cli(capsys, ppocr, "-o", out, "--input", "x=1,3,4", "--allow-rank-change")
    assert code == 1 and not out.exists(), err
    assert "shape.rank-mismatch" in err and "--force" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("dims, words", [
    ("1,3,2.5,4", "--input x: dim 2 is 2.5: a size is a whole number"),
    ("1,3,99999999999999999999999,4", "--input x: dim 2 is 99999999999999999999999: a size must fit in int64"),
    ("1,3,-640,640", "--input x: dim 2 is -640: a size cannot be negative"),
    ("1,3,,640", "--input x: dim 2 is empty"),
    ("1,3,h w,640", "--input x: dim 2: 'h w' is neither"),
])
def test_dims_that_cannot_be_stored_exactly_are_refused(ppocr, tmp_path, capsys, dims, words):
    out = tmp_path / "o.onnx"
    code, _, err = _cli(capsys, ppocr, "-o", out, "--input", f"x={dims}")
    assert code == 2 and words in err and err.count("\n") == 1 and not out.exists(), err


def test_sizes_names_and_unknown_on_ppocr(ppocr, tmp_path, capsys):
    out = tmp_path / "o.onnx"
    code, text, err = _cli(capsys, ppocr, "-o", out, "--input", "x=1,3,h.in,?")
    assert code == 0, err
    assert _dims(out, "x") == [1, 3, "h.in", None]
    onnx.checker.check_model(onnx.load(out, load_external_data=False), full_check=True)
    code, text, err = _cli(capsys, ppocr, "-o", out, "--input", "x=1,3,640,640")
    assert code == 0 and "checker finds" not in text, err
    assert _dims(out, "sigmoid_0.tmp_0") == [1, 1, 640, 640]


@pytest.mark.parametrize("dims", ["state=2,1,128", "input=1,576"])
def test_silero_vad_stays_valid(tmp_path, capsys, dims):
    # Inference cannot tell the rank of silero_vad's outputs (If branches of
    # different ranks): their declared shapes must stay, not be dropped.
    # input=1,576 fixes a size the unused 8 kHz branch cannot take, which a
    # checker that compares known dims refuses: --force writes it anyway,
    # and the file must still pass onnx.checker.
    src = shared_models_root() / "silero_vad" / "model.onnx"
    out = tmp_path / "o.onnx"
    force = ["--force"] if dims.startswith("input=") else []
    code, text, err = _cli(capsys, src, "-o", out, "--input", dims, *force)
    assert code == 0 and out.exists(), (text, err)
    if not force:
        assert "checker finds" not in text, text
    result = onnx.load(out)
    onnx.checker.check_model(result, full_check=True)
    assert [_dims(out, o.name) for o in result.graph.output] == [[None, 1], [None, None, None]]


def test_new_checker_errors_are_refused_unless_forced(add_model, tmp_path, capsys):
    out = tmp_path / "o.onnx"
    code, _, err = _cli(capsys, add_model, "-o", out, "--input", "x=1,5")
    assert code == 1 and not out.exists() and err.count("\n") == 1, err
    assert "shape.broadcast-conflict" in err and "1 error the input did not have" in err and "Nothing written" in err
    code, text, err = _cli(capsys, add_model, "-o", out, "--input", "x=1,5", "--force")
    assert code == 0 and out.exists(), err
    assert "written although the checker finds 1 new error (--force)" in text
    assert _dims(out, "x") == [1, 5]
    # A shape that fits is written without --force.
    code, text, err = _cli(capsys, add_model, "-o", out, "--input", "x=3,4")
    assert code == 0 and _dims(out, "y") == [3, 4], err


def test_a_batch_the_model_fixes_to_one_is_written_with_a_warning(capsys, tmp_path):
    """bert_small with its batch made symbolic is valid for every checker but
    runs only at batch 1 (its attention folds the batch into a dim its
    weights fix): set-shape writes it and says so."""
    src = shared_models_root() / "bert_small" / "model.onnx"
    out = tmp_path / "b.onnx"
    code, text, err = _cli(capsys, src, "-o", out, "--input", "input_ids=batch,128",
                           "--input", "attention_mask=batch,128", "--input", "token_type_ids=batch,128")
    assert code == 0, err
    assert out.is_file()
    warning = text.splitlines()[-1]
    assert warning.startswith("warning: 4 nodes of the model allow only one size of a symbolic dim")
    assert "batch can only be 1 here" in warning
