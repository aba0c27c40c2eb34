"""Primitive edits of the model's and graphs' own fields: IR version,
producer, domain, model version, doc strings, opset imports, metadata."""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from ..opsets import canonical_domain
from .base import Changes, Edit, EditError, register
from .refs import GraphPath, find_graph

MODEL_FIELDS = {"ir_version": int, "producer_name": str, "producer_version": str, "domain": str,
                "model_version": int, "doc_string": str}
GRAPH_FIELDS = ("name", "doc_string")


def _check_type(value, kind, place: str):
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise EditError(f"{place} must be an integer, not {value!r}")
        return int(value)
    if not isinstance(value, str):
        raise EditError(f"{place} must be text, not {value!r}")
    return value


@register
@dataclass
class SetModelField(Edit):
    """Set ir_version, producer_name, producer_version, domain, model_version or doc_string."""
    kind: ClassVar[str] = "set_model_field"
    field: str
    value: object

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        changes = changes if changes is not None else Changes()
        if self.field not in MODEL_FIELDS:
            raise EditError(f"a model has no field {self.field!r} (one of {', '.join(MODEL_FIELDS)})")
        value = _check_type(self.value, MODEL_FIELDS[self.field], f"model {self.field}")
        old = getattr(model, self.field)
        setattr(model, self.field, value)
        changes.model_fields.add(self.field)
        return SetModelField(self.field, old)

    def describe(self) -> str:
        return f"Set model {self.field}"

    def merge_key(self):
        return ("model-field", self.field)


def _opset_owner(model, graph: GraphPath):
    """The model, or the function whose body `graph` names (its own imports)."""
    if not graph:
        return model, None
    g = find_graph(model, graph)
    owner = g.owner
    if not getattr(owner, "is_function", False) or g.parent_node is not None:
        raise EditError(f"{g.path}: only the model and model-local functions import opsets")
    return owner, owner.key


def _note_imports(changes: Changes, owner, fkey) -> None:
    if fkey is None:
        changes.model_fields.add("opset_imports")
    else:
        changes.functions.add(fkey)
        changes.graphs.add(owner.graph)


def _put_at(table: dict, key, value, position: int) -> None:
    """Set `table[key]` at `position` in the table's order (the order is part of the file)."""
    items = [(k, v) for k, v in table.items() if k != key]
    items.insert(position, (key, value))
    table.clear()
    table.update(items)


@register
@dataclass
class SetOpsetImport(Edit):
    """Import `domain` at `version` (None removes the import). With a
    function's path, edits that function's imports instead."""
    kind: ClassVar[str] = "set_opset_import"
    domain: str
    version: Optional[int]
    graph: GraphPath = ()
    position: Optional[int] = None     # where a domain not imported yet goes (None: last)
    # The import list as a file wrote it, [[domain, version, [fields set]], ...],
    # written back while it says what the imports say (its order is part of
    # the file's bytes); None: the list is written from the imports, sorted.
    listed: Optional[list] = None

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        changes = changes if changes is not None else Changes()
        owner, fkey = _opset_owner(model, self.graph)
        if not isinstance(self.domain, str):
            raise EditError(f"an opset domain is text, not {self.domain!r}")
        domain = canonical_domain(self.domain)
        shown = domain or "ai.onnx"
        listed = _listed(self.listed, shown)
        imports = owner.opset_imports
        old = imports.get(domain)
        if self.version is None:
            if old is None:
                raise EditError(f"no opset import for domain {shown!r} to remove")
            items = list(imports.items())
            position = [d for d, _ in items].index(domain)
            del imports[domain]
        else:
            version = _check_type(self.version, int, f"opset version of {shown!r}")
            if version < 1:
                raise EditError(f"opset version of {shown!r} must be at least 1, not {version}")
            if old is None and self.position is not None:
                if not isinstance(self.position, int) or isinstance(self.position, bool) or self.position < 0:
                    raise EditError(f"opset import of {shown!r}: position {self.position!r} is not a place in the list")
                _put_at(imports, domain, version, self.position)
            else:
                imports[domain] = version
            position = None
        # The edit decides the imports: the file's list (its repeats, a
        # domain imported twice at two versions included, and its order) is
        # no longer written; the inverse gives it back.
        as_read = (owner.opsets_as_read, owner.opset_presence)
        if listed is not None:
            owner.remember_opsets(*listed)
        else:
            owner.remember_opsets(None)
        _note_imports(changes, owner, fkey)
        return _RestoreOpset(domain, old, position, self.graph, as_read)

    def describe(self) -> str:
        return f"Remove opset {self.domain or 'ai.onnx'}" if self.version is None else \
            f"Set opset {self.domain or 'ai.onnx'} to {self.version}"


