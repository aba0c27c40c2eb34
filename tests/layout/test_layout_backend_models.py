"""Every ONNX backend test model (and every subgraph body in it) gets a sound
layout: the built-in engine on all of them, Graphviz on a spread sample."""
from __future__ import annotations

import sys
import pathlib

import pytest
from layout_checks import check_layout

from onnxstudio import core
from onnxstudio.core import layout as lay

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from backend_data import all_cases  # noqa: E402


def measure(label):
    return max([len(label.title) * 7.0] + [len(line) * 5.5 for line in label.lines]) + 12, \
        18 + 12 * len(label.lines)


def sweep(engine: str, step: int):
    cases = list(all_cases())[::step]
    problems, graphs = [], 0
    for case in cases:
        try:
            model = core.load(case.model_path)
        except Exception:   # noqa: BLE001 - loading is not what this test is about
            continue
        for graph in model.graph.walk():
            view = lay.build_view(graph, measure)
            result = lay.layout(view.request, engine=engine, cache=False)
            graphs += 1
            found = check_layout(view.request, result, clusters_exact=engine != "builtin")
            if found:
                problems.append((case.id, graph.name, found[:2]))
    return graphs, problems


@pytest.mark.slow
def test_builtin_engine_on_every_backend_model():
    graphs, problems = sweep("builtin", 1)
    assert graphs > 1800
    assert problems == []


@pytest.mark.slow
@pytest.mark.skipif("dot" not in lay.available_engines(), reason="needs Graphviz dot")
def test_dot_on_a_sample_of_backend_models():
    graphs, problems = sweep("dot", 15)
    assert graphs > 100
    assert problems == []
