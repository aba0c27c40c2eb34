"""The scene for one graph level: turns a core.layout view + layout into items.

The scene keeps lookup tables (box id -> item, IR node -> item, value name ->
edges) so search, selection and the properties panel can go from IR objects to
items and back without scanning the scene.
"""
from __future__ import annotations

from typing import Callable, Optional

from PySide6.QtCore import QCoreApplication, QRectF, Signal
from PySide6.QtWidgets import QGraphicsScene
from shiboken6 import isValid

from onnxstudio.core.infer.dims import compact_dim
from onnxstudio.core.ir.types import TensorType, format_shape
from onnxstudio.core.layout.labels import limits_legend, limits_named_in

from ..theme import LIGHT, Theme, op_family
from . import fonts
from .items import EdgeItem, GroupFrame, GroupTitle, NodeItem, card_size
from .words import group_name, group_path_text, shown_label

IO_MIN_WIDTH = 60.0

TypeLookup = Callable[[object], str]


def remove_items(scene, items) -> None:
    """Take drawn extras (tags, marks, heat labels) off `scene`. Items a new
    layout already cleared with the scene, or that sit on another scene
    now, are left alone: touching a deleted item would crash."""
    for item in items:
        if isValid(item) and item.scene() is scene:
            scene.removeItem(item)


def group_title_text(name: str, node_count) -> str:
    """What an open group's frame says: "layer.3  (39 nodes)", "layer.4  (1 node)"."""
    n = int(node_count)
    count = (QCoreApplication.translate("GraphScene", "  ({n} node)") if n == 1
             else QCoreApplication.translate("GraphScene", "  ({n} nodes)"))
    return group_name(name) + count.format(n=n)


def measure_label(label) -> tuple[float, float]:
    """The measurer handed to core.layout.build_view: box size for a NodeLabel
    (for a group title: the width of its tab, so the frame is as wide).
    Measured is the label as drawn: core's few English words translated
    (words.shown_label)."""
    if label.kind == "group_title":
        return GroupTitle.tab_width(group_title_text(label.title, label.lines[0])), 0.0
    label = shown_label(label)
    width, height = card_size(label.title, label.lines)
    if label.kind in ("input", "output"):
        # Pill shape: leave room for the rounded ends.
        width = max(IO_MIN_WIDTH, width + height * 0.5)
    return width, height


def displayed_type(value, inferred: Optional[dict] = None):
    """The type the canvas and the panels show for `value`: the declared one
    (an initializer's data fixes it when undeclared) with each dim the
    declaration leaves unknown filled in from inference (dynamo exports
    declare int64[?,?,?,?] where inference knows int64[batch,1,1,seq]), else
    the inferred one (by value, then by name); None when neither is known.
    A graph input keeps its declaration: its unknown dims are the caller's."""
    if value is None:
        return None
    declared = value.own_type
    if declared is not None and (not _leaves_dims_unknown(declared) or value.is_graph_input):
        return declared
    found = None
    if inferred:
        found = inferred.get(value)
        if found is None:
            found = inferred.get(value.name)
    if declared is None or found is None:
        return declared if found is None else found
    return _filled_in(declared, found)


def _leaves_dims_unknown(vtype) -> bool:
    return type(vtype) is TensorType and (vtype.shape is None or None in vtype.shape)


def _filled_in(declared, found):
    """`declared` with its unknown dims (or unknown rank) taken from `found`,
    when both are tensors of one element type and rank; else `declared`."""
    if type(found) is not TensorType or found.shape is None or found.elem_type != declared.elem_type:
        return declared
    if declared.shape is None:
        return TensorType(declared.elem_type, found.shape, declared.denotation)
    if len(found.shape) != len(declared.shape):
        return declared
    shape = tuple(f if d is None else d for d, f in zip(declared.shape, found.shape))
    return TensorType(declared.elem_type, shape, declared.denotation, declared.dim_denotations)


def value_type_text(value, inferred: Optional[dict] = None) -> str:
    """"float32[1,128]" of displayed_type, or "" when no type is known."""
    vtype = displayed_type(value, inferred)
    return "" if vtype is None else str(vtype)


