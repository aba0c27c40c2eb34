"""Text fields holding invalid UTF-8 (a damaged file; onnx and onnxruntime
accept such files): the IR holds str with U+FFFD, every command works, and
the checker reports the bytes where they are."""
from __future__ import annotations

import subprocess
import sys

import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.check import check


def _damaged_model(tmp_path):
    """Names, producer, metadata, a dim_param and an attribute name, each
    with its last letter replaced by 0xff."""
    node = helper.make_node("LeakyRelu", ["XIN"], ["YOUT"], name="NAMEX", alpha=0.5)
    graph = helper.make_graph([node], "GRAPHX",
                              [helper.make_tensor_value_info("XIN", TensorProto.FLOAT, ["BATCHX", 2])],
                              [helper.make_tensor_value_info("YOUT", TensorProto.FLOAT, ["BATCHX", 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="PRODX")
    helper.set_model_props(model, {"KEYX": "VALX"})
    data = model.SerializeToString()
    for word in (b"NAMEX", b"XIN", b"YOUT", b"GRAPHX", b"PRODX", b"KEYX", b"VALX", b"BATCHX"):
        assert word in data
        data = data.replace(word, word[:-1] + b"\xff")
    path = tmp_path / "damaged.onnx"
    path.write_bytes(data)
    return path


def test_the_ir_holds_text_with_replacement_characters(tmp_path):
    m = core.load(_damaged_model(tmp_path))
    node = m.graph.nodes[0]
    assert node.name == "NAME\ufffd"
    assert [v.name for v in node.inputs] == ["XI\ufffd"] and [v.name for v in node.outputs] == ["YOU\ufffd"]
    assert m.graph.name == "GRAPH\ufffd" and m.producer_name == "PROD\ufffd"
    assert m.metadata_props == {"KEY\ufffd": "VAL\ufffd"}
    assert m.graph.inputs[0].type.shape == ("BATCH\ufffd", 2)
    saved = tmp_path / "saved.onnx"
    core.save(m, saved)
    again = core.load(saved)
    assert again.graph.nodes[0].name == "NAME\ufffd" and again.graph.outputs[0].name == "YOU\ufffd"
    assert not [d for d in check(saved) if str(d.severity) == "error"]


def test_the_checker_reports_the_damaged_text(tmp_path):
    found = {(d.code, d.path) for d in check(_damaged_model(tmp_path))}
    assert ("text.invalid-utf8", "model") in found
    assert ("text.invalid-utf8", "graph") in found


@pytest.mark.slow
def test_every_command_works_on_it(tmp_path):
    path = _damaged_model(tmp_path)
    for args in (["info", path], ["info", path, "--json"], ["render", path, "-o", tmp_path / "g.svg"],
                 ["infer", path, "-o", tmp_path / "i.onnx"], ["convert", path, tmp_path / "c.onnx"],
                 ["run", path, "--random"]):
        r = subprocess.run([sys.executable, "-m", "onnxstudio", *map(str, args)], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, (args, r.stderr)
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "check", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "text.invalid-utf8" in r.stdout, r.stdout + r.stderr