def _listed(listed, shown: str):
    """SetOpsetImport's `listed` as (opsets_as_read, opset_presence), or None."""
    if listed is None:
        return None
    entries, presence = [], []
    try:
        for domain, version, fields in listed:
            if not isinstance(domain, str) or isinstance(version, bool) or not isinstance(version, int) or \
                    not all(f in ("domain", "version") for f in fields):
                raise ValueError
            entries.append((domain, version))
            presence.append(frozenset(fields))
    except (TypeError, ValueError):
        raise EditError(f"opset import of {shown!r}: 'listed' is a list of [domain, version, [fields set]], "
                        f"not {listed!r}") from None
    return entries, presence


@dataclass
class _RestoreOpset(Edit):
    """Inverse of SetOpsetImport: the old version back in its old place in the
    import list (the order is part of the file)."""
    kind: ClassVar[str] = "restore_opset"
    domain: str
    version: Optional[int]
    position: Optional[int]
    graph: GraphPath = ()
    as_read: Any = field(default=None, repr=False, compare=False, metadata={"json": False})

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        changes = changes if changes is not None else Changes()
        owner, fkey = _opset_owner(model, self.graph)
        imports = owner.opset_imports
        current = imports.get(self.domain)
        if self.version is None:
            imports.pop(self.domain, None)
        elif self.position is not None:
            _put_at(imports, self.domain, self.version, self.position)
        else:
            imports[self.domain] = self.version
        if self.as_read is not None:
            owner.remember_opsets(*self.as_read)
        _note_imports(changes, owner, fkey)
        return SetOpsetImport(self.domain, current, self.graph)

    def as_script_edit(self) -> Optional[Edit]:
        """The old import back in its place, and the file's list as it was
        written (its order, a domain listed twice)."""
        listed, presence = self.as_read if self.as_read is not None else (None, None)
        if listed is not None:
            presence = list(presence or [])
            listed = [[d, v, sorted(presence[i]) if i < len(presence) else ["domain", "version"]]
                      for i, (d, v) in enumerate(listed)]
        return SetOpsetImport(self.domain, self.version, self.graph, self.position, listed)


@register
@dataclass
class SetMetadata(Edit):
    """Set (or with value None remove) the model's metadata_props entry `key`."""
    kind: ClassVar[str] = "set_metadata"
    key: str
    value: Optional[str]
    position: Optional[int] = None     # where a re-added key goes (inverses keep the order)

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        changes = changes if changes is not None else Changes()
        if not isinstance(self.key, str) or not self.key:
            raise EditError(f"a metadata key is non-empty text, not {self.key!r}")
        props = model.metadata_props
        old = props.get(self.key)
        keys = list(props)
        old_pos = keys.index(self.key) if old is not None else None
        if self.value is None:
            if old is None:
                raise EditError(f"no metadata entry {self.key!r} to remove")
            del props[self.key]
        else:
            value = _check_type(self.value, str, f"metadata {self.key!r}")
            if old is None and self.position is not None:
                _put_at(props, self.key, value, self.position)
            else:
                props[self.key] = value
        changes.model_fields.add("metadata_props")
        return SetMetadata(self.key, old, old_pos)

    def describe(self) -> str:
        return f"Remove metadata {self.key}" if self.value is None else f"Set metadata {self.key}"

    def merge_key(self):
        return ("metadata", self.key) if self.value is not None else None


@register
@dataclass
class SetGraphField(Edit):
    """Set a graph's name or doc_string."""
    kind: ClassVar[str] = "set_graph_field"
    field: str
    value: str
    graph: GraphPath = ()

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        changes = changes if changes is not None else Changes()
        if self.field not in GRAPH_FIELDS:
            raise EditError(f"a graph has no field {self.field!r} (one of {', '.join(GRAPH_FIELDS)})")
        g = find_graph(model, self.graph)
        value = _check_type(self.value, str, f"{g.path} {self.field}")
        if getattr(g.owner, "is_function", False) and g.parent_node is None:
            raise EditError(f"{g.path}: a function body has no {self.field} of its own")
        old = getattr(g, self.field)
        setattr(g, self.field, value)
        changes.graph(g)
        return SetGraphField(self.field, old, self.graph)

    def describe(self) -> str:
        return f"Set graph {self.field}"

    def merge_key(self):
        return ("graph-field", self.graph, self.field)
