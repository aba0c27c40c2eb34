"""What double-click and right-click do on the canvas: open or close a
group, enter an If/Loop/Scan body or a function body, zoom to an edge.
Both gestures offer the same actions (the menu makes them findable), all
through the panel's public methods.

The texts keep the context of the panel they were first written in
("GraphPanel"), so each keeps its translation.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMenu

from .items import EdgeItem, GroupFrame, NodeItem


def activate(panel, item) -> None:
    """Double-click on `item`."""
    if isinstance(item, GroupFrame):
        panel.collapse_group(item.path)
    elif isinstance(item, NodeItem) and item.ref is not None:
        vnode = item.ref
        if vnode.kind == "group":
            panel.expand_group(vnode.group)
        elif vnode.node is not None:
            enter_node(panel, vnode)
    elif isinstance(item, EdgeItem):
        panel.view.zoom_to_selection()


def bodies_of(panel, vnode) -> list:
    """(name, graph) of every body a node box can be entered into: its
    subgraph attributes, and the body of the model-local function it calls."""
    bodies = list(vnode.node.subgraphs())
    model = panel.model
    if vnode.function_key is not None and model is not None:
        function = model.functions.get(vnode.function_key)
        if function is not None:
            name = QCoreApplication.translate("GraphPanel", "function {name}").format(name=function.name)
            bodies.append((name, function.graph))
    return bodies


def enter_node(panel, vnode) -> None:
    bodies = bodies_of(panel, vnode)
    if len(bodies) == 1:
        panel.enter_graph(bodies[0][1])
    elif bodies:
        menu = QMenu(panel)
        for name, graph in bodies:
            menu.addAction(QCoreApplication.translate("GraphPanel", "Open {name}").format(name=name),
                           lambda g=graph: panel.enter_graph(g))
        menu.exec(panel.cursor().pos())


def context_menu(panel, item) -> QMenu:
    """The right-click menu over `item` (None: empty canvas)."""
    menu = QMenu(panel)
    if isinstance(item, EdgeItem) and panel.edge_menu_hook is not None:
        panel.edge_menu_hook(menu, item)
    if isinstance(item, GroupFrame):
        menu.addAction(QCoreApplication.translate("GraphPanel", "Collapse {name}").format(name=item.path[-1]),
                       lambda: panel.collapse_group(item.path))
    elif isinstance(item, NodeItem) and item.ref is not None:
        vnode = item.ref
        if vnode.kind == "group":
            menu.addAction(QCoreApplication.translate("GraphPanel", "Expand {name}").format(name=vnode.group[-1]),
                           lambda: panel.expand_group(vnode.group))
        elif vnode.node is not None:
            # The same entries, in the same words, as double-click offers.
            for name, graph in bodies_of(panel, vnode):
                menu.addAction(QCoreApplication.translate("GraphPanel", "Open {name}").format(name=name),
                               lambda g=graph: panel.enter_graph(g))
    for extend in panel.menu_extenders:     # other docks' actions (e.g. Run to Node)
        extend(item, menu)
    if not menu.isEmpty():
        menu.addSeparator()
    menu.addAction(QCoreApplication.translate("GraphPanel", "Fit graph (F)"), panel.view.fit_all)
    menu.addAction(QCoreApplication.translate("GraphPanel", "Expand all groups"), panel.expand_all)
    menu.addAction(QCoreApplication.translate("GraphPanel", "Collapse all groups"), panel.collapse_all)
    if len(panel.levels) > 1:
        menu.addAction(QCoreApplication.translate("GraphPanel", "Back to enclosing graph (Esc)"), panel.go_back)
    return menu
