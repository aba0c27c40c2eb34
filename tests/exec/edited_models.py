"""Copies of shared models with one deliberate error, for the comparison
tests: the edited node is the culprit the own error must find.

Made with onnx (a test tool here, never a dependency of the app)."""
from __future__ import annotations

import pathlib
import shutil

import numpy as np

from shared_models import shared_model


def copy_model(name: str, tmp_path: pathlib.Path) -> pathlib.Path:
    """The shared model `name` copied into `tmp_path` (never changed in place)."""
    target = tmp_path / f"{name}.onnx"
    shutil.copyfile(shared_model(name) / "model.onnx", target)
    return target


def inputs_of(name: str) -> dict:
    with np.load(shared_model(name) / "inputs.npz") as z:
        return {k: z[k] for k in z.files}


def ppocr_conv_scaled(tmp_path: pathlib.Path, conv_index: int = 10, channel: int = 3,
                      factor: float = 1000.0) -> tuple[pathlib.Path, str]:
    """ppocr_v4_det with one output channel of one Conv's weight scaled by
    `factor` (the weight is a Constant node's tensor). Returns (edited file,
    the Conv's name)."""
    import onnx
    from onnx import numpy_helper

    m = onnx.load(str(shared_model("ppocr_v4_det") / "model.onnx"))
    convs = [n for n in m.graph.node if n.op_type == "Conv"]
    conv = convs[conv_index]
    weight = conv.input[1]
    holder = next(n for n in m.graph.node if weight in n.output)
    attr = next(a for a in holder.attribute if a.name == "value")
    w = numpy_helper.to_array(attr.t).copy()
    w[channel] *= factor
    attr.t.CopyFrom(numpy_helper.from_array(w, attr.t.name))
    out = tmp_path / "ppocr_conv_scaled.onnx"
    onnx.save(m, str(out))
    return out, conv.name


def bert_layernorm_epsilon(tmp_path: pathlib.Path, index: int = 5, epsilon: float = 10.0) -> tuple[pathlib.Path, str]:
    """bert_12layer_narrow with one LayerNormalization's epsilon set to
    `epsilon`. Returns (edited file, the node's name)."""
    import onnx

    m = onnx.load(str(shared_model("bert_12layer_narrow") / "model.onnx"))
    norms = [n for n in m.graph.node if n.op_type == "LayerNormalization"]
    node = norms[index]
    for a in node.attribute:
        if a.name == "epsilon":
            a.f = epsilon
            break
    else:
        node.attribute.append(onnx.helper.make_attribute("epsilon", epsilon))
    out = tmp_path / "bert_ln_epsilon.onnx"
    onnx.save(m, str(out))
    return out, node.name


def text_lines_image(size: int = 320) -> "np.ndarray":
    """A normalised 1x3xSxS image of dark strokes in lines on white: ppocr
    finds text in it. (The shared inputs.npz is uniform noise: there the
    probability map stays below 1e-5, where onnxruntime's approximated
    Sigmoid flushes to 0 what is 1e-7 exactly, 1 % of the output's scale.)"""
    img = np.full((1, 3, size, size), 2.0, np.float32)
    for row in range(size // 8, size - 20, size // 8):
        img[:, :, row:row + size // 24, size // 10:size - size // 10:3] = -2.0
    return img
