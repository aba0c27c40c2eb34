"""layout(): choose an engine, cut into pieces, reuse cached and repeated
pieces, lay out the rest in parallel, stack, and route between pieces."""
from __future__ import annotations

import dataclasses
import functools
import os
import threading
from collections import OrderedDict
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Callable

from .builtin_engine import layout_builtin
from .cache import LayoutCache
from .dot_engine import EngineFailed, LayoutTimeout, dot_version, find_dot, layout_with_dot
from .geometry import CancelToken, Layout, LayoutCancelled, LayoutRequest
from .pieces import canonical, plan_pieces, request_key
from .pygraphviz_engine import layout_with_pygraphviz, pygraphviz_available, pygraphviz_version
from .stacking import STACK_VERSION, stack

ENGINES = ("dot", "pygraphviz", "builtin")
BUILTIN_VERSION = "builtin-2"    # bump when the built-in algorithm changes
MAX_PIECE = 400                  # dot stays well under a second per piece of this size
DEFAULT_TIME_LIMIT = 30.0        # seconds per Graphviz call
# A re-layout after an edit (between_pieces=False) up to this many boxes
# still looks for the whole result: an insert inside a closed group often
# leaves a default view's request as it was.
WHOLE_KEY_AFTER_EDIT = 2_000
NO_GRAPHVIZ = ("Graphviz was not found (neither the `dot` program nor the pygraphviz package), "
               "so a simpler built-in layout is shown. For the proper layout install Graphviz "
               "(https://graphviz.org/download/) or run `pip install pygraphviz`.")


def available_engines() -> list[str]:
    """Engines usable on this machine, fastest first; "builtin" is always there."""
    found = []
    if find_dot():
        found.append("dot")
    if pygraphviz_available():
        found.append("pygraphviz")
    return found + ["builtin"]


@functools.lru_cache(maxsize=8)
def _dot_tag(path: str) -> str:
    return f"dot:{dot_version(path)}"


def engine_tag(name: str) -> str:
    """Engine name plus version: a different Graphviz gives a different layout."""
    if name == "dot":
        return _dot_tag(find_dot() or "dot")
    if name == "pygraphviz":
        return f"pygraphviz:{pygraphviz_version()}"
    return BUILTIN_VERSION


class _Linked(CancelToken):
    """Set by the caller's token or by a failing sibling piece."""

    def __init__(self, outer: CancelToken | None):
        super().__init__()
        self._outer = outer

    @property
    def cancelled(self) -> bool:
        return super().cancelled or (self._outer is not None and self._outer.cancelled)

    def raise_if_cancelled(self) -> None:
        if self.cancelled:
            raise LayoutCancelled("layout cancelled")


def _choose(engine: str) -> tuple[str, list[str]]:
    if engine == "auto":
        found = available_engines()
        return found[0], ([NO_GRAPHVIZ] if found[0] == "builtin" else [])
    if engine not in ENGINES:
        raise ValueError(f"unknown layout engine {engine!r}; choose one of {', '.join(ENGINES)} or 'auto'")
    if engine != "builtin" and engine not in available_engines():
        return "builtin", [f"The {engine} layout engine is not installed. " + NO_GRAPHVIZ]
    return engine, []


def _run_engine(name, canon, cancel, time_limit) -> tuple[Layout, bool]:
    """(layout, exact): exact is False when we had to fall back to builtin."""
    runner = {"dot": layout_with_dot, "pygraphviz": layout_with_pygraphviz,
              "builtin": layout_builtin}[name]
    try:
        return runner(canon.request, canon.first_rank, canon.last_rank,
                      cancel=cancel, time_limit=time_limit), True
    except (LayoutTimeout, EngineFailed, OSError) as exc:
        if name == "builtin":
            raise
        cancel.raise_if_cancelled()
        result = layout_builtin(canon.request, canon.first_rank, canon.last_rank, cancel=cancel)
        result.warnings.append(f"{name} could not lay out a part of {len(canon.request.nodes)} boxes "
                               f"({exc}); that part uses the simple built-in layout.")
        return result, False


def _validate(request: LayoutRequest) -> None:
    seen = set()
    for n in request.nodes:
        if n.id in seen:
            raise ValueError(f"layout request names node {n.id!r} twice")
        if not (n.width >= 0 and n.height >= 0):
            raise ValueError(f"layout node {n.id!r} has a bad size {n.width} x {n.height}")
        seen.add(n.id)
    edge_ids = set()
    for e in request.edges:
        if e.source not in seen or e.target not in seen:
            raise ValueError(f"layout edge {e.id!r} joins unknown boxes {e.source!r} -> {e.target!r}")
        if e.id in edge_ids:
            raise ValueError(f"layout request names edge {e.id!r} twice")
        edge_ids.add(e.id)


# The pieces of the last few requests planned, by whole-request key.
_plans: "OrderedDict[str, list]" = OrderedDict()
_plans_lock = threading.Lock()
_PLANS_KEPT = 4


def _planned(whole_key: str, request: LayoutRequest, max_piece: int) -> list:
    """plan_pieces(request, max_piece), from memory when planned lately (the
    key names the request's boxes, edges and max_piece)."""
    with _plans_lock:
        pieces = _plans.get(whole_key)
        if pieces is not None:
            _plans.move_to_end(whole_key)
            return pieces
    pieces = plan_pieces(request, max_piece)
    with _plans_lock:
        _plans[whole_key] = pieces
        while len(_plans) > _PLANS_KEPT:
            _plans.popitem(last=False)
    return pieces


