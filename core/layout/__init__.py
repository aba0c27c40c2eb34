"""Graph layout: boxes and arrows in, positions and B-spline curves out.

Public API (all of it re-exported here; see geometry.py and view.py for the
fields):

Input, plain data independent of ONNX::

    LayoutRequest(nodes=[LayoutNode(id, width, height, group=("enc", "layer.3"))],
                  edges=[LayoutEdge(id, source_id, target_id)],
                  rankdir="TB" | "LR")

Output, in points, origin top-left, y growing DOWNWARDS (Qt scene coords)::

    Layout.nodes[id]    -> NodeBox(x, y, width, height)        (top-left + size)
    Layout.edges[id]    -> EdgePath(points)  cubic Bezier, 3n+1 points; first
                           point on the source box border, last on the target's
    Layout.groups[path] -> GroupBox(x, y, width, height)       expanded groups
    Layout.width / .height, .engine, .warnings, .from_cache

Running a layout (blocking; call it from a worker thread, never the UI thread)::

    layout(request, engine="auto", cancel=CancelToken(), time_limit=60.0,
           cache=None) -> Layout        # raises LayoutCancelled on cancel

    engine: "auto" (the fastest found: dot executable, then pygraphviz in a
    worker process, then the built-in layered layout), or one of those names.
    cache: None = the default disk cache (~/.cache/onnxstudio/layout, or
    $ONNXSTUDIO_LAYOUT_CACHE), a LayoutCache(path), or False for none.
    available_engines() lists what this machine has.

From an ONNX graph (core.ir) to a request::

    view = build_view(graph, measure, expanded=None)   # -> GraphView
    result = layout(view.request)
    view.nodes[box_id] -> ViewNode(label, node | value | group, folded constants)
    view.edges[edge_id] -> ViewEdge(source, target, value)

    measure(NodeLabel) -> (width, height) is the viewer's text measurer.
    expanded: set of group paths to open (None = a default that keeps the
    number of boxes small); collapsed groups are single GROUP boxes.
    Subgraph bodies (If/Loop/Scan) and function bodies are separate graphs:
    call build_view on them when the user navigates into them.

Engines (why this order; README text): the `dot` program run as a
subprocess is the fastest and can be killed at once, so it is used whenever
it is on PATH (or named by $ONNXSTUDIO_DOT).  Without it, `pip install
pygraphviz` brings wheels with Graphviz built in (Linux x86_64/aarch64, macOS,
Windows); those library calls cannot be interrupted, so they run in worker
processes we kill on cancel.  With neither, a built-in layered layout is used
and Layout.warnings says how to get the real one: a model always opens.

Big graphs: no Graphviz call sees more than ~400 boxes (MAX_PIECE) or more
than ~3x that in boxes plus ranks crossed by edges.  Name-scope groups are
the pieces; pieces are laid out in parallel, stacked in flow order, and the
edges between them are routed by us (straight across the gap to the next
piece, or along a lane to the right).  Pieces are keyed by structure (sizes,
nesting, wiring; no names), so the 12 layers of a BERT are laid out once,
and the disk cache reuses pieces across models and sessions.
"""
from .api import available_engines, engine_tag, layout
from .cache import LayoutCache, default_cache_dir
from .dot_engine import EngineFailed, LayoutTimeout
from .from_graph import build_view
from .geometry import (CancelToken, EdgePath, GroupBox, GroupPath, Layout, LayoutCancelled,
                       LayoutEdge, LayoutNode, LayoutRequest, NodeBox, Point)
from .view import GROUP, INPUT, OP, OUTPUT, GraphView, GroupInfo, Measure, NodeLabel, ViewEdge, ViewNode

__all__ = [
    "available_engines", "engine_tag", "layout", "LayoutCache", "default_cache_dir",
    "EngineFailed", "LayoutTimeout", "build_view",
    "CancelToken", "EdgePath", "GroupBox", "GroupPath", "Layout", "LayoutCancelled",
    "LayoutEdge", "LayoutNode", "LayoutRequest", "NodeBox", "Point",
    "GROUP", "INPUT", "OP", "OUTPUT", "GraphView", "GroupInfo", "Measure", "NodeLabel",
    "ViewEdge", "ViewNode",
]
