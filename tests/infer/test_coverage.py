"""Every operator of the signature table has a rule; malformed models never
make inference raise."""
from __future__ import annotations

import random

import onnx

from backend_data import all_cases
from onnxstudio import core
from onnxstudio.core import schemas
from onnxstudio.core.infer import infer
from onnxstudio.core.infer.context import registered_ops
from onnxstudio.core.ir.types import TensorType

from .helpers import F, make_model, node, out


def test_every_operator_of_every_known_domain_has_a_rule():
    have = registered_ops()
    missing = []
    for domain in ("", "ai.onnx.ml", "ai.onnx.preview.training", "ai.onnx.preview"):
        for op in schemas.operators(domain):
            versions = schemas.versions(domain, op)
            if versions and all(s.deprecated for s in versions):
                continue
            key = ("" if schemas.canonical_domain(domain) == schemas.DEFAULT_DOMAIN else domain, op)
            if key not in have:
                missing.append(f"{domain or 'ai.onnx'}::{op}")
    assert not missing, missing


def test_a_failing_rule_still_gives_schema_element_types():
    # MaxUnpool without its required kernel_shape trips the rule; the
    # signature still says the output follows X's element type.
    m = make_model([node("MaxUnpool", ["x", "idx"], ["y"])],
                   [("x", onnx.TensorProto.DOUBLE, [1, 1, 2, 2]), ("idx", onnx.TensorProto.INT64, [1, 1, 2, 2])],
                   [out("y", 0)])
    r = infer(m)
    assert r["y"].elem_type == onnx.TensorProto.DOUBLE
    assert [d.code for d in r.diagnostics] == ["infer.failed"]
    assert "MaxUnpool" in r.diagnostics[0].message


def _mutate(m: onnx.ModelProto, rng: random.Random) -> None:
    for vi in m.graph.input:
        if rng.random() < 0.5:
            vi.type.tensor_type.ClearField("shape")
        elif rng.random() < 0.3:
            vi.ClearField("type")
    for n in m.graph.node:
        for a in n.attribute:
            if a.type == onnx.AttributeProto.INT and rng.random() < 0.5:
                a.i = rng.choice([-7, 0, 99])
            elif a.type == onnx.AttributeProto.INTS and rng.random() < 0.5:
                a.ints[:] = [rng.choice([-9, 0, 5]) for _ in range(rng.randint(0, 3))]
            elif rng.random() < 0.1:
                # The wrong kind of value altogether (a string where a number belongs).
                a.Clear()
                a.name, a.type, a.s = n.attribute[0].name if n.attribute else "x", onnx.AttributeProto.STRING, b"?"
        if n.input and rng.random() < 0.2:
            n.input[rng.randrange(len(n.input))] = ""
    for init in list(m.graph.initializer):
        if rng.random() < 0.2 and init.dims:
            init.dims[0] += 1          # data no longer matches the dims


def test_mutilated_backend_models_never_raise():
    rng = random.Random(4)
    cases = [c for c in all_cases(("node",))]
    rng.shuffle(cases)
    ran = 0
    for case in cases[:400]:
        m = onnx.load(str(case.model_path))
        _mutate(m, rng)
        model = core.load_bytes(m.SerializeToString())
        types = infer(model)          # must not raise
        assert all(t is None or hasattr(t, "__str__") for t in types.values())
        ran += 1
    assert ran == 400


def test_results_are_ir_types():
    m = make_model([node("Relu", ["x"], ["y"])], [("x", F, ["N"])], [out("y")])
    assert isinstance(infer(m)["y"], TensorType)