def compact_type_text(value, inferred: Optional[dict] = None) -> str:
    """value_type_text with each dim read compactly (`float32[1,⌈H/16⌉]` for
    `floor((H+15)/16)`): what an edge label shows; the full text goes in its tooltip."""
    return _type_texts(displayed_type(value, inferred))[1]


def _type_texts(vtype) -> tuple[str, str]:
    """(full, compact) texts of an edge's type."""
    full = "" if vtype is None else str(vtype)
    shape = getattr(vtype, "shape", None)
    compact = full
    if full and shape is not None and full.endswith("]"):
        compact = full[:len(full) - len(format_shape(shape))] + "[" + ",".join(compact_dim(d) for d in shape) + "]"
    return full, compact


def _calls_note(value, inferred) -> str:
    """A tooltip line for a function body's value whose calls give it
    different types: the type shown holds for every call, not one."""
    varies = getattr(inferred, "varies_by_call", None)
    if varies is None or value is None or not varies(value):
        return ""
    return "\n" + QCoreApplication.translate(
        "Canvas", "The calls of this function give it different types: shown is what they all share")


def _show_type(item, vtype, inferred=None) -> None:
    item.shown_type = vtype
    full, compact = _type_texts(vtype)
    item.label_detail = full + _calls_note(item.ref.value, inferred)
    item.set_label(compact)
    item.setToolTip(item.tooltip_text())


def _new_edge_item(edge_id, vedge, points, inferred) -> EdgeItem:
    """An edge item with its type's compact label and full text (what
    _show_type sets on one made without): made with the label, its curve's
    label spots and bounds are worked out once, not twice (12k edges at a
    full layout, the re-routed ones after an edit)."""
    vtype = displayed_type(vedge.value, inferred)
    full, compact = _type_texts(vtype)
    item = EdgeItem(edge_id, points, compact, ref=vedge, src_key=vedge.source, dst_key=vedge.target)
    item.shown_type = vtype
    item.label_detail = full + _calls_note(vedge.value, inferred)
    item.setToolTip(item.tooltip_text())
    return item


