"""Navigation that follows from one canvas to the other: selecting a node
selects its partner, entering a body enters the partner's body, opening a
group opens the groups holding the partners of its nodes.

Each side asks the other only when the other does not already show what
it would be asked to, so following never echoes back and forth.

ScrollSync: panning or zooming one side moves the other, so the partner
of what is in the middle of one view is at the same place of the other."""
from __future__ import annotations

import heapq
import math

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QTimer
from PySide6.QtGui import QPainter, QTransform

from ...core import gc_policy
from ...core.ir import Node, Value


def selected_object(panel):
    items = panel.scene.selectedItems()
    ref = getattr(items[0], "ref", None) if items else None
    if ref is None:
        return None
    return getattr(ref, "node", None) or getattr(ref, "value", None)


class NavigationSync:
    def __init__(self, left, right, diff):
        self.left, self.right, self.diff = left, right, diff
        m = diff.matching
        self._sides = {left: (right, m.nodes, m.values), right: (left, m.nodes_back, m.values_back)}
        for panel in (left, right):
            panel.selection_changed.connect(lambda ref, p=panel: self._selected(p, ref))
            panel.laid_out.connect(lambda p=panel: self._laid_out(p))

    def partner(self, panel, obj):
        _, nodes, values = self._sides[panel]
        if isinstance(obj, Node):
            return nodes.get(obj)
        if isinstance(obj, Value):
            return values.get(obj)
        return None

    def partner_graph(self, panel, graph):
        """The graph of the other side that `graph` (shown on `panel`) corresponds to."""
        other, nodes, _ = self._sides[panel]
        if graph.parent_node is None:
            if graph is panel.model.graph:
                return other.model.graph
            owner = graph.owner           # a function body: the function with the same key
            fn = other.model.functions.get(getattr(owner, "key", None))
            return fn.graph if fn is not None else None
        parent = nodes.get(graph.parent_node)
        if parent is None:
            return None
        return dict(parent.subgraphs()).get(graph.attr_name)

    def _selected(self, panel, ref) -> None:
        obj = selected_object(panel)
        if obj is None:
            return
        other = self._sides[panel][0]
        target = self.partner(panel, obj)
        if target is None or selected_object(other) is target:
            return
        if target.graph is not None:
            other.reveal(target, target.graph)

    def _laid_out(self, panel) -> None:
        other = self._sides[panel][0]
        if not panel.levels or not other.levels:
            return
        graph = self.partner_graph(panel, panel.level.graph)
        if graph is None:
            return
        if other.level.graph is not graph:
            if not other.layout_running:
                other.show_graph(graph)
            return
        self._follow_groups(panel, other)

    def _follow_groups(self, panel, other) -> None:
        """Open on `other` the groups holding the partners of nodes inside the
        groups open on `panel`, to the same depth."""
        mine, theirs = panel.scene.view_model, other.scene.view_model
        if mine is None or theirs is None or other.layout_running:
            return
        open_here = set(mine.expanded or ()) | {p for p, g in mine.groups.items() if g.expanded}
        if not open_here:
            return
        wanted = set()
        for node in panel.level.graph.nodes:
            path = mine.path_of_node.get(id(node))
            if not path:
                continue
            depth = max((len(p) for p in open_here if tuple(path[:len(p)]) == tuple(p)), default=0)
            partner = self.partner(panel, node)
            their_path = theirs.path_of_node.get(id(partner)) if partner is not None else None
            if depth and their_path:
                wanted.update(tuple(their_path[:i]) for i in range(1, min(depth, len(their_path)) + 1))
        known = set(theirs.groups)
        expanded = set(other.level.expanded or ())
        missing = {p for p in wanted if p in known} - expanded
        if missing:
            other.level.expanded = expanded | missing
            other.start_layout()


# What a user does to move a canvas: the side it is done on leads, and the
# other side follows it (until the user moves that one).
_USER_INPUT = frozenset({QEvent.MouseButtonPress, QEvent.Wheel, QEvent.KeyPress, QEvent.NativeGesture,
                         QEvent.Gesture, QEvent.TouchBegin})


