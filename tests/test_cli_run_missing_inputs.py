"""`onnxstudio run` without some inputs named them but not what to do
("missing inputs "input_ids", "past_key", "past_value" (not expected: 210,
215, 220)", QA h37 on kv_decoder_legacy_op17 given its torch_outputs.npz):
it now says how to give them, as `profile` does."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, save_model

from onnxstudio.cli import main


def test_missing_inputs_say_how_to_give_them(tmp_path, capsys):
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "g",
                          [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    path = tmp_path / "m.onnx"
    save_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=9), path)
    np.savez(tmp_path / "wrong.npz", y=np.zeros(2, np.float32))
    assert main(["run", str(path), "--input", str(tmp_path / "wrong.npz")]) == 2
    err = capsys.readouterr().err
    assert 'missing inputs "a", "b" (not expected: y)' in err
    assert "give them with --input or --load-inputs, or make them with --random" in err
    assert err.count("\n") == 1
