"""Every engine, small and pieced graphs: boxes never overlap, curves end on
their boxes, groups enclose their members."""
from __future__ import annotations

import pytest
from layout_checks import check_layout, random_request

from onnxstudio.core import layout as lay
from onnxstudio.core.layout import LayoutEdge, LayoutNode, LayoutRequest, api
from onnxstudio.core.layout.synthetic import BLOCK_SIZE, transformer_request

GRAPHVIZ = [e for e in ("dot", "pygraphviz") if e in lay.available_engines()]
ENGINES = GRAPHVIZ + ["builtin"]


def diamond(rankdir="TB"):
    nodes = [LayoutNode("in", 60, 20), LayoutNode("a", 80, 30, ("blk",)),
             LayoutNode("b", 50, 30, ("blk", "inner")), LayoutNode("c", 70, 40, ("blk", "inner")),
             LayoutNode("out", 60, 20)]
    edges = [LayoutEdge("1", "in", "a"), LayoutEdge("2", "a", "b"), LayoutEdge("3", "a", "c"),
             LayoutEdge("4", "b", "out"), LayoutEdge("5", "c", "out"), LayoutEdge("6", "in", "out"),
             LayoutEdge("7", "in", "out")]   # a repeated edge (same value used twice)
    return LayoutRequest(nodes, edges, rankdir=rankdir)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_small_graph_is_sound_and_flows_along_rankdir(engine, rankdir):
    req = diamond(rankdir)
    out = lay.layout(req, engine=engine, cache=False)
    assert out.engine == engine
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []
    axis = 1 if rankdir == "TB" else 0
    centre = {k: b.center[axis] for k, b in out.nodes.items()}
    for e in req.edges:
        assert centre[e.source] < centre[e.target], (e, centre)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_graphs_single_piece(engine, seed):
    req = random_request(150, seed)
    out = lay.layout(req, engine=engine, cache=False)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_random_graph_in_pieces_with_cycles(engine, rankdir):
    req = random_request(500, 7, rankdir=rankdir, cycles=3, window=30)
    out = lay.layout(req, engine=engine, cache=False, max_piece=80)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []


@pytest.mark.parametrize("engine", ENGINES)
def test_transformer_in_pieces_is_sound(engine):
    req = transformer_request(6)
    out = lay.layout(req, engine=engine, cache=False, max_piece=BLOCK_SIZE + 5)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []
    # The stacked pieces keep the flow direction: each layer below the previous.
    tops = [out.groups[("encoder", f"layer.{i}")].y for i in range(6)]
    assert tops == sorted(tops)


def test_repeated_blocks_are_laid_out_once(monkeypatch):
    calls = []
    real = api.layout_builtin

    def counting(request, *args, **kwargs):
        calls.append(len(request.nodes))
        return real(request, *args, **kwargs)

    monkeypatch.setattr(api, "layout_builtin", counting)
    req = transformer_request(12)
    out = lay.layout(req, engine="builtin", cache=False, max_piece=BLOCK_SIZE + 5)
    # embeddings+mask, one shared layer block, the head (the first and last
    # layers differ from the middle ones only if their wiring does).
    assert len(calls) <= 5, calls
    assert check_layout(req, out, clusters_exact=False) == []
    # Identical blocks have identical geometry relative to their group box.
    def relative(layer):
        g = out.groups[("encoder", f"layer.{layer}")]
        return sorted((k.split("/")[-1], round(b.x - g.x, 3), round(b.y - g.y, 3))
                      for k, b in out.nodes.items() if k.startswith(f"/encoder/layer.{layer}/"))
    assert relative(3) == relative(8)


def test_empty_and_single_node():
    assert lay.layout(LayoutRequest([], []), cache=False).nodes == {}
    one = lay.layout(LayoutRequest([LayoutNode("x", 40, 20)], []), cache=False)
    box = one.nodes["x"]
    assert (box.width, box.height) == (40, 20) and box.x >= 0 and box.y >= 0


def test_bad_requests_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown boxes"):
        lay.layout(LayoutRequest([LayoutNode("a", 1, 1)], [LayoutEdge("e", "a", "zz")]), cache=False)
    with pytest.raises(ValueError, match="twice"):
        lay.layout(LayoutRequest([LayoutNode("a", 1, 1), LayoutNode("a", 2, 2)], []), cache=False)
    with pytest.raises(ValueError, match="rankdir"):
        LayoutRequest([], [], rankdir="BT")
    with pytest.raises(ValueError, match="unknown layout engine"):
        lay.layout(diamond(), engine="neato", cache=False)


def test_self_loops_are_dropped():
    req = LayoutRequest([LayoutNode("a", 10, 10), LayoutNode("b", 10, 10)],
                        [LayoutEdge("loop", "a", "a"), LayoutEdge("ab", "a", "b")])
    out = lay.layout(req, cache=False)
    assert set(out.edges) == {"ab"}
