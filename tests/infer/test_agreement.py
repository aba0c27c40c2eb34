"""Agreement with onnx.shape_inference on the backend test data and the shared
models: same element type and an equal or more precise shape.

Two runs: the files as they are (stored declarations refine both sides, as in
onnx), and "stripped" copies without value_info and graph output types, where
everything must be inferred from the inputs.
"""
from __future__ import annotations

import pytest

from backend_data import all_cases

from . import oracle
from .oracle import compare
from shared_models import shared_model_dirs


MIN_OVERALL = 0.98
# Every model on its own: equal or more precise than onnx on 99 % of its
# values at least (an unknown dim where onnx has a name is a miss).
MIN_PER_MODEL = 0.99

# (case id, value name): why we differ. Every entry is checked to still differ,
# so the list cannot go stale.
KNOWN_DIFFERENCES = {
    ("node/test_loop13_seq", "seq_res"):
        "the Loop body declares seq(float[]) (scalar elements) but inserts 1-D "
        "slices; onnx repeats the declaration, we report the element rank unknown",
}

# Model -> why what Inference.write stores says less than onnx on more than
# 1 % of its values (checked to still fall short, so it cannot go stale).
WRITTEN_SHORTFALLS = {
    "silero_vad":
        "its If's branches give sizes only a run knows (our ?N, onnx's unk__N); "
        "?N names are per run, so a file gets an unknown dim there",
}


def _below(agree, total) -> bool:
    return total > 0 and agree / total < MIN_PER_MODEL


def _run(cases, strip):
    agree = total = written_agree = 0
    outputs_total = outputs_agree = 0
    unexpected, seen_known, low, low_written = [], set(), [], 0
    for case in cases:
        a, t, bad, _diags, outputs, written = compare(case.model_path, strip=strip)
        agree += a
        total += t
        written_agree += written
        # A documented difference (onnx repeats a wrong declaration) is not
        # held against the model; it is checked to still be there below.
        excused = sum(1 for name, _, _ in bad if (case.id, name) in KNOWN_DIFFERENCES)
        if _below(a + excused, t):
            low.append(f"{case.id}: {a}/{t}")
        low_written += _below(written, t)
        bad_names = {name for name, _, _ in bad}
        if case.kind == "node":
            # Only graph outputs onnx could type count.
            outputs_total += len(outputs)
            outputs_agree += len(outputs - bad_names)
        for name, ours, theirs in bad:
            if (case.id, name) in KNOWN_DIFFERENCES:
                seen_known.add((case.id, name))
            else:
                unexpected.append(f"{case.id}: {name}: ours {ours}, onnx {theirs}")
    return agree, total, outputs_agree, outputs_total, unexpected, seen_known, low, (written_agree, low_written)


@pytest.mark.slow
@pytest.mark.parametrize("strip", [False, True], ids=["as-stored", "stripped"])
def test_agreement_with_onnx_on_backend_data(strip):
    cases = all_cases()
    before = oracle.more_precise
    agree, total, out_ok, out_total, unexpected, seen, low, (written, low_written) = _run(cases, strip)
    known_outputs = sum(1 for cid, _ in seen if cid.startswith("node/"))
    # As written is reported, not held to 99 %: many node tests feed a
    # shape, size or count as a graph input, and the sizes that follow
    # are per-run ?N names, which a file gets as unknown dims.
    print(f"\ninference agreement ({'stripped' if strip else 'as stored'}): "
          f"{agree}/{total} values = {agree / total:.4%}; node-test graph outputs "
          f"{out_ok}/{out_total} (+{known_outputs} known differences); "
          f"strictly more precise than onnx: {oracle.more_precise - before}; "
          f"models below {MIN_PER_MODEL:.0%}: {low or 'none'}; as written {written}/{total} values = "
          f"{written / total:.4%}, {low_written} models below {MIN_PER_MODEL:.0%}")
    assert total > 10000
    assert agree / total >= MIN_OVERALL, "\n".join(unexpected[:50])
    assert not low, f"models below {MIN_PER_MODEL:.0%}: {low}"
    assert not unexpected, "\n".join(unexpected[:50])
    # Graph outputs of node tests: 100% apart from the documented differences.
    assert out_ok + known_outputs == out_total
    assert seen == set(KNOWN_DIFFERENCES), f"stale known differences: {set(KNOWN_DIFFERENCES) - seen}"


