"""What a run shows on the canvas, drawn by items of its own on top of the
graph scene (the scene's node and edge items stay as the viewer made them):

- a tag on every edge whose value is computed: shape and dtype, with min,
  max and mean in its tooltip (red when it holds NaN/Inf); a click
  inspects it; after a run that computed only what an edit left out, the
  tags of the values it computed again are amber, the kept ones as before;
  once the Run dock's inputs change, every tag is grey and dashed (its
  value is of the inputs before) until a run or step on the new ones;
  tags keep clear of each other, of boxes, group titles and type labels,
  and sit on or beside their own edge (no other edge nearer); a tag with
  no such place is not shown, and its edge's tooltip says so;
- the current node (the one the next step runs): a thick outline and a ▶;
- breakpoints: a red dot on the node's left edge;
- nodes that produced NaN/Inf: a red flag saying "NaN", or "Inf" when their
  outputs hold infinities only (an attention mask's -inf);
- the node a run failed at (inside its body when it is in one): a red
  outline and a "failed" flag, the message in its tooltip;
- after a comparison, each node's band coloured by its error on the
  legend's scale (green = agrees, yellow .. red = larger errors).

The overlay rebuilds after every layout and run update; it keeps no state of
its own besides the items it placed and the tags still to place (a few per
event-loop turn, so a large model's tags never hold the UI at once).
"""
from __future__ import annotations

import bisect
import math
from typing import Callable, Optional

import time

import numpy as np
from PySide6.QtCore import QCoreApplication, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem
from shiboken6 import isValid

from onnxstudio.core.exec.tensor_stats import has_nan, tensor_stats
from onnxstudio.core.exec.values import describe
from onnxstudio.core.ir import Node
from onnxstudio.core.layout import ViewEdge

from .. import turns
from ..canvas import fonts
from ..canvas.scene import remove_items
from .compare_work import error_colour_fraction, shown_error, unmeasured_note

# The clock of the UI thread's work per turn (tags placed, the ground made):
# its time on a core where that clock is fine-grained (Linux, macOS), so that
# on a busy machine the time spent waiting for a core does not cut a turn's
# share short (a refresh then showed none of a small body's tags at once);
# the wall clock elsewhere (Windows counts thread time in 15.6 ms steps).
_work_clock = time.thread_time if time.get_clock_info("thread_time").resolution <= 1e-6 else time.perf_counter

CURRENT = QColor("#f08c00")
BREAK = QColor("#d62828")
TAG_FILL = QColor("#e6f4f1")
TAG_TEXT = QColor("#0b6e5f")
TAG_BAD = QColor("#fde2e2")
# A value the last run computed again, when it kept the others (after an edit).
TAG_FRESH_FILL = QColor("#fff0c2")
TAG_FRESH_TEXT = QColor("#8a5300")
# A value computed from the inputs before their last change.
TAG_STALE_FILL = QColor("#eeeeee")
TAG_STALE_TEXT = QColor("#8a8a8a")


def error_colour(rel: float, agrees: bool) -> QColor:
    """Green when the node agrees; else yellow (small error) to red (large) on a log scale."""
    if agrees:
        return QColor("#3fa34d")
    t = error_colour_fraction(rel, lo=1e-6, hi=1.0)
    hue = 55 - 55 * t        # 55 = yellow ... 0 = red
    return QColor.fromHsvF(max(hue, 0) / 360.0, 0.85, 0.95)


class ValueTag(QGraphicsItem):
    """Shape and dtype of a computed value, beside its edge. Its statistics
    are worked out when the pointer first rests on it (a run of a big model
    puts a tag on every edge; summing all of them at once would stall the UI)."""

    def __init__(self, anchor: QPointF, text: str, name: str, value, bad: bool, on_click: Callable):
        super().__init__()
        self.text = text
        self.name = name
        self.value = value
        self.bad = bad
        self.on_click = on_click
        w = fonts.text_width(text) + 8
        h = fonts.line_height() + 2
        self.rect = QRectF(0, 0, w, h)
        self.setPos(anchor.x() - w - 6, anchor.y() - h / 2)
        self.note = ""                # which run of its body the value is from, when it ran several
        self.fresh: Optional[bool] = None   # computed again by the last run (True) or kept (False)
        self.stale = False            # computed from the inputs before their last change
        self.setToolTip(f"{name}\n{describe(value)}")
        self.setZValue(3)
        self.setCursor(Qt.PointingHandCursor)
        self.setAcceptHoverEvents(True)
        # Kept as a pixmap: a step or a progress update repaints the canvas,
        # and drawing 150 tags' text again each time was a good part of it.
        self.setCacheMode(QGraphicsItem.DeviceCoordinateCache)
        self._detailed = False

    def detail(self) -> str:
        """The full tooltip: name, type and statistics (computed once)."""
        if not self._detailed:
            self._detailed = True
            tip = f"{self.name}\n{describe(self.value)}"
            if not isinstance(self.value, (list, dict)):
                tip += "\n" + tensor_stats(self.value).summary()
            if self.note:
                tip += "\n" + self.note
            if self.fresh is not None:
                tip += "\n" + fresh_text(self.fresh)
            if self.stale:
                tip += "\n" + stale_inputs_text()
            self.setToolTip(tip)
        return self.toolTip()

    def hoverEnterEvent(self, event) -> None:
        self.detail()
        super().hoverEnterEvent(event)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        if option.levelOfDetailFromTransform(painter.worldTransform()) < 0.4:
            return
        fresh = self.fresh and not self.bad and not self.stale
        if self.stale:
            painter.setPen(QPen(TAG_STALE_TEXT, 1, Qt.DashLine))
            painter.setBrush(TAG_STALE_FILL)
        else:
            painter.setPen(QPen(BREAK if self.bad else TAG_FRESH_TEXT if fresh else TAG_TEXT, 2 if fresh else 1))
            painter.setBrush(TAG_BAD if self.bad else TAG_FRESH_FILL if fresh else TAG_FILL)
        painter.drawRoundedRect(self.rect, 3, 3)
        painter.setFont(fonts.body_font())
        painter.drawText(self.rect, Qt.AlignCenter, self.text)

    def mousePressEvent(self, event) -> None:
        self.on_click()
        event.accept()


def random_boundary_text() -> str:
    """What a value made up for a selection run is (its tooltip, the inspector)."""
    return QCoreApplication.translate("RunOverlay", "random values fed to the selection run (the last run left "
                                                    "no value here): not what its producer computes")


