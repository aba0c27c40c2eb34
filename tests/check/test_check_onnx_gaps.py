"""The README's lists of where onnx.checker and our checker disagree stay
true: for each kind listed as "onnx accepts" onnx accepts at least one
mutant (full_check=False), while the mutation suite proves we report it;
each mutation of an operator rule (mutations_operators.py, found with
tools/check_differential.py) is rejected by onnx (full_check=True) on every
base it applies to; and for each kind listed as "onnx is stricter than the
spec" onnx rejects the reproducer and we give it no error."""
from __future__ import annotations

import pathlib
import re

import onnx
import pytest

from check_bases import base_names, load_base
from check_mutations import MUTATIONS
from mutation_helpers import std_nodes
import mutations_operators
from onnxstudio.core.check import ERROR, check

README = pathlib.Path(__file__).resolve().parents[2] / "core" / "check" / "README.md"
BY_NAME = {m.__name__: m for m in MUTATIONS}


def _listed(section: str = "onnx-gaps") -> list:
    text = README.read_text()
    part = text.split(f"<!-- {section}-begin -->")[1].split(f"<!-- {section}-end -->")[0]
    return re.findall(r"^- `(\w+)`", part, flags=re.M)


def test_list_names_real_mutations():
    listed = _listed()
    assert len(listed) >= 8
    assert set(listed) <= set(BY_NAME)


@pytest.mark.parametrize("kind", _listed())
def test_onnx_accepts_some_mutant_of_kind(kind, tmp_path):
    path = tmp_path / "m.onnx"
    for base in base_names():
        m = load_base(base)
        if BY_NAME[kind](m) is None:
            continue
        path.write_bytes(m.SerializeToString())
        try:
            onnx.checker.check_model(str(path), full_check=False)
        except Exception:  # noqa: BLE001 - rejected: try the next base
            continue
        return
    pytest.fail(f"onnx.checker rejects every {kind} mutant; remove it from the README list")


# Operator rules onnx.checker does not hold although the operator's page
# lists the values it takes; onnxruntime refuses these models when it loads them.
ORT_REFUSES = frozenset({"resize_mode_unknown"})


@pytest.mark.parametrize("mutate", mutations_operators.MUTATIONS, ids=lambda m: m.__name__)
def test_onnx_rejects_every_operator_mutant(mutate):
    applied = 0
    for base in base_names():
        m = load_base(base)
        if mutate(m) is None:
            continue
        applied += 1
        with pytest.raises(Exception):  # noqa: B017 - onnx and onnxruntime raise several kinds
            if mutate.__name__ in ORT_REFUSES:
                import onnxruntime  # noqa: PLC0415 - an oracle, imported where it is asked
                onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
            else:
                onnx.checker.check_model(m, full_check=True)
    assert applied


def node_domain_ai_onnx(m):
    """The first node of the default domain spelt "ai.onnx", in a model
    importing that domain as ""."""
    if not any(o.domain == "" for o in m.opset_import) or any(o.domain == "ai.onnx" for o in m.opset_import):
        return None
    for _, n in std_nodes(m):
        if n.domain == "":
            n.domain = "ai.onnx"
            return m
    return None


def batch_norm_trailing_empty_output(m):
    """The first BatchNormalization (opset 14 on) giving Y alone gets a
    trailing "" output."""
    if not any(o.domain in ("", "ai.onnx") and o.version >= 14 for o in m.opset_import):
        return None
    for _, n in std_nodes(m):
        if n.op_type == "BatchNormalization" and list(n.output)[1:] == []:
            n.output.append("")
            return m
    return None


_UNARY = frozenset({"Relu", "Elu", "Sigmoid", "Tanh", "LeakyRelu", "Softplus", "Abs", "Neg", "Exp"})


def mean_variance_normalization_default_axes(m):
    """The first element-wise unary node (opset 13 on) whose input is
    declared 4-D becomes a MeanVarianceNormalization without `axes`
    (default [0, 2, 3], all inside the rank)."""
    if not any(o.domain in ("", "ai.onnx") and o.version >= 13 for o in m.opset_import):
        return None
    rank = {v.name: len(v.type.tensor_type.shape.dim) for v in (*m.graph.input, *m.graph.value_info)
            if v.type.HasField("tensor_type") and v.type.tensor_type.HasField("shape")}
    for _, n in std_nodes(m):
        if n.domain == "" and n.op_type in _UNARY and len(n.output) == 1 and rank.get(n.input[0]) == 4:
            n.op_type = "MeanVarianceNormalization"
            del n.attribute[:]
            return m
    return None


STRICTER = {f.__name__: f for f in (node_domain_ai_onnx, batch_norm_trailing_empty_output,
                                    mean_variance_normalization_default_axes)}


def test_stricter_list_names_reproducers():
    assert set(_listed("onnx-stricter")) == set(STRICTER)


@pytest.mark.parametrize("kind", sorted(STRICTER))
def test_onnx_rejects_what_the_spec_allows(kind, tmp_path):
    tried = 0
    for base in base_names():
        m = STRICTER[kind](load_base(base))
        if m is None:
            continue
        tried += 1
        with pytest.raises(Exception):  # noqa: B017 - onnx raises several kinds
            onnx.checker.check_model(m, full_check=True)
        errors = [d for d in check(m, model_dir=tmp_path) if d.severity == ERROR]
        assert not errors, f"{base}: " + "\n".join(map(str, errors))
    assert tried
