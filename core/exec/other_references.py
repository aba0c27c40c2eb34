"""References other than onnxruntime: a golden set of tensors from disk,
and a second model run by our executor on the same inputs.

- golden: an .npz of named values (from PyTorch hooks, another runtime, an
  earlier release): every value of ours whose name it holds is compared,
  the rest is listed as not compared; names it holds that the model does
  not have are listed too, and when none matches the comparison stops
  with a message naming both sides' names.
- a second model (before/after an edit, fp32 vs a quantized copy): both run
  by our executor, values matched by name, the second one the reference.

Both give a compare.Report with each node's own error (own_error.py): the
node run alone on the reference's values of its inputs, when the
reference holds them.
"""
from __future__ import annotations

from typing import Optional

from ..ir import Model
from .compare import (ATOL, RTOL, CompareError, Report, carried_precision, compare_values, intermediate_names,
                      node_report)


def _our_run(model: Model, feeds: dict, seed: int) -> dict:
    from .session import Session
    s = Session(model, keep=True, seed=seed)
    outputs = s.run({k: v for k, v in feeds.items() if k in s.input_names})
    return {**s.values, **outputs}


def _report(model: Model, ours: dict, reference: dict, feeds: dict, *, rtol, atol, tolerances, own,
            seed) -> Report:
    wanted = [*intermediate_names(model.graph), *(v.name for v in model.graph.outputs)]
    ordered = {n: ours[n] for n in wanted if n in ours}
    diffs = compare_values(ordered, reference, rtol=rtol, atol=atol, tolerances=tolerances,
                           carried=carried_precision(model.graph, ours))
    skipped = [n for n in ordered if n not in reference]
    report = node_report(model.graph, diffs, skipped=skipped, rtol=rtol, atol=atol, tolerances=tolerances)
    report.unmatched = [n for n in reference if n not in ours and n not in feeds]
    if own:
        from .own_error import add_own_errors
        add_own_errors(report, model, ours, {**feeds, **reference}, seed=seed)
    return report


def compare_with_golden(model: Model, feeds: dict, golden: dict, *, rtol: float = RTOL, atol: float = ATOL,
                        tolerances: Optional[dict] = None, own: bool = True, seed: int = 0,
                        source: str = "the golden set") -> Report:
    """Our run of `model` on `feeds` against `golden` ({value name: array}),
    matched by name. CompareError naming names of both sides when no
    golden name is a value of the model."""
    ours = _our_run(model, feeds, seed)
    matched = [n for n in golden if n in ours and n not in feeds]
    if not matched:
        theirs = ", ".join(sorted(golden)[:5]) + (" …" if len(golden) > 5 else "")
        mine = ", ".join([*intermediate_names(model.graph)[:3], *(v.name for v in model.graph.outputs)][:5])
        raise CompareError(f"{source} names no value of the model: it holds {theirs or 'nothing'}; the model's "
                           f"values are named like {mine}; rename the arrays after the model's values")
    return _report(model, ours, golden, feeds, rtol=rtol, atol=atol, tolerances=tolerances, own=own, seed=seed)


def compare_models(model: Model, other: Model, feeds: dict, *, rtol: float = RTOL, atol: float = ATOL,
                   tolerances: Optional[dict] = None, own: bool = True, seed: int = 0,
                   other_name: str = "the other model") -> tuple[Report, dict]:
    """(Report, the other model's values): `model` and `other` both run by
    our executor on `feeds`, values matched by name, `other` the reference.
    CompareError when they share no computed value name, or when one of
    them cannot run (naming which)."""
    from .errors import ExecError, FeedError
    try:
        ours = _our_run(model, feeds, seed)
    except (ExecError, FeedError) as e:
        raise CompareError(f"the model does not run on these inputs: {str(e).splitlines()[0]}") from None
    try:
        theirs = _our_run(other, feeds, seed)
    except (ExecError, FeedError) as e:
        raise CompareError(f"{other_name} does not run on these inputs: {str(e).splitlines()[0]}") from None
    shared = [n for n in theirs if n in ours and n not in feeds and n not in other.graph.initializers]
    if not shared:
        raise CompareError(f"{other_name} computes no value named like one of the model's; values are "
                           f"matched by name")
    theirs = {k: v for k, v in theirs.items() if k not in other.graph.initializers}
    return _report(model, ours, theirs, feeds, rtol=rtol, atol=atol, tolerances=tolerances, own=own,
                   seed=seed), theirs
