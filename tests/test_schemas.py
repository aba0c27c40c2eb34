"""The signature table against the onnx package it was generated from (oracle)."""
from __future__ import annotations

import onnx
import onnx.defs
import pytest

from onnxstudio.core import schemas
from onnxstudio.core.ir import types as T
from onnxstudio.core.ir.dtypes import DataType

DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")


def test_table_covers_every_version_of_every_operator():
    ours = {(s.domain, s.name, s.since_version) for s in schemas.all_schemas()}
    theirs = {(s.domain, s.name, s.since_version)
              for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS}
    assert ours == theirs
    assert len({(d, n) for d, n, _ in ours}) == len({(d, n) for d, n, _ in theirs})


@pytest.mark.parametrize("domain,max_version", [("", 26), ("ai.onnx.ml", 5), ("ai.onnx.preview.training", 1)])
def test_bind_picks_the_same_version_as_onnx(domain, max_version):
    checked = 0
    for op in schemas.operators(domain):
        for version in range(1, max_version + 1):
            ours = schemas.bind(domain, op, {domain: version})
            try:
                theirs = onnx.defs.get_schema(op, version, domain).since_version
            except onnx.defs.SchemaError:
                theirs = None
            assert (ours.since_version if ours else None) == theirs, (op, version)
            if ours is None:
                assert schemas.why_unbound(domain, op, {domain: version})
            checked += 1
    assert checked == len(schemas.operators(domain)) * max_version > 0


def test_signature_details_match_onnx():
    s = schemas.bind("", "Conv", {"": 13})
    assert s.since_version == 11 and s.key == "Conv-11"
    assert [f.name for f in s.inputs] == ["X", "W", "B"]
    assert s.inputs[2].is_optional and (s.min_input, s.max_input) == (2, 3)
    assert s.attributes["group"].default == 1 and s.attributes["auto_pad"].default == "NOTSET"
    assert s.attributes["pads"].type == 7 and not s.attributes["pads"].required
    assert set(s.type_constraints["T"]) == {"tensor(float)", "tensor(float16)", "tensor(double)"}
    assert s.doc_url == "https://onnx.ai/onnx/operators/onnx__Conv.html"
    concat = schemas.bind("ai.onnx", "Concat", {"ai.onnx": 13})
    assert concat.inputs[0].is_variadic and concat.max_input == schemas.UNBOUNDED
    assert concat.input_formal(7) is concat.inputs[0]
    assert schemas.bind("", "Conv", {"": 13}).output_formal(1) is None


def test_attributes_and_defaults_match_onnx_everywhere():
    for theirs in onnx.defs.get_all_schemas_with_history():
        if theirs.domain not in DOMAINS:
            continue
        ours = schemas.get(theirs.domain, theirs.name, theirs.since_version)
        assert set(ours.attributes) == set(theirs.attributes)
        for name, a in theirs.attributes.items():
            spec = ours.attributes[name]
            assert spec.type == int(a.type) and spec.required == a.required
            if a.default_value.type:
                expected = onnx.helper.get_attribute_value(a.default_value)
                if isinstance(expected, bytes):
                    expected = expected.decode()
                if isinstance(expected, list):
                    expected = tuple(e.decode() if isinstance(e, bytes) else e for e in expected)
                assert (spec.default == pytest.approx(expected) if isinstance(expected, float)
                        else spec.default == expected)
            else:
                assert spec.default is None
        assert ours.has_function == bool(theirs.has_function or theirs.has_context_dependent_function)


def test_why_unbound_explains():
    assert "not in the model's opset imports" in schemas.why_unbound("ai.onnx.ml", "ZipMap", {"": 13})
    assert "not an operator" in schemas.why_unbound("", "NoSuchOp", {"": 13})
    assert "custom domain" in schemas.why_unbound("com.acme", "Foo", {"com.acme": 1})
    assert schemas.why_unbound("", "Relu", {"": 13}) == ""
    assert schemas.bind("com.acme", "Foo", {"com.acme": 1}) is None


@pytest.mark.parametrize("typ,type_str,expected", [
    (T.TensorType(DataType.FLOAT, (1, 2)), "tensor(float)", True),
    (T.TensorType(DataType.FLOAT), "tensor(double)", False),
    (T.TensorType(0), "tensor(double)", True),      # unknown element type: no claim
    (T.SequenceType(T.TensorType(DataType.INT64)), "seq(tensor(int64))", True),
    (T.SequenceType(T.TensorType(DataType.INT64)), "seq(tensor(int32))", False),
    (T.OptionalType(T.SequenceType(T.TensorType(DataType.FLOAT))), "optional(seq(tensor(float)))", True),
    (T.OptionalType(T.TensorType(DataType.FLOAT)), "tensor(float)", False),
    (T.MapType(DataType.STRING, T.TensorType(DataType.FLOAT)), "map(string, float)", True),
    (T.MapType(DataType.INT64, T.TensorType(DataType.FLOAT)), "map(string, float)", False),
    (T.MapType(DataType.INT64, T.TensorType(DataType.FLOAT)), "map(int64, tensor(float))", True),
    (T.SparseTensorType(DataType.FLOAT), "sparse_tensor(float)", True),
    (T.SparseTensorType(DataType.FLOAT), "tensor(float)", False),
])
def test_type_matching(typ, type_str, expected):
    assert schemas.type_matches(typ, type_str) is expected


def test_allowed_types_resolve_constraints_and_literals():
    s = schemas.bind("", "Shape", {"": 15})
    assert schemas.matches_any(T.TensorType(DataType.INT64), s.allowed_types(s.outputs[0].type_str))
    assert not schemas.matches_any(T.TensorType(DataType.INT32), s.allowed_types(s.outputs[0].type_str))
    zipmap = schemas.bind("ai.onnx.ml", "ZipMap", {"ai.onnx.ml": 1})
    out = T.SequenceType(T.MapType(DataType.STRING, T.TensorType(DataType.FLOAT)))
    assert schemas.matches_any(out, zipmap.allowed_types(zipmap.outputs[0].type_str))


def test_malformed_type_string_is_rejected():
    with pytest.raises(ValueError):
        schemas.normalize("vector(float)")


def test_committed_table_is_what_the_generator_writes(tmp_path):
    """The data file and tools/gen_schemas.py stay in step (same onnx version)."""
    import importlib.util
    import pathlib

    repo = pathlib.Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("gen_schemas", repo / "tools" / "gen_schemas.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    committed = repo / "core" / "schemas" / "opschemas.json"
    import json
    data = json.loads(committed.read_bytes())
    if data["onnx_version"] != onnx.__version__:
        pytest.skip(f"table generated from onnx {data['onnx_version']}, installed {onnx.__version__}")
    out = tmp_path / "opschemas.json"
    assert gen.main(["--out", str(out)]) == 0
    assert out.read_bytes() == committed.read_bytes()