@pytest.mark.parametrize("strip", [False, True], ids=["as-stored", "stripped"])
def test_agreement_with_onnx_on_shared_models(strip):
    paths = [d / "model.onnx" for d in shared_model_dirs()]
    agree = total = 0
    problems, low, low_written, lines = [], [], set(), []
    before = oracle.more_precise
    for p in paths:
        a, t, bad, _diags, _, written = compare(p, strip=strip)
        agree += a
        total += t
        name = p.parent.name
        lines.append(f"  {name:22s} {a:5d}/{t:5d} = {a / t if t else 1:8.2%}; "
                     f"as written {written:5d}/{t:5d} = {written / t if t else 1:8.2%}")
        if _below(a, t):
            low.append(name)
        if _below(written, t):
            low_written.add(name)
        problems += [f"{name}: {n}: ours {o}, onnx {th}" for n, o, th in bad]
    print(f"\nshared models agreement ({'stripped' if strip else 'as stored'}): {agree}/{total}; "
          f"strictly more precise than onnx: {oracle.more_precise - before}\n" + "\n".join(lines))
    assert total > 2000
    assert not low, f"models below {MIN_PER_MODEL:.0%}: {low}"
    assert not problems, "\n".join(problems[:30])
    assert low_written == set(WRITTEN_SHORTFALLS), f"as written, below {MIN_PER_MODEL:.0%}: {low_written}"


def test_an_unknown_dim_where_onnx_has_a_name_is_a_miss():
    from onnxstudio.core.infer.fresh import as_written
    from onnxstudio.core.infer.merge import at_least_as_precise
    from onnxstudio.core.ir.types import TensorType

    theirs = oracle._fresh_unk(TensorType(1, ("N", "unk__3", 4)))
    assert theirs.shape == ("N", "?3", 4)
    assert at_least_as_precise(TensorType(1, ("N", "x.2", 4)), theirs)
    assert at_least_as_precise(TensorType(1, ("N", "floor((x.2+1)/2)", 4)), theirs)
    assert at_least_as_precise(TensorType(1, ("N", "?7", 4)), theirs)
    assert not at_least_as_precise(TensorType(1, ("N", None, 4)), theirs)
    assert not at_least_as_precise(TensorType(1, (None, "x.2", 4)), theirs)
    # As written, a per-run ?N is an unknown dim: a miss there.
    assert not at_least_as_precise(as_written(TensorType(1, ("N", "?7", 4))), theirs)
    assert at_least_as_precise(as_written(TensorType(1, ("N", "x.2", 4))), theirs)


def test_where_onnx_names_a_fresh_symbol_we_say_as_much_or_more():
    # onnx gives each dim it cannot work out a fresh "unk__N". On the conv
    # net (dynamic height and width) ours are expressions of the input dims;
    # on the streaming LSTM, the names of its inputs' unknown dims (`input.0`)
    # where a size is the input's, and where sizes are truly data-dependent,
    # fresh names of ours. Never "?" where onnx has a name.
    import onnx

    from onnxstudio import core
    from onnxstudio.core.infer import Inference
    from onnxstudio.core.infer.fresh import is_fresh
    from shared_models import shared_model

    kinds = {}
    for name in ("ppocr_v4_det", "silero_vad"):
        path = shared_model(name) / "model.onnx"
        proto = oracle.strip_declarations(onnx.load(str(path), load_external_data=False))
        theirs = oracle.infer_with_onnx(proto)
        model = core.load_bytes(proto.SerializeToString())
        inf = Inference(model)
        inf.run()
        counts = kinds.setdefault(name, {"expression": 0, "fresh": 0, "input dim": 0, "number or symbol": 0,
                                         "unknown": 0})
        input_dims = {d for v in model.graph.inputs for was, d in zip(v.type.shape or (), inf.type_of(v).shape or ())
                      if was is None and isinstance(d, str)}
        for tg, og in oracle._pairs(theirs.graph, model.graph):
            ours = inf.types_in(og)
            for vi in tg.value_info:
                t = ours.get(vi.name)
                shape = getattr(t, "shape", None)
                dims = vi.type.tensor_type.shape.dim if vi.type.HasField("tensor_type") else []
                if shape is None or len(shape) != len(dims):
                    continue
                for d, o in zip(dims, shape):
                    if not d.dim_param.startswith("unk__"):
                        continue
                    kind = ("unknown" if o is None else "fresh" if is_fresh(o) else "input dim" if o in input_dims
                            else "expression" if isinstance(o, str) and "(" in o else "number or symbol")
                    counts[kind] += 1
    print(f"\nwhere onnx has unk__N: {kinds}")
    assert kinds["ppocr_v4_det"]["expression"] > 500 and kinds["ppocr_v4_det"]["fresh"] == 0
    # silero's input [?, ?] and state [2, ?, 128]: 48 dims are the inputs'
    # own, 50 data-dependent (the If's outputs and what follows them).
    assert kinds["silero_vad"]["input dim"] >= 48 and kinds["silero_vad"]["fresh"] >= 50
    assert all(k["unknown"] == 0 for k in kinds.values())
