"""Geometry the viewer relies on (issue 14): frames as wide as their titles,
edges between pieces short and smooth, long skip edges bundled."""
from __future__ import annotations

import pytest
from layout_checks import check_layout

from onnxstudio.core import layout as lay
from onnxstudio.core.layout import LayoutEdge, LayoutNode, LayoutRequest

GRAPHVIZ = [e for e in ("dot", "pygraphviz") if e in lay.available_engines()]
ENGINES = GRAPHVIZ + ["builtin"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_a_group_is_at_least_as_wide_as_its_title(engine, rankdir):
    nodes = [LayoutNode("in", 60, 20), LayoutNode("a", 40, 20, ("intermediate",)),
             LayoutNode("b", 40, 20, ("intermediate", "act")), LayoutNode("out", 60, 20)]
    edges = [LayoutEdge("1", "in", "a"), LayoutEdge("2", "a", "b"), LayoutEdge("3", "b", "out")]
    titles = {("intermediate",): 260.0, ("intermediate", "act"): 180.0}
    req = LayoutRequest(nodes, edges, rankdir=rankdir, group_min_width=titles)
    out = lay.layout(req, engine=engine, cache=False)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []
    for path, width in titles.items():
        g = out.groups[path]
        # "Width" is across the page: x in TB, the frame's title runs along x in LR too.
        assert g.width >= width - 0.5, (path, g)


def test_title_widths_are_part_of_the_cache_key():
    from onnxstudio.core.layout.pieces import request_key
    nodes = [LayoutNode("a", 40, 20, ("g",))]
    narrow = LayoutRequest(nodes, [], group_min_width={("g",): 50.0})
    wide = LayoutRequest(nodes, [], group_min_width={("g",): 300.0})
    assert request_key(narrow, "t", 400) != request_key(wide, "t", 400)