def fresh_text(fresh: bool) -> str:
    """The tag tooltip's legend line for a value computed again or kept."""
    if fresh:
        return QCoreApplication.translate("RunOverlay", "computed again by the last run (amber tags; the "
                                                        "others were kept from the run before)")
    return QCoreApplication.translate("RunOverlay", "kept from the run before (the last run computed only "
                                                    "the amber tags again)")


def stale_inputs_text() -> str:
    """What a value computed before the Run dock's inputs last changed is (its tag's tooltip, the inspector)."""
    return QCoreApplication.translate("RunOverlay", "computed from the inputs before your last change: run again "
                                                    "to see their value")


def nonfinite_word(debug, node, names) -> str:
    """What the flag of a node whose outputs `names` hold NaN/Inf says:
    "Inf" when none holds a NaN (the -inf of an attention mask is expected;
    every such node of bert_small was flagged "NaN", QA), "NaN" when one
    does, "NaN/Inf" when the values are no longer kept to tell."""
    seen = False
    for value in node.outputs:
        if value is None or value.name not in names:
            continue
        array = debug.value_of(value)
        if array is None:
            return "NaN/Inf"
        seen = True
        if has_nan(array):
            return "NaN"
    return "Inf" if seen else "NaN/Inf"


class NodeMark(QGraphicsItem):
    """Run state of one node box: current, breakpoint, NaN/Inf flag, failure, error band."""

    def __init__(self, rect: QRectF, *, current=False, breakpoint=False, nonfinite=False,  # noqa: A002
                 nonfinite_word: str = "NaN", failed=False, band: Optional[QColor] = None, tooltip: str = ""):
        super().__init__()
        self.rect = QRectF(rect)
        self.current = current
        self.breakpoint = breakpoint
        self.nonfinite = nonfinite
        self.nonfinite_word = nonfinite_word
        self.failed = failed
        self.band = band
        if tooltip:
            self.setToolTip(tooltip)
        # Bands sit under the box (they frame it); markers above it.
        self.setZValue(1.9 if band is not None and not (current or breakpoint or nonfinite or failed) else 3.5)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-22, -16, 8, 8)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        if self.breakpoint:
            path.addEllipse(self._dot())
        return path

    def _dot(self) -> QRectF:
        r = 7.0
        c = QPointF(self.rect.left() - 1, self.rect.top() + 10)
        return QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing, True)
        if self.band is not None:
            pen = QPen(self.band, 6)
            painter.setPen(pen)
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(self.rect.adjusted(-3, -3, 3, 3), 6, 6)
        if self.current:
            pen = QPen(CURRENT, 3.5)
            painter.setPen(pen)
            painter.setBrush(Qt.NoBrush)
            painter.drawRoundedRect(self.rect.adjusted(-4, -4, 4, 4), 6, 6)
            y = self.rect.center().y()
            x = self.rect.left() - 8
            painter.setPen(Qt.NoPen)
            painter.setBrush(CURRENT)
            painter.drawPolygon(QPolygonF([QPointF(x - 12, y - 8), QPointF(x, y), QPointF(x - 12, y + 8)]))
        if self.breakpoint:
            painter.setPen(QPen(QColor("white"), 1.5))
            painter.setBrush(BREAK)
            painter.drawEllipse(self._dot())
        if self.failed:
            self._paint_failed(painter)
        if self.nonfinite:
            width = max(30, fonts.text_width(self.nonfinite_word) + 8)
            tag = QRectF(self.rect.right() - width, self.rect.top() - 12, width, 14)
            painter.setPen(Qt.NoPen)
            painter.setBrush(BREAK)
            painter.drawRoundedRect(tag, 3, 3)
            painter.setPen(QColor("white"))
            painter.setFont(fonts.body_font())
            painter.drawText(tag, Qt.AlignCenter, self.nonfinite_word)


    @staticmethod
    def failed_flag(rect: QRectF) -> QRectF:
        """Where the "failed" flag of a box at `rect` goes (value tags keep clear of it)."""
        width = fonts.text_width(QCoreApplication.translate("RunOverlay", "failed")) + 12
        return QRectF(rect.left() + 4, rect.top() - 15, width, 15)

    def _paint_failed(self, painter: QPainter) -> None:
        """A red outline outside the current one, and a "failed" flag on the top left edge."""
        painter.setPen(QPen(BREAK, 3.0, Qt.DashLine))
        painter.setBrush(Qt.NoBrush)
        painter.drawRoundedRect(self.rect.adjusted(-7, -7, 7, 7), 8, 8)
        text = QCoreApplication.translate("RunOverlay", "failed")
        tag = self.failed_flag(self.rect)
        painter.setPen(Qt.NoPen)
        painter.setBrush(BREAK)
        painter.drawRoundedRect(tag, 3, 3)
        painter.setPen(QColor("white"))
        painter.setFont(fonts.body_font())
        painter.drawText(tag, Qt.AlignCenter, text)


def _kept_run_note(debug, graph, name: str, iteration: Optional[int] = None) -> str:
    """For a body value a whole run kept: which run of the body it is from,
    when the body ran more than once (a loop's iterations); else ""."""
    kept = debug.kept
    path = graph.path
    runs = kept.runs.get(path, 0) if kept is not None else 0      # a subgraph's or a function's body
    if runs < 2 or not kept.holds(path, name):
        return ""
    if iteration is not None:
        return QCoreApplication.translate("RunOverlay", "from iteration {i} of the {n} runs of this body").format(
            i=iteration, n=runs)
    return QCoreApplication.translate("RunOverlay", "from the last of {n} runs of this body (iteration {i})").format(
        n=runs, i=kept.iterations[path])


