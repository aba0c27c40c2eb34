"""Type and shape inference with symbolic dimensions.

    from onnxstudio.core.infer import infer, Inference
    types = infer(model)                 # {value name: ir.types Type} of the main graph
    types.diagnostics                    # [check.Diagnostic]: infer.unknown-op / infer.failed (info),
                                         #   infer.conflict (warning: stored vs inferred, both named)
    copy, n = Inference(model).written_copy()   # after run(): a clone with the types stored

    inf = Inference(model); inf.run()    # keep it to re-infer after an edit:
    inf.update(nodes=[edited_node], values=[input_whose_type_changed])
    moved = inf.apply(changes)           # or from an edit's core.changes.Changes (what Analysis does);
                                         #   inf.type_before_update(v) for each moved value
    inf.type_of(value); inf.types_in(any_graph_or_subgraph); inf.written_copy()

How it works and what we decided:

- One small rule per operator (ops_*.py, registered by `context.rule`), found
  through a dict per (domain, op, opset): no schema parsing per node. Rules
  read input types, decoded attributes, constant inputs and *symbolic values*.
- Symbolic values: a small int tensor whose entries are partly symbolic
  (the `[batch, seq, 128]` that Shape produces) is tracked through Gather,
  Slice, Concat, Unsqueeze/Squeeze, Cast, Reshape, Add/Sub/Mul/Div, Equal and
  Where, so Reshape/Expand/Tile/ConstantOfShape/Slice outputs get dims like
  `batch`. Fully constant small inputs (<= 1024 elements, shape-like ops) are
  folded with the executor's kernels (core.exec), not re-implemented here.
- Arithmetic on symbolic dims gives canonical polynomial expressions
  ("2*seq", "batch*seq", "seq-1"; `seq+seq` is `2*seq`). Division by a
  number rounds down and says so: a stride-2 Conv over `H` gives
  `floor((H+1)/2)`, and nested divisions fold (`floor((H+15)/16)` after
  four); `dims.compact_dim` shows them as `⌈H/2⌉`. Division by a symbol only
  when exact. Names from the file are never parsed.
- What no rule can tell (data-dependent sizes, two unrelated symbols in a
  broadcast) gets a fresh name `?N` per value and axis that travels
  downstream, so equal unknowns stay equal; `?N` lives for one run and is
  written to files as an unknown dim. A main-graph input's dim without a
  size is named after the input and axis (`x.2`), and those names and the
  expressions over them are written (fresh.py says why they cannot be
  mistaken for the file's own). `-1`, "?" and "" dims in files mean "any
  size", never a number.
- Slicing `x[0:seq]` with a symbolic end assumes the slice is in bounds and
  gives `seq` (onnx gives unknown); windows with stride 1 keep symbols.
- Declared types (graph inputs/outputs, value_info) refine inferred ones:
  unknown dims are filled in, a number beats a symbol, and between two symbols
  the file's name wins (as in onnx). A real disagreement is a warning; the
  inferred type is kept, and `contradictions` keeps (declared, derived,
  what) per value for the checker (graph.declared-type-contradicts).
- Contradictions a rule proves from known dims (shapes that cannot
  broadcast, a rank or an axis the operator rules out: findings.py) are kept
  per node in `Inference.errors` as (code, message); the checker reports
  them as errors at the node.
- A node that cannot be inferred yields unknown outputs (element types still
  come from the signature table when it can tell) and an info diagnostic with
  the node path; nothing raises on a bad model.
- Subgraphs (If/Loop/Scan/SequenceMap) are inferred with the types the node
  gives them and see outer-scope values; model-local functions are inferred
  per call with the call's types and attributes. A body value shows what
  holds for every call (call_types.py): float[2,3] and float[7] calls give
  `float`, calls of one shape that shape; `inf.calls.calls_disagree(v)`
  tells whether the calls differ there.
- `update()` re-runs only nodes downstream of the change (a change inside a
  subgraph re-runs the owning top-level node) and stops where outputs come
  out unchanged; edits inside function bodies fall back to a full run.
"""
from ..diagnostics import Diagnostic

__all__ = ["Diagnostic", "Inference", "InferenceResult", "infer"]


def __getattr__(name: str):
    # The engine (and with it every rule module) loads on first use, not
    # with `infer.dims`: the canvas formats declared dims before the app has
    # drawn anything, and inference starts only after that first picture.
    if name in ("Inference", "InferenceResult", "infer"):
        from . import engine
        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