class GraphScene(QGraphicsScene):
    # Edge labels were rewritten and placed again without a new layout (types
    # from inference, or after an edit): what was placed clear of the old
    # labels (the heat's time labels) may cover the new ones.
    edge_labels_moved = Signal()

    def __init__(self, theme: Theme = LIGHT, parent=None):
        super().__init__(parent)
        self.theme = theme
        self.view_model = None          # core.layout.GraphView shown
        self.layout_result = None       # core.layout.Layout used
        self.node_items: dict[str, NodeItem] = {}
        self.edge_items: dict[str, EdgeItem] = {}
        self.group_frames: dict[tuple, GroupFrame] = {}
        self._edges_by_value: dict[int, list[EdgeItem]] = {}
        self._overview = None
        self.setBackgroundBrush(theme.background)

    def overview(self):
        """Batched far-zoom drawing data, built on first use per scene/theme."""
        if self._overview is None:
            from .overview import OverviewBatches
            self._overview = OverviewBatches(self)
        return self._overview

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._overview = None
        self.setBackgroundBrush(theme.background)
        self.update()

    # -- building -------------------------------------------------------------

    def _add_node_item(self, box_id, box, vnode, inferred) -> None:
        shown = shown_label(vnode.label)
        item = NodeItem(box_id, QRectF(box.x, box.y, box.width, box.height),
                        shown.title, shown.lines,
                        family=_family(vnode), kind=vnode.kind, ref=vnode,
                        tooltip=_tooltip(vnode, inferred))
        self.addItem(item)
        self.node_items[box_id] = item

    def populate(self, view_model, layout_result, inferred: Optional[dict] = None,
                 same: Optional[dict] = None) -> None:
        """Show `layout_result`. With `same` (new box id -> old box id of the
        same node/value/group, after an edit) the items of boxes and edges
        that did not move are kept as they are and only the rest is rebuilt:
        on a 10k-node model rebuilding every item was half an insert's time."""
        if same is not None and self.view_model is not None:
            self._repopulate(view_model, layout_result, inferred, same)
            return
        self.clear()
        self._overview = None
        self.node_items.clear()
        self.edge_items.clear()
        self.group_frames.clear()
        self._edges_by_value.clear()
        self.view_model = view_model
        self.layout_result = layout_result
        self._add_groups(view_model, layout_result)
        for box_id, vnode in view_model.nodes.items():
            box = layout_result.nodes.get(box_id)
            if box is None:
                continue
            self._add_node_item(box_id, box, vnode, inferred)
        for edge_id, vedge in view_model.edges.items():
            path = layout_result.edges.get(edge_id)
            if path is None or not path.points:
                continue
            item = _new_edge_item(edge_id, vedge, path.points, inferred)
            self.addItem(item)
            self.edge_items[edge_id] = item
            if vedge.value is not None:
                self._edges_by_value.setdefault(id(vedge.value), []).append(item)
        self._place_edge_labels()
        self.setSceneRect(self.itemsBoundingRect().adjusted(-40, -40, 40, 40))

    def _repopulate(self, view_model, layout_result, inferred, same: dict) -> None:
        # Geometry is compared on the layouts (plain numbers), not on the
        # items: asking 10k items for their position costs more than the rest.
        old_layout, old_view = self.layout_result, self.view_model
        self._overview = None
        old_nodes, old_edges = self.node_items, self.edge_items
        self.node_items, self.edge_items = {}, {}
        self._edges_by_value.clear()
        self.view_model = view_model
        self.layout_result = layout_result
        self._add_groups(view_model, layout_result, reuse=True, old_layout=old_layout, old_view=old_view)
        old_boxes, new_boxes, node_items = old_layout.nodes, layout_result.nodes, self.node_items
        old_vnodes = old_view.nodes     # an item's ref is its box's ViewNode in the view it shows
        for box_id, vnode in view_model.nodes.items():
            box = new_boxes.get(box_id)
            if box is None:
                continue
            old_id = same.get(box_id)
            if old_id == box_id and old_vnodes.get(box_id) is vnode and old_boxes.get(box_id) is box:
                # The view and the pinning handed on the very objects shown:
                # nothing to compare or set (the view's own dicts are asked,
                # not the 10k items, whose attributes cost more to read).
                old = old_nodes.pop(box_id, None)
                if old is not None:
                    node_items[box_id] = old
                    continue
            old = old_nodes.get(old_id)
            before = old_boxes.get(old_id) if old is not None else None
            if before is not None and before.x == box.x and before.y == box.y \
                    and before.width == box.width and before.height == box.height \
                    and _same_card(old, vnode):
                del old_nodes[old_id]
                old.key, old.ref = box_id, vnode
                node_items[box_id] = old
                continue
            self._add_node_item(box_id, box, vnode, inferred)
        for item in old_nodes.values():
            self.removeItem(item)
        old_paths, new_paths = old_layout.edges, layout_result.edges
        old_vedges = old_view.edges
        unchanged = {}
        for edge_id, vedge in view_model.edges.items():
            if old_vedges.get(edge_id) is vedge and old_paths.get(edge_id) is new_paths.get(edge_id):
                old = old_edges.pop(edge_id, None)      # the very objects shown: kept as it is
                if old is not None:
                    unchanged[edge_id] = old
        by_ends = {(e.src_key, e.dst_key, id(getattr(e.ref, "value", None))): e for e in old_edges.values()}
        fresh = set()
        # Locals: an attribute of the scene (a Qt object) costs more to look up
        # than a plain one, 12k times over.
        edge_items, by_value = self.edge_items, self._edges_by_value
        for edge_id, vedge in view_model.edges.items():
            item = unchanged.get(edge_id)
            if item is not None:
                edge_items[edge_id] = item
                if vedge.value is not None:
                    by_value.setdefault(id(vedge.value), []).append(item)
                continue
            path = new_paths.get(edge_id)
            if path is None or not path.points:
                continue
            old = by_ends.pop((same.get(vedge.source), same.get(vedge.target), id(vedge.value)), None)
            if old is not None and _same_points(old.points, path.points):
                # Its label text is kept up to date by relabel_edges after every edit.
                old.key, old.ref, old.src_key, old.dst_key = edge_id, vedge, vedge.source, vedge.target
                item = old
            else:
                if old is not None:
                    by_ends[("gone", id(old))] = old
                item = _new_edge_item(edge_id, vedge, path.points, inferred)
                self.addItem(item)
                fresh.add(id(item))
            edge_items[edge_id] = item
            if vedge.value is not None:
                by_value.setdefault(id(vedge.value), []).append(item)
        for item in by_ends.values():
            self.removeItem(item)
        self._place_edge_labels(fresh)
        # Everything lies within the layout's bounds but labels, which sit at
        # most a label's width beside an edge.
        margin = EdgeItem.LABEL_MAX_WIDTH + 40
        self._resize_keeping_index(QRectF(0, 0, layout_result.width, layout_result.height).adjusted(
            -margin, -40, margin, 40))

    def _resize_keeping_index(self, rect: QRectF) -> None:
        """setSceneRect(rect) without Qt re-indexing every item: the scene's
        index rebuilds itself whenever the scene rect changes (an insert
        grows a level by a rank), asking all 26k items of a 10k-node level
        where they are on the next paint (~0.2-0.4 s). The index keeps its
        old bounds instead (items beyond them are found in its border cells)
        and the views are told the new rect themselves, as the signal would."""
        if rect == self.sceneRect():
            return
        blocked = self.blockSignals(True)
        try:
            self.setSceneRect(rect)
        finally:
            self.blockSignals(blocked)
        for view in self.views():
            view.updateSceneRect(rect)

    def _add_groups(self, view_model, layout_result, reuse: bool = False, old_layout=None,
                    old_view=None) -> None:
        """Group frames and their title tabs; with `reuse`, a frame whose box
        and title did not change is kept (a 10k-node level has thousands).
        `old_layout`, `old_view`: the layout and view the frames were made
        from (a frame's box is its group's box there), to compare plain
        numbers, or the very objects handed on."""
        old = self.group_frames if reuse else {}
        old_groups = old_layout.groups if old_layout is not None else {}
        old_infos = old_view.groups if old_view is not None else {}
        frames = self.group_frames = {}
        for path, box in layout_result.groups.items():
            info = view_model.groups.get(path)
            if old_groups.get(path) is box and old_infos.get(path) is info and info is not None and path in old:
                frames[path] = old.pop(path)      # the same box, the same count: the same frame
                continue
            count = info.node_count if info is not None else None
            frame = old.pop(path, None)
            if frame is not None:
                # The title says the last name and the count: the same count, the same title.
                before = old_groups.get(path)
                if before is not None and getattr(frame, "count", False) == count and before.x == box.x \
                        and before.y == box.y and before.width == box.width and before.height == box.height:
                    self.group_frames[path] = frame
                    continue
            # Nested frames sit inside their parent's: the last name is enough.
            title = group_title_text(path[-1], count) if info is not None else path[-1]
            rect = QRectF(box.x, box.y, box.width, box.height)
            if frame is not None and frame.title == title and frame.scene_rect() == rect:
                frame.count = count
                self.group_frames[path] = frame
                continue
            if frame is not None:
                old[path] = frame
            frame = GroupFrame(_group_key(path), rect, title, depth=len(path))
            frame.setToolTip(group_path_text(path) + "\n" + self.tr("Double-click the title to collapse"))
            frame.path = path
            frame.count = count
            frame.title_item = GroupTitle(frame)
            self.addItem(frame)
            self.addItem(frame.title_item)
            self.group_frames[path] = frame
        for frame in old.values():
            self.removeItem(frame)
            if getattr(frame, "title_item", None) is not None:
                self.removeItem(frame.title_item)

    def _place_edge_labels(self, fresh: Optional[set] = None) -> None:
        """Move each shape label to a spot along its edge that is free of boxes
        and of labels already placed; fan-ins otherwise stack labels on top of
        each other just above the shared consumer. A value drawn as several
        edges (one per consumer) gets one label, near its producer: the
        edges leave together there, and copies of one text stacked beside a
        fan-out said nothing more. With `fresh` (ids of new or relabelled
        edges) the labels of the other values stay where they are and only
        those are placed, around them."""
        if fresh is None:
            fans: dict[tuple, list[EdgeItem]] = {}
            for item in self.edge_items.values():
                value = getattr(item.ref, "value", None)
                fans.setdefault((item.src_key, id(value) if value is not None else id(item)), []).append(item)
            todo = list(fans.values())
        else:
            todo = self._fans_of(fresh)
            if not todo:
                return
        spots = [(items, _label_spots(items)) for items in todo]
        boxes, labels = _RectGrid(), _RectGrid()
        # A spot collides only with what shares a grid cell with it: after an
        # edit only the cells the fresh edges' spots touch are filled (an
        # insert re-routes a few edges, some of them long; gridding all 10k
        # boxes of an expanded level, or asking the scene's index for the
        # whole span of a long edge, cost ~250 ms). Same answer as gridding all.
        cells = None
        if fresh is not None:
            cells = set()
            for _items, candidates in spots:
                for _item, rect in candidates:
                    cells.update(_RectGrid.keys_of(rect))
        for rect in self._box_rects(cells):
            boxes.add(rect)
        title_height = fonts.line_height() + 4
        group_boxes = self.layout_result.groups if self.layout_result is not None else {}
        for path, frame in self.group_frames.items():
            # The layout's numbers (a frame's rect is its group's box): 2k frames' rects cost more.
            b = group_boxes.get(path)
            if b is None:
                rect = frame.rect
                left, top, width = rect.left(), rect.top(), rect.width()
            else:
                left, top, width = b.x, b.y, b.width
            if cells is None or _RectGrid.touches(cells, left, top, width, title_height):
                boxes.add(frame.title_rect())
        if fresh is not None:
            placing = {id(i) for items in todo for i in items}
            c = _RectGrid.CELL
            rows = {gy for _, gy in cells}
            for item in self.edge_items.values():
                rect = getattr(item, "_label_rect", None)
                if rect is None or id(item) in placing or not item.label:
                    continue
                top = rect.top()
                y0, y1 = int(top // c), int((top + rect.height()) // c)
                if y0 not in rows and y1 not in rows and (
                        y1 - y0 < 2 or not any(gy in rows for gy in range(y0 + 1, y1))):
                    continue        # in no row of cells the spots reach (most labels)
                if _RectGrid.touches(cells, rect.left(), top, rect.width(), rect.height()):
                    labels.add(rect)
        for items, candidates in spots:
            if not candidates:
                continue
            choice = next(((it, r) for it, r in candidates if not boxes.hits(r) and not labels.hits(r)), None)
            for item in items:
                if choice is None or item is not choice[0]:
                    # Crowded spot, or a sibling carries it: hide rather than
                    # print text over text; the tooltip still gives the type.
                    if item.label:
                        item.place_label(None)
            if choice is None:
                continue
            item, rect = choice
            labels.add(rect)
            if getattr(item, "_label_rect", None) != rect:
                item.place_label(rect)

    def _fans_of(self, fresh: set) -> list:
        """The edges of each value drawn from one box (one label among them)
        that holds an edge of `fresh`, in the order of the level's edges, as
        _place_edge_labels groups them all, without reading all 12k items."""
        fans: dict[tuple, list] = {}
        found = set()
        by_value = self._edges_by_value
        touched = [items for items in by_value.values() for i in items if id(i) in fresh]
        for items in touched:
            for item in items:
                found.add(id(item))
                key = (item.src_key, id(item.ref.value))
                if key not in fans:
                    fans[key] = [i for i in items if i.src_key == item.src_key]
        if not fresh <= found:      # edges of no value (none that build_view makes): each its own fan
            for item in self.edge_items.values():
                if id(item) in fresh and id(item) not in found:
                    fans[(item.src_key, id(item))] = [item]
        position = {key: k for k, key in enumerate(self.edge_items)}
        groups = [items for items in fans.values() if any(id(i) in fresh for i in items)]
        groups.sort(key=lambda items: position[items[0].key])
        return groups

    def _box_rects(self, cells: Optional[set] = None):
        """Every box's scene rect (with `cells`: those touching one of these
        grid cells), from the layout's numbers where it has them: asking 10k
        items for their position costs ~50 ms."""
        layout = self.layout_result
        boxes = layout.nodes if layout is not None else {}
        c = _RectGrid.CELL
        rows = {gy for _, gy in cells} if cells is not None else None
        for key, item in self.node_items.items():
            b = boxes.get(key)
            if b is None:
                rect = item.scene_rect()
                if cells is None or _RectGrid.touches(cells, rect.left(), rect.top(), rect.width(), rect.height()):
                    yield rect
                continue
            if rows is not None:
                # Most boxes share no row of cells with the spots: one look.
                y0, y1 = int(b.y // c), int((b.y + b.height) // c)
                if y0 not in rows and y1 not in rows and (
                        y1 - y0 < 2 or not any(gy in rows for gy in range(y0 + 1, y1))):
                    continue
                if not _RectGrid.touches(cells, b.x, b.y, b.width, b.height):
                    continue
            yield QRectF(b.x, b.y, b.width, b.height)

    def relabel_edges(self, inferred: Optional[dict]) -> None:
        changed = set()
        for item in self.edge_items.values():      # 12k edges after every edit on a big level
            vtype = displayed_type(item.ref.value, inferred)
            if vtype is not None and (item.shown_type is vtype or item.shown_type == vtype):
                continue        # (a type filled in from inference is a new object each time)
            before = item.full_label
            _show_type(item, vtype, inferred)
            if item.full_label != before:
                changed.add(id(item))
        if changed:                 # placing every label costs ~0.1 s on a big level: only those that changed
            self._place_edge_labels(changed)
        for item in self.node_items.values():
            # Only texts that changed go to Qt: 10k setToolTip calls per edit cost ~40 ms.
            tip = _tooltip(item.ref, inferred)
            if tip != getattr(item, "tip", None):
                item.tip = tip
                item.setToolTip(tip)
        if changed:
            self.edge_labels_moved.emit()

    # -- lookups --------------------------------------------------------------

    def item_for_node(self, ir_node) -> Optional[NodeItem]:
        if self.view_model is None:
            return None
        box_id = self.view_model.box_for(ir_node)
        return self.node_items.get(box_id) if box_id else None

    def edges_of_value(self, value) -> list:
        """The edges carrying `value` on this scene (one per reader shown)."""
        return list(self._edges_by_value.get(id(value), []))

    def items_for_value(self, value) -> list:
        """Edges carrying `value`, or its input/output box when it has no edge."""
        found = self.edges_of_value(value)
        for item in self.node_items.values():
            if item.ref is not None and getattr(item.ref, "value", None) is value:
                found.append(item)
        return found

    def minimap_boxes(self) -> list[tuple[QRectF, object]]:
        # From the layout's numbers: asking 10k items for their position is slow.
        layout = self.layout_result
        if layout is None:
            return [(item.scene_rect(), item) for item in self.node_items.values()]
        out = []
        for key, item in self.node_items.items():
            b = layout.nodes.get(key)
            out.append((QRectF(b.x, b.y, b.width, b.height) if b is not None else item.scene_rect(), item))
        return out


def _label_spots(items) -> list:
    """(edge, rect) spots for the one label of a value drawn as `items`, best first."""
    if len(items) == 1:
        return [(items[0], r) for r in items[0].label_candidates()]
    return _near_source_candidates(items)


def _same_card(item, vnode) -> bool:
    """Whether `item` already draws what `vnode` shows (kind, texts, colour).
    A view built after an edit hands on the label object of every box the
    edit did not touch: the same object, the same card, nothing to compare."""
    ref = item.ref
    if ref is not None and ref.label is vnode.label and ref.node is vnode.node \
            and ref.function_key == vnode.function_key:
        return True
    shown = shown_label(vnode.label)
    return (item.kind == vnode.kind and item.title == shown.title and item.lines == list(shown.lines)
            and item.family == _family(vnode))


def _same_points(drawn: list, points) -> bool:
    """Whether an edge drawn through `drawn` (a list of (x, y) tuples) runs
    through `points` (a layout's EdgePath.points)."""
    if type(points) is tuple and (not points or type(points[0]) is tuple):
        return tuple(drawn) == points       # the usual form: compared in C
    return drawn == [tuple(p) for p in points]


def _near_source_candidates(items) -> list:
    """(edge, rect) spots for one label of a value drawn as several edges:
    beside each edge a short way after its start, nearest first."""
    if not items[0].label:
        return []
    w = fonts.text_width(items[0].label) + 4
    h = fonts.line_height()
    out = []
    for distance in (14.0, 26.0, 40.0, 60.0):
        for item in items:
            length = item.path.length()
            if length < 2 * distance:
                continue
            p = item.path.pointAtPercent(item.path.percentAtLength(distance))
            out.append((item, QRectF(p.x() + 4, p.y() - h / 2, w, h)))
            out.append((item, QRectF(p.x() - 4 - w, p.y() - h / 2, w, h)))
    if not out:     # all short: the usual spots of the longest edge
        longest = max(items, key=lambda it: it.path.length())
        out = [(longest, r) for r in longest.label_candidates()]
    return out


class _RectGrid:
    """A coarse spatial hash of rectangles: overlap queries in O(1) average."""
    CELL = 120.0

    def __init__(self):
        self.cells: dict[tuple[int, int], list[QRectF]] = {}

    @classmethod
    def keys_of(cls, rect: QRectF):
        c = cls.CELL
        for gx in range(int(rect.left() // c), int(rect.right() // c) + 1):
            for gy in range(int(rect.top() // c), int(rect.bottom() // c) + 1):
                yield gx, gy

    @classmethod
    def touches(cls, cells: set, left: float, top: float, width: float, height: float) -> bool:
        """Whether the rect (left, top, width, height) shares a cell with `cells`
        (the cells add() would put it in)."""
        c = cls.CELL
        y0, y1 = int(top // c), int((top + height) // c) + 1
        for gx in range(int(left // c), int((left + width) // c) + 1):
            for gy in range(y0, y1):
                if (gx, gy) in cells:
                    return True
        return False

    def add(self, rect: QRectF) -> None:
        # Loops written out (no generator): a 10k-box level adds every box
        # after an insert that re-routes edges all over it.
        c, cells = self.CELL, self.cells
        left, top = rect.left(), rect.top()
        y0, y1 = int(top // c), int((top + rect.height()) // c) + 1
        for gx in range(int(left // c), int((left + rect.width()) // c) + 1):
            for gy in range(y0, y1):
                cell = cells.get((gx, gy))
                if cell is None:
                    cells[(gx, gy)] = [rect]
                else:
                    cell.append(rect)

    def hits(self, rect: QRectF) -> bool:
        return any(rect.intersects(other) for key in self.keys_of(rect)
                   for other in self.cells.get(key, ()))


def _group_key(path) -> str:
    return "group:" + "/".join(path)


def _family(vnode) -> str:
    if vnode.kind == "group":
        return "group"
    node = vnode.node
    if node is None:
        return "other"
    if vnode.function_key is not None:
        return "function"
    return op_family(node.op_type, node.domain)


def _tooltip(vnode, inferred) -> str:
    if vnode.kind == "op" and vnode.node is not None:
        node = vnode.node
        domain = f"{node.domain}." if node.domain else ""
        name = node.name or QCoreApplication.translate("Canvas", "(unnamed)")
        # The box writes "ends = [INT64_MAX]": the exact number is one hover away.
        named = limits_named_in(vnode.label.lines)
        return f"{name}\n{domain}{node.op_type}" + (f"\n{limits_legend(named)}" if named else "")
    if vnode.value is not None:
        text = value_type_text(vnode.value, inferred)
        return (f"{vnode.value.name}\n{text}" if text else vnode.value.name) + _calls_note(vnode.value, inferred)
    if vnode.group is not None:
        return group_path_text(vnode.group) + "\n" + QCoreApplication.translate("Canvas", "Double-click to expand")
    return vnode.label.title