def layout(request: LayoutRequest, *, engine: str = "auto", cancel: CancelToken | None = None,
           time_limit: float | None = DEFAULT_TIME_LIMIT, cache: LayoutCache | None | bool = None,
           max_piece: int = MAX_PIECE, workers: int | None = None,
           progress: Callable[[int, int], None] | None = None, keep_whole: bool = True,
           between_pieces: bool = True, previous: Layout | None = None) -> Layout:
    """Lay out `request`; blocking, so call it from a worker thread.

    time_limit applies to each Graphviz call (one piece); a piece that runs
    over it is stopped and drawn by the built-in engine, with a warning.
    progress(done, total) is called (in the calling thread) as pieces finish.
    Raises LayoutCancelled as soon as `cancel` is set.
    keep_whole=False: the pieces are cached but not the whole result (a
    re-layout after an edit: writing 10k boxes costs more than the edit).
    between_pieces=False: edges between pieces are not routed (nor is the
    whole result cached): for a caller that pins pieces back after an edit
    and draws those edges itself (Layout.pieces names them).
    previous (with between_pieces=False, top to bottom): the layout shown
    before an edit. A piece equal to one of its pieces takes that piece's
    canonical form, and its inner edges are not drawn (Layout.deferred):
    the caller keeps them as they are shown (canvas/pinning.py).
    """
    _validate(request)
    name, warnings = _choose(engine)
    tag = engine_tag(name)
    store = LayoutCache() if cache is None else (cache or None)
    # A big request after an edit is seldom one laid out whole before (an
    # edit adds or changes a box there; an undo back to it is the case
    # missed, and it gives the same picture): spare its whole key (~0.1 s
    # on 10k boxes).
    whole = between_pieces or len(request.nodes) <= WHOLE_KEY_AFTER_EDIT
    whole_key = request_key(request, tag, max_piece, STACK_VERSION) if whole else None
    if store is not None and whole:
        hit = store.get(whole_key)
        if hit is not None:
            if between_pieces:
                return hit
            # A caller pinning pieces needs them. An insert inside a closed
            # group often leaves the request as it was (same box sizes and
            # edges): plan it once, not after every such edit (~50 ms).
            return dataclasses.replace(hit, pieces=_planned(whole_key, request, max_piece))

    token = _Linked(cancel)
    token.raise_if_cancelled()
    pieces = _planned(whole_key, request, max_piece) if whole else plan_pieces(request, max_piece)
    kept = _kept_pieces(pieces, request, tag, previous) if not between_pieces else {}
    canons = [kept[k] if k in kept else canonical(p, request, tag) for k, p in enumerate(pieces)]
    unique = {c.key: c for c in canons}
    results: dict[str, Layout] = {}
    if store is not None:
        for key in unique:
            hit = store.get(key)
            if hit is not None:
                results[key] = hit
    todo = [c for k, c in unique.items() if k not in results]
    total, exact_all = len(unique), True
    if progress:
        progress(len(results), total)

    def work(canon):
        result, exact = _run_engine(name, canon, token, time_limit)
        if exact and store is not None:
            store.put(canon.key, result)
        return canon.key, result, exact

    if todo:
        n_workers = workers or min(len(todo), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=max(1, n_workers), thread_name_prefix="layout") as pool:
            futures = [pool.submit(work, c) for c in todo]
            try:
                pending = set(futures)
                while pending:
                    done, pending = wait(pending, return_when=FIRST_EXCEPTION)
                    for f in done:
                        key, result, exact = f.result()   # re-raises a piece's error
                        results[key] = result
                        exact_all &= exact
                        if progress:
                            progress(len(results), total)
            except BaseException:
                token.cancel()      # stop the sibling pieces' dot processes too
                raise

    token.raise_if_cancelled()
    out = stack(pieces, canons, [results[c.key] for c in canons], request, between_pieces, set(kept))
    out.warnings = warnings + out.warnings
    if store is not None and exact_all and keep_whole and between_pieces:
        store.put(whole_key, out)
    out.pieces, out.canons = pieces, canons
    return out


def _kept_pieces(pieces, request: LayoutRequest, tag: str, previous: Layout | None) -> dict:
    """piece index -> the canonical form `previous` had for an equal piece.
    After an edit most pieces of a big graph are what they were: same box
    ids, sizes, groups and edges (box ids follow names, not positions)."""
    if previous is None or request.rankdir != "TB" or not previous.pieces or not previous.canons:
        return {}
    old_at = {p.nodes[0].id: j for j, p in enumerate(previous.pieces) if p.nodes}
    kept = {}
    for k, piece in enumerate(pieces):
        j = old_at.get(piece.nodes[0].id) if piece.nodes else None
        if j is None:
            continue
        old, canon = previous.pieces[j], previous.canons[j]
        # Lists of frozen dataclasses: compared field by field, in C.
        if old.nodes == piece.nodes and old.edges == piece.edges and old.entry_edges == piece.entry_edges \
                and old.exit_sources == piece.exit_sources and canon.fits(request, tag):
            kept[k] = canon
    return kept
