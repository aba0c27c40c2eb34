"""`onnxstudio run --output-dir DIR` counted every output as written: on the
scikit-learn pipeline (a label array and ZipMap's sequence of maps) it said
"wrote 2 arrays" and wrote one .npy (QA h37). It now counts the files it
wrote and names, on stderr, the values no .npy holds."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, save_model

from onnxstudio.cli import main


def test_a_sequence_output_is_named_as_left_out_not_counted(tmp_path, capsys):
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"]),
                           helper.make_node("SequenceConstruct", ["x", "y"], ["s"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
                           helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])])
    path = tmp_path / "m.onnx"
    save_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=9), path)
    np.save(tmp_path / "x.npy", np.array([-1, 2], np.float32))
    out = tmp_path / "out"
    assert main(["run", str(path), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)]) == 0
    said = capsys.readouterr()
    assert sorted(p.name for p in out.iterdir()) == ["y.npy"]
    assert f"wrote 1 array to {out}" in said.out
    assert "left out s" in said.err
