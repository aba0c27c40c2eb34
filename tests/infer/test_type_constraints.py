"""Inferred output types satisfy the operator signatures' type constraints,
and outputs sharing a constraint with an input share its element type: a
check that also covers values onnx leaves untyped."""
from __future__ import annotations

from backend_data import all_cases
from onnxstudio import core
from onnxstudio.core import schemas
from onnxstudio.core.infer import Inference
from onnxstudio.core.schemas import matches_any


def test_inferred_outputs_satisfy_type_constraints():
    checked, problems = 0, []
    for case in all_cases(("node", "simple", "pytorch-converted", "pytorch-operator")):
        model = core.load(case.model_path)
        inf = Inference(model)
        inf.run()
        for g in model.graph.walk():
            for node in g.nodes:
                schema = schemas.bind(node.domain, node.op_type, model.opset_imports)
                if schema is None:
                    continue
                bound = {}
                for i, v in enumerate(node.inputs):
                    formal = schema.input_formal(i)
                    # A heterogeneous variadic (Loop/Scan states) binds no single type.
                    if v is not None and formal is not None and (not formal.is_variadic or formal.homogeneous):
                        bound.setdefault(formal.type_str, schemas.type_string(inf.type_of(v)))
                for j, v in enumerate(node.outputs):
                    formal = schema.output_formal(j)
                    if v is None or formal is None:
                        continue
                    t = inf.type_of(v)
                    actual = schemas.type_string(t)
                    if actual is None:
                        continue
                    checked += 1
                    if not matches_any(t, schema.allowed_types(formal.type_str)):
                        problems.append(f"{case.id}: {node.path}: output {v.name} is {actual}, "
                                        f"{schema.key} allows {sorted(schema.allowed_types(formal.type_str))}")
                    elif (not formal.is_variadic or formal.homogeneous) and \
                            bound.get(formal.type_str) not in (None, actual):
                        problems.append(f"{case.id}: {node.path}: output {v.name} is {actual} but "
                                        f"{formal.type_str} is {bound[formal.type_str]} on the inputs")
    print(f"\n{checked} inferred output types checked against the signatures")
    assert checked > 5000
    assert not problems, "\n".join(problems[:30])
