"""A call re-inferred with the types it had before leaves its body showing
what every call agrees on.

Walking a call writes that call's types over the body's values; when its
record of them comes out unchanged (a renamed call node, an attribute the
function ignores), nothing was merged again and the body showed that one
call's types: float[2,3] for a body a float[7] call also reaches.
"""
from __future__ import annotations

import pytest

from onnxstudio.core import edits
from onnxstudio.core.document import Document
from onnxstudio.core.ir.types import TensorType

from .helpers import F
from .test_function_call_types import _body, _body_types, _fresh, _two_calls


@pytest.mark.parametrize("call", ["call_a", "call_b"])
@pytest.mark.parametrize("make_edit", [
    pytest.param(lambda call: edits.SetNodeField(call, "name", f"{call}_renamed"), id="rename"),
    pytest.param(lambda call: edits.SetAttribute(call, "unused", 2, 3), id="attribute")])
def test_one_call_reinferred_as_before(call, make_edit):
    m = _two_calls([2, 3], [7])
    doc = Document(m)
    body = _body(m)
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    doc.apply(make_edit(call), merge=False)
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    assert _body_types(doc.analysis.inference, m) == _fresh(m)
    doc.undo()
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    assert _body_types(doc.analysis.inference, m) == _fresh(m)
