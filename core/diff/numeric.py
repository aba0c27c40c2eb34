"""Run A and B on the same inputs with our executor and compare every
paired value (compare.Report: per value the difference, the first
divergence, each node's own error).

B's values are renamed to their A partners and handed to the comparison
as a golden set, so a re-export that renamed everything still compares
value by value."""
from __future__ import annotations

from ..exec.compare import ATOL, RTOL, Report
from ..exec.other_references import compare_with_golden
from .model_diff import ModelDiff


def feeds_for_both(d: ModelDiff, feeds: dict) -> tuple[dict, dict]:
    """(A's feeds, B's feeds) from arrays named after either model's inputs."""
    m = d.matching
    a_feeds, b_feeds = {}, {}
    for va in m.a.graph.inputs:
        vb = m.values.get(va)
        array = feeds.get(va.name, feeds.get(vb.name) if vb is not None else None)
        if array is not None:
            a_feeds[va.name] = array
            if vb is not None:
                b_feeds[vb.name] = array
    for vb in m.b.graph.inputs:
        if vb.name not in b_feeds and vb.name in feeds:
            b_feeds[vb.name] = feeds[vb.name]
    return a_feeds, b_feeds


def compare_runs(d: ModelDiff, feeds: dict, *, rtol: float = RTOL, atol: float = ATOL, seed: int = 0) -> Report:
    """A run against B (the reference) on `feeds`. ExecError/FeedError when
    B cannot run, CompareError when nothing paired could be compared."""
    from ..exec.session import Session
    a_feeds, b_feeds = feeds_for_both(d, feeds)
    s = Session(d.matching.b, keep=True, seed=seed)
    outputs = s.run({k: v for k, v in b_feeds.items() if k in s.input_names})
    theirs = {**s.values, **outputs}
    main = d.matching.a.graph
    golden = {va.name: theirs[vb.name] for va, vb in d.matching.values.items()
              if va.graph is main and vb.name in theirs and va.name not in a_feeds}
    return compare_with_golden(d.matching.a, a_feeds, golden, rtol=rtol, atol=atol, seed=seed, source="model B")
