"""Values computed inside If/Loop/Scan bodies during a whole run, kept on request.

    s = Session(model, keep_body_values=True, body_budget=64 << 20)
    s.run(feeds)
    s.body_values.values[(graph_path, name)]     # the last run of that body
    s.body_values.not_kept                       # what the budget left out

A whole run frees a body's values as soon as its last reader ran, so after
it nothing inside a body is left to show or compare. With keeping on, body
plans keep every value, and each run of a body stores its inputs and what
its nodes computed here, under the body's graph path. A body run again (a
Loop's iterations, an If inside a loop) replaces its values, so what stays
is the last run, and `iterations[path]` says which run that was; with
`every_iteration` each run's values are kept as well (`history`).

Every kept array counts against `budget` (its nbytes). The first value that
would go past it is not kept, and from then on nothing more is: keeping
then only some later values would show an earlier iteration's value next
to a later one's. A value dropped that way loses its earlier iterations too,
so no value on screen is older than its neighbours without saying so.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from ..ir import Graph

DEFAULT_BUDGET = 512 << 20      # bytes


def value_nbytes(value) -> int:
    """Memory a value holds: arrays by nbytes, sequences and maps summed."""
    if isinstance(value, np.ndarray):
        return int(value.nbytes)
    if isinstance(value, (list, tuple)):
        return sum(value_nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(value_nbytes(v) for v in value.values())
    if isinstance(value, np.generic):
        return int(value.nbytes)
    return 0


class BodyValues:
    """The body values of one run, keyed by (graph path, value name)."""

    def __init__(self, budget: int = DEFAULT_BUDGET, every_iteration: bool = False):
        self.budget = int(budget)
        self.every_iteration = every_iteration
        self.values: dict[tuple, object] = {}          # (path, name) -> value of the body's last run
        self.history: dict[tuple, list] = {}           # (path, name) -> [(run index, value)], every_iteration
        self.iterations: dict[str, int] = {}           # path -> index of the run whose values are kept
        self.runs: dict[str, int] = {}                 # path -> how many times the body ran
        self.graphs: dict[str, Graph] = {}             # path -> the body graph
        self.not_kept: dict[tuple, None] = {}          # (path, name), in the order met (an ordered set)
        self.nbytes = 0
        self.full = False
        self._sizes: dict[tuple, int] = {}             # bytes counted for each key
        self._names: dict[int, list] = {}              # id(graph) -> names a run of it records

    # -- recording ---------------------------------------------------------------------

    def names_for(self, graph: Graph, plan) -> list:
        """The body's inputs and every value its nodes compute (not its
        initializers, not what it reads from outside)."""
        names = self._names.get(id(graph))
        if names is None:
            names = [v.name for v in graph.inputs if v is not None and v.name]
            names += [n for st in plan.steps for n in st.outputs if n]
            self._names[id(graph)] = names
        return names

    def keep(self, graph: Graph, names: list, values: dict) -> None:
        """Store one run of `graph` (its frame's `values`)."""
        path = graph.path
        run = self.runs.get(path, 0)
        self.runs[path] = run + 1
        self.graphs[path] = graph
        self.iterations[path] = run
        for name in names:
            if name in values:
                self._keep_one((path, name), run, values[name])

    def _keep_one(self, key: tuple, run: int, value) -> None:
        if key in self.not_kept:
            return
        size = value_nbytes(value)
        replaced = 0 if self.every_iteration else self._sizes.get(key, 0)
        if self.full or self.nbytes - replaced + size > self.budget:
            self.full = True
            self._drop(key)
            self.not_kept[key] = None
            return
        self.nbytes += size - replaced
        self._sizes[key] = size + (self._sizes.get(key, 0) if self.every_iteration else 0)
        self.values[key] = value
        if self.every_iteration:
            self.history.setdefault(key, []).append((run, value))

    def _drop(self, key: tuple) -> None:
        self.nbytes -= self._sizes.pop(key, 0)
        self.values.pop(key, None)
        self.history.pop(key, None)

    def forget(self, path: str) -> None:
        """Drop everything kept for the body at `path` (its values went stale)."""
        for key in [k for k in self._sizes if k[0] == path]:
            self._drop(key)
        for key in [k for k in self.values if k[0] == path]:
            self.values.pop(key)
        for key in [k for k in self.not_kept if k[0] == path]:
            del self.not_kept[key]
        for table in (self.graphs, self.runs, self.iterations):
            table.pop(path, None)
        self.full = bool(self.not_kept)

    def merge(self, other: "BodyValues") -> None:
        """Take over the bodies `other` (a later run, kept within what this
        one's budget left) recorded, replacing what this one had of them."""
        for path in other.graphs:
            self.forget(path)
        self.graphs.update(other.graphs)
        self.runs.update(other.runs)
        self.iterations.update(other.iterations)
        self.values.update(other.values)
        self.history.update(other.history)
        self._sizes.update(other._sizes)
        self.not_kept.update(other.not_kept)
        self.nbytes += other.nbytes
        self.full = self.full or other.full

    # -- reading -----------------------------------------------------------------------

    def of_graph(self, graph: Graph) -> dict:
        """{name: value} kept for `graph`."""
        path = graph.path
        return {name: v for (p, name), v in self.values.items() if p == path}

    def iteration_of(self, path: str, name: str) -> Optional[int]:
        """The run index of the value kept for (path, name); None when none is."""
        return self.iterations.get(path) if (path, name) in self.values else None

    def holds(self, path: str, name: str) -> bool:
        """Whether (path, name) is a value the body records (kept in some run)."""
        return (path, name) in self.values or (path, name) in self.history

    def value_in_run(self, path: str, name: str, run: int):
        """The value of (path, name) in the body's run `run` (0-based: a loop's
        iteration); None when that run's value was not kept (only the last
        run's is, without every_iteration; the budget may have left it out)."""
        for index, value in self.history.get((path, name), ()):
            if index == run:
                return value
        if self.iterations.get(path) == run:
            return self.values.get((path, name))
        return None

    def summary(self) -> str:
        """One line for a person: what was kept, and what the budget left out."""
        text = (f"kept {len(self.values)} values inside {len(self.graphs)} bodies "
                f"({self.nbytes / (1 << 20):.1f} MiB of {self.budget / (1 << 20):.0f} MiB)")
        if self.not_kept:
            names = ", ".join(name for _, name in list(self.not_kept)[:5])
            more = f" and {len(self.not_kept) - 5} more" if len(self.not_kept) > 5 else ""
            text += f"; over the budget, not kept: {names}{more}"
        return text

    def to_json(self) -> dict:
        return {"budget": self.budget, "nbytes": self.nbytes, "every_iteration": self.every_iteration,
                "kept": len(self.values),
                "bodies": [{"graph": p, "runs": self.runs[p], "kept_run": self.iterations[p]}
                           for p in self.graphs],
                "not_kept": [{"graph": p, "name": n} for p, n in self.not_kept]}


__all__ = ["BodyValues", "DEFAULT_BUDGET", "value_nbytes"]