class RunOverlay:
    """Places run items on the graph panel's scene."""

    def __init__(self, panel, controller, inspect: Callable):
        self.panel = panel
        self.controller = controller
        self.inspect = inspect          # inspect(ir Value) when a value tag is clicked
        # note_hidden(count) after tags were placed with `count` of them hidden
        # for lack of room (a tooltip alone would leave the user guessing).
        self.note_hidden: Callable | None = None
        self.items: list = []
        self.show_values = True
        self.colour_by = "total"        # the comparison's colouring: "total" or "own" error (the Compare dock's)
        self.recomputed: set = set()    # names the last whole run computed again while it kept others
        self._placed: dict = {}         # where each tag went last time (see _place_all)
        self._placed_before: dict = {}  # _placed of the refresh before, while tags are being placed
        self._points: dict = {}         # points along each edge (see _along)
        self._lines: dict = {}          # each edge's curve as a polyline (see _line)
        # Tags with no place beside their edge (value name -> tag text), and the
        # edges whose tooltip says so (see _hide).
        self.hidden: dict = {}
        self._hidden_tags: set = set()  # their ids
        self._noted_edges: list = []
        self._ground = None             # the _Ground of the layout shown (see _ground_of)
        self._grounding = None          # (what it is for, the generator) while one is made in slices
        self._ground_seen = None
        self._marks: list = []          # the NodeMarks among the items
        self.iteration: Optional[int] = None    # a loop body's iteration to show (None: the last run)
        controller.busy.connect(lambda _what: self.recomputed.clear())
        controller.ran.connect(self._note_ran)
        self._shown = None              # what the items show (see _state)
        self._tags: dict = {}           # the tags shown, by what they show (see _value_tags)
        # Tags still to be placed, a few per event-loop turn (see _place_some),
        # with the room they keep clear of; `chunks` counts the tags each turn
        # placed since the last refresh that had new places to find.
        self._pending: list = []
        self._pending_room: Optional[_Room] = None
        self.chunks: list = []
        # One chunk per turn, and not in a turn where other deferred work ran (ui/turns.py).
        self._placer = turns.slice_timer(None, self._place_some, self._alive)
        panel.laid_out.connect(self._laid_out)
        self._refresher = turns.slice_timer(None, self.refresh, self._alive)
        # What tags keep clear of (~15-30 ms for bert_12layer_narrow's 199 edges)
        # is made while a job runs, when the UI thread has nothing else to do,
        # not in the refresh that shows its result.
        self._grounder = turns.slice_timer(None, self._prepare_ground, self._alive)
        controller.busy.connect(lambda _what: self._grounder.start())
        controller.updated.connect(self.follow)
        controller.stopped.connect(lambda _e: self.follow())
        controller.report_ready.connect(lambda _r: self.follow())

    def _alive(self) -> bool:
        """Whether the canvas is still there: the timers are not owned by it,
        and one may come due after the window closed."""
        return isValid(self.panel) and isValid(self.panel.scene)

    def clear(self) -> None:
        self._unnote_edges()
        if self.note_hidden is not None:
            self.note_hidden(0)         # no tags now: the count of hidden ones must not stay behind
        remove_items(self.panel.scene, self.items)
        self.items = []
        self._marks = []
        self._tags = {}
        self._shown = None
        self._ground = None
        self._grounding = None
        self._stop_placing()

    @property
    def placing(self) -> bool:
        """Whether some value tags still wait for their place (they appear
        over a few event-loop turns), or a refresh for their turn."""
        return bool(self._pending) or self._refresher.isActive()

    def refresh_soon(self) -> None:
        """`refresh` on a turn of the event loop of its own (asked again meanwhile: once)."""
        self._refresher.start()

    def follow(self) -> None:
        """Refresh for what the controller announced: at once after your own
        command (a breakpoint set), on a turn of its own while a job's result
        is being shown. A step asked three times (stopped, keeping the node
        in view, updated) while its result was handled, with the canvas's
        repaint and the Properties form in the same pause; now once, alone."""
        if self.controller.delivering:
            self.refresh_soon()
        else:
            self.refresh()

    def _stop_placing(self) -> None:
        self._pending = []
        self._pending_room = None
        self._placer.stop()

    def _take_tags(self, scene) -> dict:
        """Take every item off the scene but the value tags, and hand those
        over (by what they show) for the refresh to keep what it can."""
        # Hidden ones too (see _hide): made again each step, they were a good part of its refresh.
        waiting = {id(entry[0]) for entry in self._pending} | self._hidden_tags
        tags = {key: tag for key, tag in self._tags.items()
                if isValid(tag) and (tag.scene() is scene or id(tag) in waiting)}
        self._stop_placing()
        kept = set(map(id, tags.values()))
        remove_items(scene, [item for item in self.items if id(item) not in kept])
        self.items = []
        self._marks = []
        self._tags = {}
        self._shown = None
        return tags

    def _laid_out(self) -> None:
        self.clear()            # the scene's items are new: never take the old state for theirs
        self.refresh()

    def refresh(self) -> None:
        """Place the run's items again, unless they already show the state
        the run is in (a few tens of ms on a large model)."""
        self._refresher.stop()
        debug = self.controller.debug_if_any
        scene = self.panel.scene
        vm = scene.view_model
        state = self._state(debug, scene, vm)
        if state is not None and state == self._shown:
            return
        if state is not None and self._shown is not None and state[0] == self._shown[0]:
            # The tags show what they showed (a step starting, a breakpoint
            # set): only the node marks change.
            self._shown = state
            marks = set(map(id, self._marks))
            remove_items(scene, self._marks)
            self.items = [item for item in self.items if id(item) not in marks]
            self._marks = []
            self._node_marks(scene, vm, debug, self.panel.level.graph)
            return
        old = self._take_tags(scene)         # still on the scene: _value_tags keeps what it can
        if debug is None or vm is None or not self.panel.levels or not self.show_values:
            remove_items(scene, old.values())
            old = {}
        if debug is None or vm is None or not self.panel.levels:
            return
        self._shown = state
        graph = self.panel.level.graph
        if self.show_values:
            self._value_tags(scene, debug, graph, old)
        remove_items(scene, old.values())
        self._node_marks(scene, vm, debug, graph)

    def _state(self, debug, scene, vm):
        """Everything the items are drawn from, compared by identity (the
        values by their arrays' ids: a run again gives new arrays), as (what
        the value tags show, what only the node marks show); None when
        there is nothing to show."""
        if debug is None or vm is None or not self.panel.levels:
            return None
        c = self.controller
        kept = debug.kept
        graph = self.panel.level.graph
        # The canvas's types (new after each analysis): the edges' type labels
        # may have moved, and tags keep clear of them.
        tags = (id(scene), id(vm), id(graph), id(debug), self.show_values, id(getattr(self.panel, "inferred", None)),
                tuple(map(id, debug.values.values())), id(kept), len(kept.values) if kept is not None else 0,
                id(self._failed_node(debug, graph)), tuple(map(id, debug.nonfinite)),
                tuple(debug.nonfinite_inputs), frozenset(self.recomputed), self._body_state(debug), self.iteration,
                c.inputs_stale)
        marks = (c.running, id(debug.current), tuple(map(id, debug.breakpoints)), id(debug.error), id(c.report),
                 c.report_current, self.colour_by)
        return tags, marks

    def _body_state(self, debug) -> tuple:
        """The arrays a body level's tags read (a step in a loop replaces them in place)."""
        bodies = debug.body_values
        graph, out = self.panel.level.graph, []
        while graph is not None and graph.parent_graph is not None:
            out.append(tuple(map(id, bodies.get(id(graph), {}).values())))
            graph = graph.parent_graph
        return tuple(out)

    def _value_tags(self, scene, debug, graph, old: dict) -> None:
        """A tag on each edge with a computed value. One that shows the same
        array the same way as before stays (a step adds a tag or two; making
        all of them again, and repainting them, was most of its pause);
        `old` keeps the ones no edge took any more."""
        done = set()
        tags = []          # (tag or what makes it, edge), placed together once all are known
        room = _Room(self._ground_of(scene), scene)
        failed = self._failed_item(scene, debug, graph)
        if failed is not None:
            room.add_mark(_box(NodeMark.failed_flag(failed.scene_rect())))
        bad_names = {name for names in debug.nonfinite.values() for name in names}
        bad_names.update(debug.nonfinite_inputs)
        stale = self.controller.inputs_stale
        for edge in scene.edge_items.values():
            value = edge.ref.value if isinstance(edge.ref, ViewEdge) else None
            if value is None or id(value) in done:
                continue
            computed = self._value_shown(debug, graph, value)
            if computed is None or value.const is not None:
                continue
            done.add(id(value))
            note = _kept_run_note(debug, graph, value.name, self._iteration_in(debug, graph, value.name))
            if value.name in debug.randomised and graph is debug.graph:
                note = random_boundary_text()
            fresh = value.name in self.recomputed if self.recomputed and graph is self.controller.model.graph \
                else None
            # The tag (or what makes it) holds its array, so no other array can have its id meanwhile.
            key = (id(edge), id(computed), value.name in bad_names, note, fresh, stale)
            tag = old.pop(key, None)
            if tag is None:
                tag = _TagToMake(key, value, computed, value.name in bad_names, note, fresh, stale)
            else:
                self._tags[key] = tag            # still on the scene where it was, or hidden
                if tag.scene() is scene:
                    self.items.append(tag)
            tags.append((tag, edge))
        for tag in self._place_all(room, tags):
            self._show_tag(scene, tag)

    def _make_tag(self, spec: "_TagToMake", edge) -> ValueTag:
        value = spec.value
        tag = ValueTag(QPointF(*self._along(edge)[0]), _short(describe(spec.computed)), value.name, spec.computed,
                       spec.bad, lambda v=value: self.inspect(v))
        tag.note = spec.note
        tag.fresh = spec.fresh
        tag.stale = spec.stale
        self._tags[spec.key] = tag
        return tag

    def _show_tag(self, scene, tag: ValueTag) -> None:
        if tag.scene() is not scene:
            scene.addItem(tag)
            self.items.append(tag)

    def _iteration_in(self, debug, graph, name: str) -> Optional[int]:
        """The iteration chosen (see `iteration`) when `name` is a value the
        body shown records in each of its runs; else None (its last run)."""
        kept = debug.kept
        if self.iteration is None or kept is None or not kept.holds(graph.path, name):
            return None
        return self.iteration

    def _value_shown(self, debug, graph, value):
        """The value of `value` the tags show: of the chosen iteration of a
        loop body (None when that iteration's was not kept), else the run's."""
        i = self._iteration_in(debug, graph, value.name)
        if i is not None:
            return debug.kept.value_in_run(graph.path, value.name, i)
        return debug.value_of(value) if value.graph is graph or value.graph is None else \
            debug.value_of(value.name, graph)

    def value_shown(self, value):
        """(the array the canvas shows for `value`, the loop iteration it is
        from or None): inside a loop body the chosen iteration's, else the run's."""
        debug = self.controller.debug_if_any
        if debug is None:
            return None, None
        graph = self.panel.level.graph if self.panel.levels else None
        if graph is None or value.graph is not graph:
            return debug.value_of(value), None
        return self._value_shown(debug, graph, value), self._iteration_in(debug, graph, value.name)

    def show_iteration(self, iteration: Optional[int], follow: bool = False) -> None:
        """Show the values of this iteration of the loop body on the canvas
        (None: the last); at once, or with `follow` when `follow` would."""
        self.iteration = iteration
        if follow:
            self.follow()
        else:
            self.refresh()

    # Making the ground of bert_12layer_narrow's 199 edges is 12-14 ms on a
    # core (the edges' curves flattened, the labels read): done in slices of
    # GROUND_SLICE_S, one per turn, while the first job runs.
    GROUND_SLICE_S = 0.004

    def _prepare_ground(self) -> None:
        """A slice of making the ground for the level shown; the rest on later turns."""
        scene = self.panel.scene
        if isValid(scene) and scene.view_model is not None and self.panel.levels \
                and not self._ground_work(scene, _work_clock() + self.GROUND_SLICE_S):
            self._grounder.start()

    def _ground_of(self, scene) -> "_Ground":
        """The ground for `scene`, finished now if slices of it are still to come."""
        self._ground_work(scene, math.inf)
        return self._ground

    def _ground_work(self, scene, until: float) -> bool:
        """Make the ground for `scene` (or keep the one made) until the clock
        reads `until`; whether it is done. Labels as drawn now cost ~5 ms to
        read on a large level: read again only for another scene, layout or
        set of types (see _state)."""
        seen = (id(scene), id(scene.view_model), id(getattr(self.panel, "inferred", None)))
        if self._ground is not None and self._ground_seen == seen:
            return True
        if self._grounding is None or self._grounding[0] != seen:
            self._grounding = (seen, self._make_ground(scene))
        for _ in self._grounding[1]:
            if _work_clock() >= until:
                return False
        self._grounding = None
        self._ground_seen = seen
        return True

    def _make_ground(self, scene):
        """Read the labels and make the ground, unless the one made has the
        same key; a generator that yields after each item, to be cut in slices."""
        labels = []
        for edge in list(scene.edge_items.values()):
            label = getattr(edge, "label_rect", None) if isValid(edge) else None
            if label is not None:
                labels.append(_box(label))
            yield
        labels = tuple(labels)
        key = (id(scene), id(scene.view_model), hash(labels))
        if self._ground is None or self._ground.key != key:
            ground = _Ground(key)
            yield from ground.fill(scene, labels, self._line)
            self._ground = ground

    def _note_ran(self, _outputs) -> None:
        """After a whole run that computed only what an edit left out: the
        names it computed, so their tags stand apart from the kept ones. A
        run that computed everything (or a selection) marks none."""
        debug = self.controller.debug_if_any
        model = self.controller.model
        self.recomputed = set()
        if debug is None or model is None or debug.selection:
            return
        ran = debug.nodes_run
        if 0 < len(ran) < len(model.graph.nodes):
            self.recomputed = {v.name for node in ran for v in node.outputs if v is not None}

    PLACES = (0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)
    GAP = 6.0              # between an edge and a tag beside it
    NEAR = 20.0            # how much further out a tag may go to keep clear of boxes

    # Making a tag and finding its place cost ~1 ms in a crowded graph, up to
    # 16 ms for a tag that finds no place (every candidate tried): after the
    # first run of a large model (149 tags on bert_12layer_narrow) doing all
    # of them at once held the UI for 56-95 ms (more on a loaded machine). So
    # they are made and placed a few per event-loop turn, each turn at most
    # CHUNK_S (a search cut short goes on next turn) or CHUNK_TAGS tags, and
    # appear as they are placed.
    CHUNK_S = 0.004
    CHUNK_TAGS = 25

    def _place_all(self, room: "_Room", tags: list) -> list:
        """Place every (tag, edge); a tag may still be to make (_TagToMake).
        A tag whose edge, size and label are as at the last refresh on this
        layout goes where it went then (the search costs ~1 ms a tag in a
        crowded graph, and a step or a second refresh for the same run would
        redo all of them); they go in first, so the new ones keep clear of
        them. Returns the tags placed now; the rest wait for _place_some,
        the first turn's share done at once."""
        self._stop_placing()
        self._unnote_edges()
        # A placement cut short by this refresh still remembers the places before it.
        self._placed_before, self._placed = {**self._placed_before, **self._placed}, {}
        self._pending, self._pending_room = [[tag, edge, None, None] for tag, edge in tags], room
        self.chunks = []
        now = self._place_chunk()
        if self._pending:
            self._placer.start()
        return now

    def _place_chunk(self) -> list:
        """Make and place pending tags for up to CHUNK_S (at most CHUNK_TAGS
        new places searched); the tags placed (shown). The queue holds first
        every tag to make or put where it went before, then (appended as they
        come up) those whose place is to be searched, as [tag, edge, its
        place key, its search under way]. A tag with no place beside its own
        edge is hidden (see _hide)."""
        end = _work_clock() + self.CHUNK_S
        done, room, searched = [], self._pending_room, 0
        while self._pending and searched < self.CHUNK_TAGS:
            entry = self._pending[0]
            tag, edge, key, search = entry
            if key is None:                    # first time in the queue
                self._pending.pop(0)
                if isinstance(tag, _TagToMake):
                    tag = entry[0] = self._make_tag(tag, edge)
                key = entry[2] = _place_key(tag, edge, room.fixed)
                rect = self._placed_before.get(key, _UNKNOWN)
                if rect is _UNKNOWN:
                    self._pending.append(entry)
                    # Making 149 tags is ~10 ms on a core: the clock counts it too.
                    if _work_clock() >= end:
                        break
                    continue
            else:
                if search is None:
                    search = entry[3] = self._place(room, tag, edge)
                rect = _search_until(search, end)
                if rect is _UNFINISHED:
                    break                      # goes on next turn, where it stopped
                self._pending.pop(0)
                searched += 1
            self._placed[key] = rect
            if rect is None:
                self._hide(tag, edge)
            else:
                self._put(room, tag, rect)
                done.append(tag)
            if _work_clock() >= end:
                break
        self.chunks.append(len(done))
        if not self._pending:
            self._pending_room = None
            self._placed_before = {}
            if self.note_hidden is not None:
                self.note_hidden(len(self.hidden))
        return done

    def _hide(self, tag: ValueTag, edge) -> None:
        """No place beside its own edge: the tag is not shown (never beside
        another edge or over a label or tag); its edge's tooltip says so, and
        selecting the edge shows the value in the Tensor Inspector."""
        if tag.scene() is not None:
            tag.scene().removeItem(tag)
        self.items = [item for item in self.items if item is not tag]
        self.hidden[tag.name] = tag.text
        self._hidden_tags.add(id(tag))
        if isValid(edge):
            edge.setToolTip(edge.tooltip_text() + "\n" + QCoreApplication.translate(
                "RunOverlay", "run value {text}: no room for its tag beside this edge (select the edge to "
                              "inspect it)").format(text=tag.text))
            self._noted_edges.append(edge)

    def _unnote_edges(self) -> None:
        """The edges' own tooltips back (see _hide)."""
        for edge in self._noted_edges:
            if isValid(edge):
                edge.setToolTip(edge.tooltip_text())
        self._noted_edges = []
        self.hidden = {}
        self._hidden_tags = set()

    def _place_some(self) -> None:
        """One event-loop turn's share of the pending tags, then the next turn."""
        scene = self.panel.scene
        if self._pending_room is None or not isValid(scene) or scene is not self._pending_room.scene:
            self._stop_placing()             # the scene they were for is gone (another level or model)
            return
        for tag in self._place_chunk():
            if isValid(tag):
                self._show_tag(scene, tag)
        if self._pending:
            self._placer.start()

    def _along(self, edge) -> list:
        """The points at PLACES along the edge, kept until a layout moves it.
        Measured on the curve flattened once: QPainterPath measures the whole
        curve again on each pointAtPercent (70 us an edge for the seven)."""
        key = (edge.key, tuple(edge.points))
        points = self._points.get(key)
        if points is None:
            if len(self._points) > 20000:          # layouts come and go: forget the old ones
                self._points.clear()
            line = self._line(edge)
            points = self._points[key] = _points_at(line, self.PLACES) if len(line) > 1 else \
                [(p.x(), p.y()) for p in map(edge.path.pointAtPercent, self.PLACES)]
        return points

    def _place(self, room: "_Room", tag: ValueTag, edge):
        """Where the tag goes, or None when nowhere; a generator that yields
        after each candidate tried and returns the place (see _search_until),
        so that a long search can be cut in slices. A place that covers no
        box, group title, other tag, mark or type label, and that is nearer
        its own edge than any other edge (no other edge crosses it), so it
        reads as its own edge's. Tried in turn: left of the edge at the first
        free point along it, else right; on the edge itself; a little
        further out to either side (within NEAR); moved just past group
        titles in the way (an edge entering a group runs under the frame's
        title tab)."""
        w, h = tag.rect.width(), tag.rect.height()
        points = self._along(edge)
        label = edge.label_rect if hasattr(edge, "label_rect") else None
        own = [] if label is None else [_box(label)]
        line = self._line(edge)
        owner = _owner(edge)
        left = [(x - self.GAP - w, y - h / 2, x - self.GAP, y + h / 2) for x, y in points]
        right = [(x + self.GAP, y - h / 2, x + self.GAP + w, y + h / 2) for x, y in points]
        on = [(x - w / 2, y - h / 2, x + w / 2, y + h / 2) for x, y in points]
        out = [self.NEAR * step / 3 for step in (1, 2, 3)]
        further = [(r[0] - dx, r[1], r[2] - dx, r[3]) for dx in out for r in left] + \
                  [(r[0] + dx, r[1], r[2] + dx, r[3]) for dx in out for r in right]
        nudged = [(r[0], r[1] + dy, r[2], r[3] + dy) for dy in (-h / 2, h / 2) for r in further]
        # Made only when the ones before found no place (moving past titles costs the most).
        for candidates in (lambda: left + right, lambda: on, lambda: further + nudged,
                           lambda: self._past_titles(room, left, own, True) + self._past_titles(room, right, own,
                                                                                                  False)):
            for rect in candidates():
                if room.free(rect, own) and room.reads_as_own(rect, line, owner, self.GAP + self.NEAR + 1):
                    return rect
                yield
        return None

    @staticmethod
    def _put(room: "_Room", tag: ValueTag, rect: tuple) -> None:
        tag.setPos(rect[0], rect[1])
        room.add(rect)

    def _line(self, edge) -> list:
        """The edge's curve as a polyline (flattened once, kept until a layout moves the edge)."""
        key = (edge.key, tuple(edge.points))
        line = self._lines.get(key)
        if line is None:
            if len(self._lines) > 20000:          # layouts come and go: forget the old ones
                self._lines.clear()
            line = self._lines[key] = _flattened(edge.points)
        return line

    def _past_titles(self, room: "_Room", rects: list, own: list, left: bool) -> list:
        """For each rect (on the `left` side of the edge or the right) that
        meets group titles: the rect moved just above them, just below, or
        further out to its side past them."""
        out = []
        for rect in rects:
            titles = room.titles_met(rect, own)
            if not titles:
                continue
            up = min(t[1] for t in titles) - 1 - rect[3]
            down = max(t[3] for t in titles) + 1 - rect[1]
            out += [(rect[0], rect[1] + dy, rect[2], rect[3] + dy) for dy in (up, down)]
            aside = rect
            for _ in range(64):          # each step passes one title; never this many in a row
                if not titles:
                    break
                dx = (min(t[0] for t in titles) - self.GAP - aside[2] if left
                      else max(t[2] for t in titles) + self.GAP - aside[0])
                aside = (aside[0] + dx, aside[1], aside[2] + dx, aside[3])
                titles = room.titles_met(aside, own)
            out.append(aside)
        return out

    def _node_marks(self, scene, vm, debug, graph) -> None:
        marks: dict = {}     # box id -> dict of flags

        def mark(node, **flags):
            if node is None or node.graph is None:
                return
            target = node
            while target.graph is not None and target.graph is not graph and target.graph.parent_node is not None:
                target = target.graph.parent_node       # a body's node marks the box that holds it
            if target.graph is not graph:
                return
            box = vm.box_for(target)
            if box is not None:
                entry = marks.setdefault(box, {})
                for k, v in flags.items():
                    entry[k] = entry.get(k) or v
                if "NaN" in (entry.get("nonfinite_word"), flags.get("nonfinite_word")):
                    entry["nonfinite_word"] = "NaN"      # a box holding both kinds says the worse

        current = debug.current
        if current is not None and not self.controller.running:
            mark(current, current=True)
        for bp in debug.breakpoints:
            if isinstance(bp, Node):          # breakpoints may also be names (set from a script)
                mark(bp, breakpoint=True)
        for node, names in debug.nonfinite.items():
            mark(node, nonfinite=True, nonfinite_word=nonfinite_word(debug, node, names))
        failed = self._failed_node(debug, graph)
        if failed is not None:
            mark(failed, failed=True, tooltip=str(debug.error))
        # colour_by "": the comparison's colouring is hidden (the profile's heat is shown instead).
        # A comparison made on other inputs than the values shown colours nothing (the Compare dock says so).
        report = self.controller.report if self.colour_by and self.controller.report_current else None
        bands: dict = {}
        if report is not None:
            for nd in report.nodes:
                box = vm.box_for(nd.node) if nd.node.graph is graph else None
                if box is None:
                    continue
                rel, agrees = shown_error(nd, self.colour_by)
                prev = bands.get(box)
                if prev is None or (not agrees and (prev[1] or rel > prev[0])):
                    bands[box] = (rel, agrees, nd)
        for box, (rel, agrees, nd) in bands.items():
            entry = marks.setdefault(box, {})
            entry["band"] = error_colour(rel, agrees)
            entry["tooltip"] = (f"{nd.node.display_name}\n"
                                + QCoreApplication.translate("RunOverlay", "max abs error {abs}, rel {rel}")
                                .format(abs=f"{nd.max_abs:.3g}", rel=f"{nd.rel:.3g}")
                                + ("" if nd.agrees else QCoreApplication.translate("RunOverlay", "  (differs)"))
                                + ("\n" + unmeasured_note(nd) if unmeasured_note(nd) else "")
                                + ("" if nd.own is None else "\n" + QCoreApplication.translate(
                                    "RunOverlay", "own error (run alone on the reference's inputs): max abs {abs}, "
                                    "rel {rel}").format(abs=f"{nd.own_max_abs:.3g}", rel=f"{nd.own_rel:.3g}")))
        for box, flags in marks.items():
            item = scene.node_items.get(box)
            if item is None:
                continue
            m = NodeMark(item.scene_rect(), **flags)
            scene.addItem(m)
            self.items.append(m)
            self._marks.append(m)

    def _failed_node(self, debug, graph):
        """The node to mark as failed on `graph`'s level (None without a failure):
        the failing node, or for one inside a function shown from outside it, the call."""
        error = debug.error
        if error is None or error.node is None or self.controller.running:
            return None
        return error.via[0] if error.via and graph is not error.node.graph else error.node

    def _failed_item(self, scene, debug, graph):
        node = self._failed_node(debug, graph)
        while node is not None and node.graph is not graph and node.graph.parent_node is not None:
            node = node.graph.parent_node
        return scene.item_for_node(node) if node is not None and node.graph is graph else None

    def current_item(self):
        """The node box of the current node, when it is on this level."""
        debug = self.controller.debug_if_any
        if debug is None or debug.current is None:
            return None
        return self.panel.scene.item_for_node(debug.current)