class _ShownBoxes:
    """Per picture of a level: where the middle of each box is, on a grid of
    cells; the box of each graph input/output value; and for each collapsed
    group's box a node inside it that has a partner (the group's box is
    found on the other side through it). Built once per layout, on first use.

    The grid and not the scene's index: on a 10,000-node level the scene's
    items(rect) took 1.7-3.3 ms for a square holding 3-9 boxes (edges
    spanning many of its cells are asked for their bounds one by one, in
    Python), two such queries per scroll step; a look-up in the grid takes
    microseconds."""

    CELL = 256.0            # scene units: a few boxes per cell at reading size

    def __init__(self, panel, view_model, partner):
        self.view_model = view_model
        self.value_boxes = {id(v.value): box_id for box_id, v in view_model.nodes.items() if v.value is not None}
        self.group_members = {}         # a collapsed group's box id -> a node inside with a partner
        group_boxes = {box_id for box_id, v in view_model.nodes.items() if v.group is not None}
        if group_boxes:
            box_of = view_model.box_of_node
            for node in view_model.graph.nodes:
                box_id = box_of.get(id(node))
                if box_id in group_boxes and box_id not in self.group_members and partner(panel, node) is not None:
                    self.group_members[box_id] = node
        self.middles = []        # (x, y, box id)
        self.cells = {}
        boxes = panel.scene.layout_result.nodes     # the layout's numbers: asking 10k items is slow
        for box_id in panel.scene.node_items:
            box = boxes.get(box_id)
            if box is not None:
                middle = (box.x + box.width / 2, box.y + box.height / 2, box_id)
                self.middles.append(middle)
                self.cells.setdefault((int(middle[0] // self.CELL), int(middle[1] // self.CELL)), []).append(middle)

    def middles_in(self, rect: QRectF):
        """(x, y, box id) of the boxes whose middle is inside `rect`."""
        left, top = int(rect.left() // self.CELL), int(rect.top() // self.CELL)
        right, bottom = int(rect.right() // self.CELL), int(rect.bottom() // self.CELL)
        if (right - left + 1) * (bottom - top + 1) > len(self.middles):   # zoomed far out
            found = self.middles
        else:
            found = (m for i in range(left, right + 1) for j in range(top, bottom + 1)
                     for m in self.cells.get((i, j), ()))
        x0, y0, x1, y1 = rect.left(), rect.top(), rect.right(), rect.bottom()
        return [m for m in found if x0 <= m[0] <= x1 and y0 <= m[1] <= y1]


class ScrollSync(QObject):
    """Panning or zooming one canvas moves the other: the partner of the
    leading side's anchor (its selected box when in view, else the box
    nearest the middle of the view that has a partner shown on the other
    side) is put at the same place of the other view, at the same zoom.

    The leading side is the one the user last pressed, scrolled or typed on;
    the other only follows. A move of the follower's own (a reveal, a new
    layout, a resize) is answered by following again, and the follower's
    moves made here are not listened to, so nothing echoes back. After
    `hold()` (a difference chosen in the list: each side shows its own
    item, and an item only one side has has no partner to line up) neither
    side follows until the user next touches a canvas."""

    def __init__(self, navigation: NavigationSync, parent=None):
        super().__init__(parent)
        self.navigation = navigation
        self.left, self.right = navigation.left, navigation.right
        self.enabled = True
        self.leader = self.left
        self.follows = 0                    # alignments made (a pan makes one per turn of the event loop)
        self._moving = False                # the follower is being moved here: its signals are ours
        self._held = False                  # both sides placed on purpose (hold); the user's input ends it
        self._chosen = {}                   # panel -> the one node or value selected there, or None
        self._shown = {}                    # panel -> _ShownBoxes of the picture shown
        # Coalesced: a pan step emits several viewport changes (each scroll
        # bar, a zoom); the other side moves once per turn of the event loop.
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.follow)
        for panel in (self.left, self.right):
            view = panel.view
            view.viewport_changed.connect(self._moved)
            # A new picture on either side: the follower joins the leader again.
            panel.laid_out.connect(self._moved)
            panel.selection_changed.connect(lambda _ref, p=panel: self._selection(p))
            for widget in (view, view.viewport(), view.horizontalScrollBar(), view.verticalScrollBar(),
                           panel.minimap):
                widget.installEventFilter(self)

    def set_enabled(self, on: bool) -> None:
        """Switched on, the follower joins the leader at once."""
        self.enabled = bool(on)
        if self.enabled:
            self._held = False
            self._timer.start()

    def hold(self) -> None:
        """Both sides are about to be placed on purpose (their reveals may
        lay them out again later): leave them where they are put until the
        user pans, zooms or clicks either canvas."""
        self._held = True
        self._timer.stop()

    def other(self, panel):
        return self.right if panel is self.left else self.left

    # -- what starts a follow ------------------------------------------------------------

    def eventFilter(self, watched, event) -> bool:
        if event.type() in _USER_INPUT:
            self.leader = self.left if self.left.isAncestorOf(watched) else self.right
            self._held = False
        return False

    def _moved(self) -> None:
        if self.enabled and not self._moving and not self._held:
            self._timer.start()

    def _selection(self, panel) -> None:
        # Kept here, not asked for at each scroll step: after a rubber band
        # over 10k boxes, listing the selection costs milliseconds.
        one = len(panel.scene.selectedItems()) == 1
        self._chosen[panel] = selected_object(panel) if one else None

    # -- following -------------------------------------------------------------------------

    def follow(self) -> None:
        """Put the follower where the leader's anchor says (nothing when the
        two show graphs that do not correspond, or no box in view has a partner)."""
        leader = self.leader
        follower = self.other(leader)
        if not self.enabled or not self._corresponding(leader, follower):
            return
        pair = self._anchor(leader, follower)
        if pair is None:
            return
        mine, theirs = pair
        view = leader.view
        at = view.viewportTransform().map(mine.scene_rect().center())
        self._moving = True
        try:
            self._put(follower, view.current_scale(), theirs.scene_rect().center(), at)
            follower.view.setRenderHint(QPainter.Antialiasing, bool(view.renderHints() & QPainter.Antialiasing))
            follower.view.viewport_changed.emit()       # its minimap follows too
        finally:
            self._moving = False
        self.follows += 1

    def _corresponding(self, leader, follower) -> bool:
        if not (leader.shows_level and follower.shows_level):
            return False
        return self.navigation.partner_graph(leader, leader.level.graph) is follower.level.graph

    def _anchor(self, leader, follower):
        """(leader's box, follower's box of its partner) or None."""
        visible = leader.view.visible_scene_rect()
        chosen = self._chosen.get(leader)
        if chosen is not None:
            box = self._box_of(leader, chosen)
            if box is not None and visible.contains(box.scene_rect().center()):
                theirs = self._partner_box(leader, follower, box)
                if theirs is not None:
                    return box, theirs
        # The nearest box found in a square around the middle, grown until
        # it holds one with a partner.
        centre = visible.center()
        reach = max(visible.width(), visible.height()) / 2
        half = min(visible.width(), visible.height()) / 8 or reach
        while True:
            square = QRectF(centre.x() - half, centre.y() - half, 2 * half, 2 * half).intersected(visible)
            best = self._nearest(leader, follower, square, centre)
            if (best is not None and best[0] <= half) or half >= reach:
                return best[1:] if best is not None else None
            # A box found in a corner may lose to one just outside the square,
            # nearer the middle: look as far as it once more.
            half = min(reach, best[0] if best is not None else 2 * half)

    def _nearest(self, leader, follower, rect, centre):
        """(distance, leader's box, follower's box) of the box nearest `centre`
        with its middle in `rect` and a partner shown on the follower, or None."""
        cx, cy = centre.x(), centre.y()
        # A heap, not a sort: zoomed far out the square holds thousands of
        # boxes, and the nearest nearly always has a partner.
        near = [(math.hypot(x - cx, y - cy), box_id) for x, y, box_id in self._boxes(leader).middles_in(rect)]
        heapq.heapify(near)
        while near:
            distance, box_id = heapq.heappop(near)
            item = leader.scene.node_items.get(box_id)
            theirs = self._partner_box(leader, follower, item) if item is not None else None
            if theirs is not None:
                return distance, item, theirs
        return None

    def _boxes(self, panel) -> _ShownBoxes:
        view_model = panel.scene.view_model
        shown = self._shown.get(panel)
        if shown is None or shown.view_model is not view_model:
            # 10k boxes' worth of small objects that all live: collecting
            # meanwhile walked the whole heap (0.46 s on 10,000 nodes, 40 ms paused).
            with gc_policy.paused():
                shown = self._shown[panel] = _ShownBoxes(panel, view_model, self.navigation.partner)
        return shown

    def _box_of(self, panel, obj):
        """The box showing `obj` (a node, or a graph input/output value) on `panel`, or None."""
        if isinstance(obj, Node):
            return panel.scene.item_for_node(obj)
        box_id = self._boxes(panel).value_boxes.get(id(obj)) if isinstance(obj, Value) else None
        return panel.scene.node_items.get(box_id) if box_id is not None else None

    def _partner_box(self, leader, follower, item):
        """The follower's box showing the partner of what `item` shows, or None."""
        ref = item.ref
        if ref is None:
            return None
        obj = ref.node if ref.node is not None else ref.value
        if obj is None and ref.group is not None:
            obj = self._boxes(leader).group_members.get(item.key)
        partner = self.navigation.partner(leader, obj) if obj is not None else None
        return self._box_of(follower, partner) if partner is not None else None

    @staticmethod
    def _put(panel, scale: float, point: QPointF, at: QPointF) -> None:
        """Zoom `panel`'s view to `scale` and scroll it so scene `point` is at
        viewport `at`, as near as its scroll bars reach: at the edge of a
        graph it stops there, as Meld does at the end of a file (scrolling
        past the scene would mean growing its rect, which re-indexes every
        item, 0.2-0.4 s on 10k nodes: canvas/scene.py)."""
        view = panel.view
        if abs(view.current_scale() / scale - 1.0) > 1e-9:
            view.setTransform(QTransform.fromScale(scale, scale))
        shift = view.viewportTransform().map(point) - at
        for bar, d in ((view.horizontalScrollBar(), shift.x()), (view.verticalScrollBar(), shift.y())):
            bar.setValue(bar.value() + round(d))
