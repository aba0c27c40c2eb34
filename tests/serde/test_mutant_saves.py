"""A save never changes what a damaged file says: every mutant of the
checker's mutation suite (each breaks one rule of a valid model), loaded and
saved unedited, gives back a ModelProto equal to its file's, presence of
fields included. Three kinds are told apart, each on purpose: text that is
not valid UTF-8 is saved with U+FFFD in its place (as the finding says), a tensor whose
external data cannot be read is refused (at open or at save, naming the
tensor, the target left unwritten), and a node's repeated attribute is
written right before the one readers keep (core/serde/repeats.py), so only
the order of a node's attributes may differ there."""
from __future__ import annotations

import pathlib
import re
import sys

import pytest

_CHECK_TESTS = pathlib.Path(__file__).resolve().parent.parent / "check"
if str(_CHECK_TESTS) not in sys.path:
    sys.path.insert(0, str(_CHECK_TESTS))

from check_bases import load_base  # noqa: E402
from check_mutations import MUTATIONS, mutant_cases  # noqa: E402

from onnxstudio import core  # noqa: E402
from onnxstudio.core.errors import CoreError  # noqa: E402
from onnxstudio.core.proto import onnx_pb2 as pb  # noqa: E402


def _parsed(path: pathlib.Path) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    return m


def _nodes(nodes):
    """`nodes` and the nodes of their bodies, at every depth."""
    for n in nodes:
        yield n
        for a in n.attribute:
            for body in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                yield from _nodes(body.node)


def _attributes_as_multisets(m: pb.ModelProto) -> pb.ModelProto:
    """A copy of `m` whose every node and function lists its attributes in
    one order (by their bytes)."""
    out = pb.ModelProto()
    out.CopyFrom(m)
    for n in [*_nodes(out.graph.node), *(x for f in out.functions for x in _nodes(f.node))]:
        _sort_attributes(n.attribute)
    for f in out.functions:
        _sort_attributes(f.attribute_proto)
    return out


def _sort_attributes(field) -> None:
    kept = sorted(field, key=lambda a: a.SerializeToString(deterministic=True))
    copies = [type(a)() for a in kept]
    for c, a in zip(copies, kept):
        c.CopyFrom(a)
    del field[:]
    field.extend(copies)


@pytest.mark.parametrize("base,mutate", mutant_cases())
def test_an_unedited_mutant_saves_as_its_file(base, mutate, tmp_path):
    model = load_base(base)
    code, where, _exact = mutate(model)
    path = tmp_path / "mutant.onnx"
    path.write_bytes(model.SerializeToString())
    saved = tmp_path / "saved.onnx"
    try:
        core.save(core.load(path), saved)
    except CoreError as e:
        # Only unreadable external data is refused; the message names the
        # tensor the mutation broke, and nothing is left half-written.
        assert code.startswith("tensor.external"), f"{code}: refused: {e}"
        name = re.search(r'"([^"]+)"$', where).group(1)
        # An initializer by its name; an attribute's (unnamed) tensor by its node and attribute.
        place = f"attribute '{name}'" if "/attribute " in where else f"tensor '{name}'"
        assert place in str(e), str(e)
        assert not saved.exists()
        return
    want, got = _parsed(path), _parsed(saved)
    if code == "attr.duplicate" and got != want:
        want, got = _attributes_as_multisets(want), _attributes_as_multisets(got)
    if code == "text.invalid-utf8":
        # The one change a save makes, and the finding says so: U+FFFD for
        # what was not UTF-8, but where serde saves the text as read.
        _repair_text(want)
    assert got == want, f"{mutate.__name__} on {base}: the save changed the file ({code} at {where})"


_SAVED_AS_READ = {("ModelProto", "training_info"), ("AttributeProto", "ref_attr_name")}


def _repair_text(message) -> None:
    """`message` with U+FFFD for invalid UTF-8 in every string field, as a
    save writes it, except the fields serde keeps as read."""
    from onnxstudio.core.ir.text import as_text
    kind = type(message).__name__
    for fd, value in message.ListFields():
        if (kind, fd.name) in _SAVED_AS_READ:
            continue
        if fd.type == fd.TYPE_STRING:
            if fd.is_repeated:
                if any(v.__class__ is bytes for v in value):
                    fixed = [as_text(v) for v in value]
                    del value[:]
                    value.extend(fixed)
            elif value.__class__ is bytes:
                setattr(message, fd.name, as_text(value))
        elif fd.type == fd.TYPE_MESSAGE:
            if fd.is_repeated:
                if fd.message_type.GetOptions().map_entry:
                    continue
                for item in value:
                    _repair_text(item)
            else:
                _repair_text(value)


def _save_parsed(model, path: pathlib.Path) -> pb.ModelProto:
    core.save(model, path)
    return _parsed(path)


@pytest.mark.parametrize("mutation,value", [("value_info_duplicate", "c"), ("output_elem_type_missing", "y")])
def test_a_retyped_declaration_is_written_as_the_ir_says_and_undo_writes_the_file_again(mutation, value, tmp_path):
    """Kept verbatim while unedited; once the value is retyped every entry
    declaring it says the new type; undo gives the file back."""
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetValueType
    model = load_base("convnet")
    next(m for m in MUTATIONS if m.__name__ == mutation)(model)
    path = tmp_path / "mutant.onnx"
    path.write_bytes(model.SerializeToString())
    doc = Document(core.load(path))
    doc.apply(SetValueType(value, elem_type=pb.TensorProto.DOUBLE))
    edited = _save_parsed(doc.model, tmp_path / "edited.onnx")
    entries = [vi for vi in [*edited.graph.output, *edited.graph.value_info] if vi.name == value]
    assert len(entries) == {"c": 3, "y": 1}[value]
    assert all(vi.type.tensor_type.elem_type == pb.TensorProto.DOUBLE for vi in entries)
    doc.undo()
    assert _save_parsed(doc.model, tmp_path / "undone.onnx") == _parsed(path)


def test_types_set_to_their_defaults_explicitly_save_as_read(tmp_path):
    """Fields a file sets explicitly to their default, which the IR's types
    hold like absent ones: each declaration saves as read, and its value
    still gets the type (inference and the checker read it)."""
    model = pb.ModelProto(ir_version=8)
    model.opset_import.add(domain="", version=17)
    g = model.graph
    g.name = "g"
    g.node.add(op_type="Identity", input=["x"], output=["y"], name="id")
    x = g.input.add(name="x")
    x.type.denotation = ""                              # an empty denotation, set
    x.type.tensor_type.elem_type = pb.TensorProto.FLOAT
    x.type.tensor_type.shape.dim.add(dim_value=2, denotation="")
    y = g.output.add(name="y")
    y.type.tensor_type.elem_type = 0                    # elem_type 0, set
    m = g.value_info.add(name="m")
    m.type.map_type.key_type = 0
    m.type.map_type.value_type.sequence_type.elem_type.tensor_type.elem_type = 0
    o = g.value_info.add(name="o")
    o.type.opaque_type.domain = ""
    o.type.opaque_type.name = ""
    path = tmp_path / "defaults.onnx"
    path.write_bytes(model.SerializeToString())
    loaded = core.load(path)
    assert loaded.graph.inputs[0].type.shape == (2,) and loaded.graph.outputs[0].type.elem_type == 0
    assert _save_parsed(loaded, tmp_path / "saved.onnx") == _parsed(path)
