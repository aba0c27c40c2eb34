"""Type and shape inference with symbolic dimensions.

    from onnxstudio.core.infer import infer, Inference
    types = infer(model)                 # {value name: ir.types Type}, main graph
    types.diagnostics                    # [Diagnostic(severity, code, path, message)]
    inf = Inference(model); inf.run()    # keep it to re-infer after edits:
    inf.update(nodes=[edited_node], values=[input_value])
    inf.type_of(value); inf.types_in(subgraph); inf.write()
"""
from .engine import Diagnostic, Inference, InferenceResult, infer

__all__ = ["Diagnostic", "Inference", "InferenceResult", "infer"]