class _Room:
    """What value tags keep clear of, as (left, top, right, bottom) boxes
    bucketed by area: node boxes, group title tabs, the edges' type labels
    and the tags placed so far; and the edges' curves, which tell whether a
    place reads as its own edge's (plain geometry: asking the scene for the
    items under each trial place costs more than the whole rest of a refresh)."""
    CELL = 200.0

    def __init__(self, ground: "_Ground", scene):
        self.scene = scene          # the scene the tags are placed on
        self.ground = ground.cells  # the layout's boxes, titles and labels (shared, never changed here)
        self.curves = ground.curves
        self.cells: dict = {}       # what this refresh adds: tags, marks
        self.marks: list = []       # run marks tags keep clear of (the "failed" flag)
        self._layout = ground.key

    @property
    def fixed(self) -> tuple:
        """What, besides a tag's own edge, decides where it goes: the run's
        marks, and the layout (its other edges and boxes) with its labels
        (relabelled after an edit without a new layout)."""
        return tuple(self.marks), self._layout

    def add_mark(self, rect) -> None:
        self.marks.append(rect)
        self.add(rect)

    def _cells(self, rect):
        return _cells(rect, self.CELL)

    def add(self, rect) -> None:
        """A tag or mark placed: later tags keep clear of it."""
        _add_box(self.cells, (*rect[:4], False), self.CELL)

    def titles_met(self, rect, extra=()) -> list:
        """The group title tabs `rect` overlaps."""
        left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
        return [other for other in self._near(rect, extra) if other[4] is True
                and min(right, other[2]) > max(left, other[0]) and min(bottom, other[3]) > max(top, other[1])]

    def reads_as_own(self, rect, line: list, owner, furthest: float) -> bool:
        """Whether a tag at `rect` reads as the tag of the edge drawn as
        `line`: at most `furthest` from it, and every edge of another value
        further from it than that one (none crosses it)."""
        own = _line_distance(rect, line, furthest)
        if own > furthest:
            return False
        reach = own + 0.5
        left, top, right, bottom = rect[0] - reach, rect[1] - reach, rect[2] + reach, rect[3] + reach
        for cell in self._cells((left, top, right, bottom)):
            for curve in self.curves.get(cell, ()):
                # Most curves in the cells pass far away: their bounds say so.
                if curve[4] == owner or curve[0] > right or curve[2] < left or curve[1] > bottom \
                        or curve[3] < top:
                    continue
                if _line_distance(rect, curve[5], reach) <= reach:
                    return False
        return True

    def _near(self, rect, extra=()):
        """The boxes in `rect`'s cells (one that spans two cells comes twice:
        harmless to both callers, cheaper than making them unique)."""
        cells, ground = self.cells, self.ground
        for cell in self._cells(rect):
            yield from ground.get(cell, ())
            yield from cells.get(cell, ())
        for e in extra:
            yield (*e[:4], False)

    def free(self, rect, extra=()) -> bool:
        """Whether `rect` overlaps nothing (stops at the first overlap: most trial places are taken)."""
        left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
        for other in self._near(rect, extra):
            if min(right, other[2]) > max(left, other[0]) and min(bottom, other[3]) > max(top, other[1]):
                return False
        return True


