"""Running our executor on the shared models gives outputs of the inferred
shapes wherever the inferred dim is a number, and a symbol always stands for
one size within a run."""
from __future__ import annotations

import re

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.exec.session import run
from onnxstudio.core.infer import Inference
from onnxstudio.core.ir.types import TensorType

from shared_models import shared_model, shared_model_names


def _is_plain_symbol(d) -> bool:
    return isinstance(d, str) and not any(op in d for op in "+-*/()")


def _evaluate(expr: str, bindings: dict):
    """Value of an expression dim ("16*seq", "T-1", "floor((H+1)/2)") once
    its symbols are bound; None if a symbol is not bound yet."""
    tokens = re.split(r"([-+*/()])", expr)
    text = []
    for tok in tokens:
        if tok in ("", "+", "-", "*", "(", ")") or tok.isdigit():
            text.append(tok)
        elif tok == "/":
            text.append("//")            # only inside floor(...): rounds down
        elif tok == "floor":
            continue
        elif tok in bindings:
            text.append(str(bindings[tok]))
        else:
            return None
    return eval("".join(text), {"__builtins__": {}})  # only digits, + - * // ( )


@pytest.mark.parametrize("name", shared_model_names())
def test_executor_shapes_match_inferred_shapes(name):
    folder = shared_model(name)
    model = core.load(folder / "model.onnx")
    inf = Inference(model)
    types = inf.run()
    feeds = dict(np.load(folder / "inputs.npz", allow_pickle=True))
    values = run(model, feeds, keep=True)
    checked = 0
    mismatches, bindings, expressions = [], {}, []
    for vname, arr in values.items():
        t = types.get(vname)
        if not isinstance(t, TensorType) or t.shape is None or not isinstance(arr, np.ndarray):
            continue
        if len(t.shape) != arr.ndim:
            mismatches.append(f"{vname}: inferred {t}, ran {arr.shape}")
            continue
        for d, n in zip(t.shape, arr.shape):
            if isinstance(d, int):
                checked += 1
                if d != n:
                    mismatches.append(f"{vname}: inferred {t}, ran {arr.shape}")
                    break
            elif _is_plain_symbol(d):
                if bindings.setdefault(d, n) != n:
                    mismatches.append(f"{vname}: symbol {d} is {bindings[d]} elsewhere but {n} here")
                    break
            elif isinstance(d, str):
                expressions.append((vname, d, n))
    for vname, expr, n in expressions:
        value = _evaluate(expr, bindings)
        if value is not None:
            checked += 1
            if value != n:
                mismatches.append(f"{vname}: dim {expr} = {value} with {bindings}, but ran {n}")
    print(f"\n{name}: {checked} concrete dims checked against the executor, symbols {bindings}")
    assert not mismatches, "\n".join(mismatches[:20])
    assert checked > 0
