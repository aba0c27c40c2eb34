"""A small model saved with its weights in external data, as onnx writes
one, for the save tests of tests/serde."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def saved_with_external_data(folder, w2_size: int = 1024):
    """folder/model.onnx: y = (x + w1) * w2, w1 (4 KB) and w2 in
    folder/model.onnx.data."""
    folder.mkdir(parents=True, exist_ok=True)
    w1, w2 = np.arange(1024, dtype=np.float32), np.full(w2_size, 3, np.float32)
    g = helper.make_graph([helper.make_node("Add", ["x", "w1"], ["h"]), helper.make_node("Mul", ["h", "w2"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
                          initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.save_model(m, folder / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    return folder / "model.onnx"


def fail_the_model_rename(monkeypatch, path) -> None:
    """Make the save's last step, the model file's rename into place at
    `path`, fail as a full disk does; the data files' renames go through."""
    import os

    from onnxstudio.core.serde import io as serde_io
    real = os.replace

    def fails_for_the_model(src, dst):
        if os.fspath(dst) == os.fspath(path):
            raise OSError(28, "No space left on device")
        return real(src, dst)
    monkeypatch.setattr(serde_io.os, "replace", fails_for_the_model)


def refuse_appends(monkeypatch) -> None:
    """Make a save's append to a data file fail, as on a platform that
    refuses to extend a file that is mapped; other opens go through."""
    import builtins

    from onnxstudio.core.serde import io as serde_io
    real = builtins.open

    def refuses_appending(file, mode="r", *args, **kw):
        if "+" in mode or "a" in mode:
            raise OSError(1, "Operation not permitted")
        return real(file, mode, *args, **kw)
    monkeypatch.setattr(serde_io, "open", refuses_appending, raising=False)