_UNKNOWN = object()   # no place remembered for a tag (None: remembered as hidden)
_UNFINISHED = object()   # a search cut short by the clock


def _search_until(search, end: float):
    """Go on with a search (RunOverlay._place) until the clock reads `end`:
    what it returned, or _UNFINISHED."""
    try:
        while True:
            next(search)
            if _work_clock() >= end:
                return _UNFINISHED
    except StopIteration as stop:
        return stop.value


def _cells(rect, size: float):
    """The grid cells `rect` touches (most tags touch one: asked thousands of times a refresh)."""
    x0, x1, y0, y1 = int(rect[0] // size), int(rect[2] // size), int(rect[1] // size), int(rect[3] // size)
    if x0 == x1 and y0 == y1:
        return ((x0, y0),)
    return [(cx, cy) for cx in range(x0, x1 + 1) for cy in range(y0, y1 + 1)]


def _add_box(cells: dict, box: tuple, size: float) -> None:
    for cell in _cells(box, size):
        cells.setdefault(cell, []).append(box)


class _Ground:
    """What stays put between the refreshes of one layout, bucketed like the
    room: node boxes, group title tabs, the edges' type labels and the
    edges' curves (each with the value it carries). Made
    once per layout and set of labels (making it on every refresh was two
    thirds of a step's tag refresh on bert_12layer_narrow)."""

    def __init__(self, key: tuple):
        self.key = key             # (scene, view model, labels) it was made for
        self.cells: dict = {}
        self.curves: dict = {}     # cell -> (left, top, right, bottom, what the edge carries, its polyline)

    def fill(self, scene, labels: tuple, line_of: Callable):
        """Take in the scene's boxes, titles, the type labels' boxes and the
        edges' curves; a generator that yields after each item (see
        RunOverlay._make_ground). Items the scene deleted meanwhile are passed by."""
        size = _Room.CELL
        for item in list(scene.node_items.values()):
            if isValid(item):
                _add_box(self.cells, (*_box(item.scene_rect()), False), size)
            yield
        for frame in list(scene.group_frames.values()):
            title = getattr(frame, "title_item", None) if isValid(frame) else None
            if title is not None:
                _add_box(self.cells, (*_box(title.scene_rect()), True), size)
        # The edges' type labels: a tag over one hides the declared shape it is read against.
        for label in labels:
            _add_box(self.cells, (*label, False), size)
        for edge in list(scene.edge_items.values()):
            if isValid(edge):
                line = line_of(edge)
                xs, ys = [p[0] for p in line], [p[1] for p in line]
                _add_box(self.curves, (min(xs), min(ys), max(xs), max(ys), _owner(edge), line), size)
            yield


def _owner(edge):
    """What an edge carries, for telling edges apart: its value (the edges
    of one value, fanning out to its readers, are all that value's)."""
    value = edge.ref.value if isinstance(edge.ref, ViewEdge) else None
    return id(value) if value is not None else id(edge)


class _TagToMake:
    """What a value tag is made from, kept until its event-loop turn comes (see RunOverlay._place_chunk)."""
    __slots__ = ("key", "value", "computed", "bad", "note", "fresh", "stale")

    def __init__(self, key, value, computed, bad, note, fresh, stale=False):
        self.key, self.value, self.computed, self.bad, self.note, self.fresh = key, value, computed, bad, note, fresh
        self.stale = stale


def _place_key(tag: ValueTag, edge, fixed: tuple) -> tuple:
    """What a tag's place depends on: its edge, its size, the edge's label and
    the room's `fixed` (the layout and the run's marks)."""
    label = getattr(edge, "label_rect", None)
    return (edge.key, tuple(edge.points), tag.rect.width(), tag.rect.height(),
            None if label is None else _box(label), fixed)


def _box(rect: QRectF) -> tuple:
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def _points_at(line: list, fractions) -> list:
    """The points at `fractions` of the length of the polyline `line`."""
    lengths = [0.0]
    for (x0, y0), (x1, y1) in zip(line, line[1:]):
        lengths.append(lengths[-1] + math.hypot(x1 - x0, y1 - y0))
    total = lengths[-1]
    points = []
    for f in fractions:
        at = f * total
        i = min(bisect.bisect_right(lengths, at), len(line) - 1)
        span = lengths[i] - lengths[i - 1]
        t = (at - lengths[i - 1]) / span if span > 0 else 0.0
        (x0, y0), (x1, y1) = line[i - 1], line[i]
        points.append((x0 + (x1 - x0) * t, y0 + (y1 - y0) * t))
    return points


def _flattened(points: list, steps: int = 12) -> list:
    """The polyline of an edge drawn through `points` as the canvas draws it
    (ui/canvas/items.py spline_path: 1 + 3k points are k cubic Bezier pieces,
    anything else straight segments). QPainterPath.toSubpathPolygons keeps
    only the ends of each curve: tags measured against it sat beside the
    chord, away from a bent edge."""
    points = [tuple(p) for p in points]
    if len(points) < 4 or (len(points) - 1) % 3:
        return _Line(points)
    line = [points[0]]
    for i in range(0, len(points) - 1, 3):
        (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points[i:i + 4]
        for k in range(1, steps + 1):
            t = k / steps
            u = 1 - t
            a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
            line.append((a * x0 + b * x1 + c * x2 + d * x3, a * y0 + b * y1 + c * y2 + d * y3))
    return _Line(line)


class _Line(list):
    """An edge's polyline (a list of points), with its segments' bounds as
    arrays, made on first use: a distance to a long edge then looks only at
    the segments near enough (_line_distance)."""
    __slots__ = ("_bounds",)

    def __init__(self, points):
        super().__init__(points)
        self._bounds = None

    def bounds(self) -> tuple:
        """(least x, most x, least y, most y) of each segment."""
        if self._bounds is None:
            a = np.asarray(self, dtype=float)
            x0, y0, x1, y1 = a[:-1, 0], a[:-1, 1], a[1:, 0], a[1:, 1]
            self._bounds = (np.minimum(x0, x1), np.maximum(x0, x1), np.minimum(y0, y1), np.maximum(y0, y1))
        return self._bounds


# Segments of a polyline past which _line_distance picks the near ones with numpy.
_FEW_SEGMENTS = 24


def _line_distance(rect: tuple, line: list, furthest: float = math.inf) -> float:
    """How far the polyline `line` passes from `rect` (0 when it crosses it);
    anything beyond `furthest` may be answered as just beyond it."""
    if len(line) == 1:
        return _point_distance(rect, *line[0])
    best = furthest + 1.0
    left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
    segments = zip(line, line[1:])
    if isinstance(line, _Line) and len(line) > _FEW_SEGMENTS and best < math.inf:
        # Only the segments the test below could keep at the start (`best` only falls): on a decoder's
        # edges crossing the whole graph, a Python pass over every segment of every nearby edge for
        # each trial place made its tags take 2.3 s to place (1.0 s now, under Xvfb).
        lo_x, hi_x, lo_y, hi_y = line.bounds()
        near = np.flatnonzero((lo_x - right < best) & (left - hi_x < best) & (lo_y - bottom < best)
                              & (top - hi_y < best))
        segments = ((line[i], line[i + 1]) for i in near.tolist())
    for (x0, y0), (x1, y1) in segments:
        # Skipped when its bounds are already further than the best so far.
        if min(x0, x1) - right >= best or left - max(x0, x1) >= best or min(y0, y1) - bottom >= best \
                or top - max(y0, y1) >= best:
            continue
        best = min(best, _segment_distance(rect, (x0, y0, x1, y1)))
        if best == 0.0:
            break
    return best


def _point_distance(rect: tuple, x: float, y: float) -> float:
    dx = rect[0] - x if x < rect[0] else x - rect[2] if x > rect[2] else 0.0
    dy = rect[1] - y if y < rect[1] else y - rect[3] if y > rect[3] else 0.0
    return math.hypot(dx, dy)


def _segment_distance(rect: tuple, ends: tuple) -> float:
    """How far the segment (x0, y0, x1, y1) passes from `rect`: 0 when it
    enters it, else the least of its ends' distances to the rect and the
    rect's corners' to it."""
    x0, y0, x1, y1 = ends
    left, top, right, bottom = rect[0], rect[1], rect[2], rect[3]
    if _clips(left, top, right, bottom, x0, y0, x1, y1):
        return 0.0
    best = min(_point_distance(rect, x0, y0), _point_distance(rect, x1, y1))
    dx, dy = x1 - x0, y1 - y0
    length2 = dx * dx + dy * dy
    if length2 > 0:
        for cx, cy in ((left, top), (right, top), (left, bottom), (right, bottom)):
            t = ((cx - x0) * dx + (cy - y0) * dy) / length2
            if 0.0 < t < 1.0:
                best = min(best, math.hypot(x0 + t * dx - cx, y0 + t * dy - cy))
    return best


def _clips(left, top, right, bottom, x0, y0, x1, y1) -> bool:
    """Whether the segment enters the rect (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = x1 - x0, y1 - y0
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        if p == 0:
            if q < 0:
                return False
        else:
            t = q / p
            if p < 0:
                if t > t1:
                    return False
                t0 = max(t0, t)
            else:
                if t < t0:
                    return False
                t1 = min(t1, t)
    return t0 <= t1


def _short(text: str) -> str:
    return text if len(text) <= 28 else text[:27] + "…"
