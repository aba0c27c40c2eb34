"""Primitive edits of values: initializers (dense and sparse), renaming,
declared types (value_info, graph inputs and outputs) and the graph's input
and output lists.

A shape is a list of dims: an int, a symbolic name, or None (unknown); a
string of digits is taken as the int it spells, so a dim never becomes the
string "1", and a string written like any other number is refused (see
norm_shape and core/dims_text.py). `shape=None` means the rank is unknown.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

import numpy as np

from ..dims_text import INT64_MAX, DimsTextError, looks_like_number, parse_dim
from ..ir import SparseTensor, Tensor, TensorType, Value
from ..ir.dtypes import to_numpy_dtype
from .base import Changes, Edit, EditError, register
from .graph_edit import GraphEdit
from .refs import GraphPath
from .wiring import NOT_IN_SCRIPT, check_new_name, ir, visible_value


# -- helpers ----------------------------------------------------------------------------------

def norm_shape(shape, place: str) -> Optional[tuple]:
    """`shape` as the IR stores it; EditError naming the dim that is neither
    an int, a name nor unknown.

    A string dim is read with the shared dims grammar (core/dims_text.py)
    when it is written like a number or is `?`/empty: "1" is the int 1, and
    "-3", "2.5" or a size beyond int64 are refused rather than stored as a
    name. Other strings are names, kept as they are: names read from a file
    or made by inference may be any text. Ints must fit in int64 (negative
    ones stay: files write -1 for "any size")."""
    if shape is None:
        return None
    if isinstance(shape, (str, bytes)) or not hasattr(shape, "__iter__"):
        raise EditError(f"{place}: a shape is a list of dims, not {shape!r}")
    out = []
    for i, d in enumerate(shape):
        if d is None:
            out.append(None)
        elif isinstance(d, (bool, np.bool_)):
            raise EditError(f"{place}: dim {i} is {d!r}; give an int, a name or None")
        elif isinstance(d, numbers.Integral):
            if not -INT64_MAX - 1 <= int(d) <= INT64_MAX:
                raise EditError(f"{place}: dim {i} is {int(d)}: a size must fit in int64 "
                                f"(at most {INT64_MAX})")
            out.append(int(d))
        elif isinstance(d, str):
            s = d.strip()
            if s in ("", "?") or looks_like_number(s):
                try:
                    out.append(parse_dim(s or "?", i))
                except DimsTextError as e:
                    raise EditError(f"{place}: {e}") from None
            else:
                out.append(s)
        else:
            raise EditError(f"{place}: dim {i} is {d!r}; give an int, a name or None")
    return tuple(out)


def norm_elem_type(elem_type, place: str) -> int:
    if isinstance(elem_type, (bool, np.bool_)) or not isinstance(elem_type, numbers.Integral):
        raise EditError(f"{place}: an element type is a DataType number, not {elem_type!r}")
    return int(elem_type)


def _retype(old_type, elem_type, shape, place: str) -> TensorType:
    """`old_type` with shape `shape` and (unless it is None) element type `elem_type`."""
    shape = norm_shape(shape, place)
    elem = getattr(old_type, "elem_type", 0) if elem_type is None else norm_elem_type(elem_type, place)
    return tensor_type(old_type, elem, shape)


def tensor_type(old, elem_type, shape) -> TensorType:
    """A TensorType with `elem_type`/`shape`, keeping `old`'s denotations where they still fit."""
    den = getattr(old, "denotation", "") if isinstance(old, TensorType) else ""
    notes = getattr(old, "dim_denotations", None) if isinstance(old, TensorType) else None
    if notes is not None and (shape is None or len(notes) != len(shape)):
        notes = None
    return TensorType(elem_type, shape, den, notes)


def defined_value(graph, name: str, place: str) -> Value:
    """The value `name` defined or declared in `graph` itself."""
    v = graph.get_value(name)
    if v is None:
        for items in (graph.inputs, graph.outputs, graph.value_info):
            i = items.find(name)
            if i >= 0:
                v = items[i]
                break
    if v is None:
        raise EditError(f"{place}: {graph.path} has no value named {name!r}")
    return v


def _declared(graph, value) -> bool:
    return value in graph.inputs or value in graph.outputs or value in graph.value_info


def _is_function_body(graph) -> bool:
    return getattr(graph.owner, "is_function", False)


def _as_array(array, place: str) -> np.ndarray:
    if isinstance(array, Tensor):
        return array.numpy()
    try:
        return np.asarray(array)
    except Exception as e:  # noqa: BLE001 - whatever numpy refuses
        raise EditError(f"{place}: not an array: {e}") from None


def _dense_tensor(array, name: str, dtype, place: str) -> Tensor:
    arr = _as_array(array, place)
    try:
        return Tensor.from_numpy(arr, name, None if dtype is None else norm_elem_type(dtype, place))
    except (TypeError, ValueError, KeyError) as e:
        raise EditError(f"{place}: cannot store a {arr.dtype} array as element type {dtype}: {e}") from None


def _sparse_tensor(array, name: str, dtype, place: str) -> SparseTensor:
    dense = _as_array(array, place)
    flat = dense.reshape(-1)
    idx = np.flatnonzero(flat).astype(np.int64)
    values = _dense_tensor(flat[idx], name, dtype, place)
    return SparseTensor(values, Tensor.from_numpy(idx), tuple(int(d) for d in dense.shape))


def sparse_from_dense(array, name: str = "", dtype=None) -> SparseTensor:
    """`array` as a SparseTensor of its nonzero elements (sorted linear int64
    indices), the way SetInitializer keeps a sparse initializer sparse; the
    value for a SPARSE_TENSOR attribute (a Constant's `sparse_value`).
    EditError when the data cannot be stored as element type `dtype`."""
    return _sparse_tensor(array, name, dtype, f'sparse tensor "{name}"')


# -- initializers -------------------------------------------------------------------------------

@register
@dataclass
class AddInitializer(GraphEdit):
    """Add a constant `name` holding `array` (stored as a sparse initializer
    when `sparse`). Naming an existing graph input gives it a default value."""
    kind: ClassVar[str] = "add_initializer"
    name: str
    array: Any = None
    sparse: bool = False
    dtype: Optional[int] = None
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)
    index: Optional[int] = None     # its place among the initializers (None: last)

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/initializer "{self.name}"'
        if self.restore is not None:
            value, const, index, sparse = self.restore
            value.const = const
            ir(g.add_initializer, value, index, sparse=sparse, place=place)
        else:
            sparse = bool(self.sparse)
            existing = g.get_value(self.name)
            if existing is not None and existing.is_graph_input and existing.const is None:
                value = existing
            else:
                check_new_name(g, self.name, place)
                value = Value(self.name)
            if self.array is None:
                raise EditError(f"{place}: no data given")
            const = (_sparse_tensor if sparse else _dense_tensor)(self.array, self.name, self.dtype, place)
            table = g.sparse_initializers if sparse else g.initializers
            if self.index is not None and not (isinstance(self.index, int) and 0 <= self.index <= len(table)):
                raise EditError(f"{place}: position {self.index!r} is outside 0..{len(table)}")
            value.const = const
            try:
                g.add_initializer(value, self.index, sparse=sparse)
            except Exception:
                value.const = None
                raise
        changes.initializers.add(value)
        changes.graph(g)
        return RemoveInitializer(self.name, self.graph)

    def describe(self) -> str:
        return f"Add initializer {self.name}"

    def as_script_edit(self) -> Optional[Edit]:
        """A removed initializer put back from its values, in its place."""
        if self.restore is None:
            return self
        _, const, index, sparse = self.restore
        array = _plain_values(const)
        if array is None:
            return None
        return AddInitializer(self.name, array, sparse, _elem_type(const), self.graph, index=index)


@register
@dataclass
class RemoveInitializer(GraphEdit):
    """Remove the (dense or sparse) initializer `name`; refused while nodes
    read it (unless it is the default of a graph input)."""
    kind: ClassVar[str] = "remove_initializer"
    name: str
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        sparse = self.name in g.sparse_initializers
        table = g.sparse_initializers if sparse else g.initializers
        if self.name not in table:
            raise EditError(f'{g.path}: no initializer named "{self.name}"')
        index = table.position(self.name)
        value = table[self.name]
        const = value.const
        ir(g.remove_initializer, self.name, sparse=sparse, place=f'{g.path}/initializer "{self.name}"')
        changes.initializers.add(value)
        changes.graph(g)
        return AddInitializer(self.name, None, sparse, None, self.graph, restore=(value, const, index, sparse))

    def describe(self) -> str:
        return f"Remove initializer {self.name}"


@register
@dataclass
class SetInitializer(GraphEdit):
    """Replace an initializer's data with `array`, or (without `array`)
    convert it to element type `dtype` and/or reshape it to `shape` (the
    number of elements must stay the same)."""
    kind: ClassVar[str] = "set_initializer"
    name: str
    array: Any = None
    dtype: Optional[int] = None
    shape: Optional[list] = None
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/initializer "{self.name}"'
        sparse = self.name in g.sparse_initializers
        value = (g.sparse_initializers if sparse else g.initializers).get(self.name)
        if value is None:
            raise EditError(f'{g.path}: no initializer named "{self.name}"')
        old = value.const
        if self.restore is not None:
            new = self.restore
        else:
            new = self._new_const(old, sparse, place)
        value.const = new
        changes.initializers.add(value)
        changes.graph(g)
        return SetInitializer(self.name, None, None, None, self.graph, restore=old)

    def _new_const(self, old, sparse: bool, place: str):
        if self.array is not None:
            data = self.array
        else:
            try:
                data = old.to_dense() if sparse else old.numpy()
            except Exception as e:  # noqa: BLE001 - damaged or unreadable data
                raise EditError(f"{place}: cannot read its data: {e}") from None
            if self.dtype is not None:
                try:
                    data = data.astype(to_numpy_dtype(norm_elem_type(self.dtype, place)))
                except (TypeError, ValueError, KeyError) as e:
                    raise EditError(f"{place}: cannot convert to element type {self.dtype}: {e}") from None
            if self.shape is not None:
                shape = norm_shape(self.shape, place)
                if any(not isinstance(d, int) or d < 0 for d in shape):
                    raise EditError(f"{place}: a new shape needs known sizes, got {list(self.shape)}")
                if int(np.prod(shape, dtype=np.int64)) != data.size:
                    raise EditError(f"{place}: cannot reshape {list(data.shape)} ({data.size} elements) to "
                                    f"{list(shape)} ({int(np.prod(shape, dtype=np.int64))} elements)")
                data = data.reshape(shape)
        if sparse:
            return _sparse_tensor(data, self.name, self.dtype, place)
        return _dense_tensor(data, self.name, self.dtype, place)

    def describe(self) -> str:
        return f"Set initializer {self.name}"

    def as_script_edit(self) -> Optional[Edit]:
        """The old data put back from its values (a Tensor, which a script
        writes as an array of its element type)."""
        if self.restore is None:
            return self
        array = _plain_values(self.restore)
        if array is None:
            return None
        return SetInitializer(self.name, array, _elem_type(self.restore), None, self.graph)


def _plain_values(const):
    """What SetInitializer / AddInitializer make `const` from again: a dense
    Tensor itself; a sparse one's dense values when it is in the form they
    make (the sorted flat indices of its nonzero elements), else None."""
    if isinstance(const, Tensor):
        return const
    try:
        dense = const.to_dense()
        indices = const.indices.numpy()
    except Exception:  # noqa: BLE001 - damaged data: nothing to write
        return None
    canonical = np.flatnonzero(dense.reshape(-1)).astype(np.int64)
    if indices.shape != canonical.shape or not np.array_equal(indices, canonical):
        return None
    return dense


def _elem_type(const) -> int:
    return int(const.dtype if isinstance(const, Tensor) else const.values.dtype)


# -- names --------------------------------------------------------------------------------------

@register
@dataclass
class RenameValue(GraphEdit):
    """Rename a value defined in one graph. Its readers (in subgraphs that
    capture it too) follow, since they hold the value, not the name."""
    kind: ClassVar[str] = "rename_value"
    old: str
    new: str
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/value "{self.old}"'
        v = g.get_value(self.old)
        if v is None or v.graph is not g:
            raise EditError(f"{place}: {g.path} defines no value named {self.old!r}")
        check_new_name(g, self.new, place)
        ir(g.rename_value, v, self.new, place=place)
        changes.values_renamed.append((g, self.old, self.new))
        changes.graph(g)
        if v.producer is not None:
            changes.node(v.producer)
        for n in v.consumers:
            changes.node(n)
        if v.const is not None:
            changes.initializers.add(v)
        if v.is_graph_input or v.is_graph_output:
            changes.graph_io.add(g)
        if v in g.value_info:
            changes.value_info.add(g)
        return RenameValue(self.new, self.old, self.graph)

    def describe(self) -> str:
        return f"Rename {self.old} to {self.new}"


# -- declared types -----------------------------------------------------------------------------

@register
@dataclass
class SetValueType(GraphEdit):
    """Set the declared tensor type of a graph input, output or value_info
    entry. `elem_type` None keeps the element type; `shape` None means the
    rank is unknown."""
    kind: ClassVar[str] = "set_value_type"
    value: str
    elem_type: Optional[int] = None
    shape: Optional[list] = None
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)
    untyped: bool = False      # declare no type at all (an entry without a type field)

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/value "{self.value}"'
        v = defined_value(g, self.value, place)
        if not _declared(g, v):
            raise EditError(f"{place}: the value has no declaration to type (add a value_info entry first)")
        if _is_function_body(g) and v not in g.value_info:
            raise EditError(f"{place}: a function's inputs and outputs carry no types in the file")
        old_type = v.type
        old_overrides = g.declaration_overrides_of(v)
        if self.restore is not None:
            new_type, overrides = self.restore
        elif self.untyped:
            new_type, overrides = None, {}
        else:
            new_type, overrides = _retype(old_type, self.elem_type, self.shape, place), {}
        for k in old_overrides:
            g.set_declaration_override(k[0], k[1], None)
        for k, m in overrides.items():
            g.set_declaration_override(k[0], k[1], m)
        v.type = new_type
        changes.values_retyped.add(v)
        changes.graph(g)
        if v.is_graph_input or v.is_graph_output:
            changes.graph_io.add(g)
        if v in g.value_info:
            changes.value_info.add(g)
        return SetValueType(self.value, getattr(old_type, "elem_type", None), list(old_type.shape)
                            if getattr(old_type, "shape", None) is not None else None, self.graph,
                            restore=(old_type, old_overrides))

    def describe(self) -> str:
        return f"Set type of {self.value}"

    def as_script_edit(self) -> Optional[Edit]:
        """The old tensor type from its element type and dims (or no type);
        None for a type that is not a tensor's, or when a declaration kept
        its own verbatim text (a damaged file's repeat), which no edit writes."""
        if self.restore is None:
            return self
        old_type, overrides = self.restore
        if overrides or not (old_type is None or type(old_type) is TensorType):
            return None
        if old_type is None:
            return SetValueType(self.value, graph=self.graph, untyped=True)
        shape = None if old_type.shape is None else list(old_type.shape)
        return SetValueType(self.value, int(old_type.elem_type), shape, self.graph)

    def merge_key(self):
        return ("value-type", self.graph, self.value)


@dataclass
class _Declare(GraphEdit):
    """Put a declaration (input, output or value_info entry) back exactly as
    it was: the inverse of removing one."""
    kind: ClassVar[str] = "declare"
    decl: str
    index: int
    value: Any
    override: Any
    type: Any
    graph: GraphPath = ()
    # An input the value table did not hold (a file's second declaration of
    # a name): it goes back beside the table, as the reader left it.
    repeat: bool = False

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        ir(g.insert_declaration, self.decl, self.index, self.value, self.override, repeat=self.repeat,
           place=g.path)
        self.value.type = self.type
        _note_decl(changes, g, self.decl, self.value)
        if self.decl in ("input", "output"):
            # The entry put back, not the first of its name: a file may declare a name twice.
            occurrence = _occurrence_at(g.declarations(self.decl), self.index)
            return _REMOVERS[self.decl](self.value.name, self.graph, occurrence=occurrence)
        return _REMOVERS[self.decl](self.value.name, self.graph)


    def as_script_edit(self) -> Optional[Edit]:
        """An output or value_info entry put back, as AddGraphOutput /
        AddValueInfo with its tensor type (the entry's other text is not
        kept); None for an input or a type a script cannot name."""
        if self.repeat or self.decl == "input" or not (self.type is None or type(self.type) is TensorType):
            return None
        elem = None if self.type is None else self.type.elem_type or None
        shape = None if self.type is None or self.type.shape is None else list(self.type.shape)
        if self.decl == "output":
            return AddGraphOutput(self.value.name, self.index, self.graph, elem, shape)
        return AddValueInfo(self.value.name, elem, shape, self.index, self.graph)


def _note_decl(changes: Changes, g, decl: str, value) -> None:
    changes.graph(g)
    changes.values_retyped.add(value)
    if decl == "value_info":
        changes.value_info.add(g)
    else:
        changes.graph_io.add(g)


def _given_type(old_type, elem_type, shape, place: str):
    """The type a new declaration gives its value: `old_type` unless the edit
    names an element type or a shape."""
    if elem_type is None and shape is None:
        return old_type
    return _retype(old_type, elem_type, shape, place)


def _add_decl(g, changes, graph_path, decl: str, value, index: Optional[int], new_type, place: str) -> Edit:
    """Declare `value` at `index` (None: last) of the graph's `decl` list with
    type `new_type`; the inverse takes that entry out and gives the value its
    old type back."""
    index = len(g.declarations(decl)) if index is None else index
    old_type = value.type
    ir(g.insert_declaration, decl, index, value, place=place)
    value.type = new_type
    _note_decl(changes, g, decl, value)
    return _Undeclare(decl, index, old_type, graph_path, value.name,
                      _occurrence_at(g.declarations(decl), index))


def _remove_decl(g, changes, graph_path, decl: str, name: str, occurrence: int = 0) -> Edit:
    items = g.declarations(decl)
    index = items.find(name)
    if index < 0:
        what = {"input": "graph input", "output": "graph output", "value_info": "value_info entry"}[decl]
        raise EditError(f"{g.path}: no {what} named {name!r}")
    repeat = False
    if decl == "input":
        index = _input_declaration(g, name, occurrence)
        repeat = g.get_value(name) is not items[index]
    elif decl == "output":
        index = _nth_declaration(g, decl, name, occurrence)
    value, override = ir(g.remove_declaration, decl, index, place=f'{g.path}/{decl} "{name}"')
    old_type = value.type
    home = value.graph if value.graph is not None else g
    if not _declared(g, value) and not _declared(home, value) and \
            (value.producer is not None or value.const is not None):
        # The type was only written by this declaration: a reload would not
        # see it, so inference must not either.
        value.type = None
    _note_decl(changes, g, decl, value)
    return _Declare(decl, index, value, override, old_type, graph_path, repeat)


def _input_declaration(g, name: str, occurrence: int) -> int:
    """Position of declaration `occurrence` (0 the first) of graph input
    `name`. A damaged file may declare an input twice; the reader gives each
    declaration a Value, and the first is the one the name stands for, the
    one nodes read. Taking that one out while a repeat stays would leave the
    name to a value the table does not hold, so the repeat goes first."""
    items = g.inputs
    index = _nth_declaration(g, "input", name, occurrence)
    positions = [i for i, v in enumerate(items) if v.name == name]
    value = items[index]
    if g.get_value(name) is value:
        again = [i for i in positions if items[i] is not value]
        if again:
            raise EditError(f'{g.path}/input[{index}] "{name}": input[{again[0]}] declares {name!r} again; '
                            f"remove that repeat first (this declaration is the value {name!r} stands for)")
    return index


def _nth_declaration(g, decl: str, name: str, occurrence: int) -> int:
    """Position of declaration `occurrence` (0 the first) of `name` among the
    graph's inputs or outputs (a damaged file may declare a name twice)."""
    items = g.declarations(decl)
    positions = [i for i, v in enumerate(items) if v.name == name]
    if not isinstance(occurrence, int) or isinstance(occurrence, bool) or \
            not 0 <= occurrence < len(positions):
        times = "once" if len(positions) == 1 else f"{len(positions)} times"
        raise EditError(f'{g.path}/{decl} "{name}": declared {times}; there is no declaration {occurrence!r} '
                        f"(0 is the first)")
    return positions[occurrence]


def _occurrence_at(items, index: int) -> int:
    """Which declaration of its name entry `index` is (0 the first)."""
    name = items[index].name
    return sum(1 for i in range(index) if items[i].name == name)


@register
@dataclass
class AddValueInfo(GraphEdit):
    """Declare the type of an intermediate value (a value_info entry)."""
    kind: ClassVar[str] = "add_value_info"
    value: str
    elem_type: Optional[int] = None
    shape: Optional[list] = None
    index: Optional[int] = None
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/value_info "{self.value}"'
        v = visible_value(g, self.value, place)
        if v in g.value_info:
            raise EditError(f"{place}: {self.value!r} already has a value_info entry")
        new_type = _given_type(v.type, self.elem_type, self.shape, place)
        return _add_decl(g, changes, self.graph, "value_info", v, self.index, new_type, place)

    def describe(self) -> str:
        return f"Declare {self.value}"


@dataclass
class _Undeclare(GraphEdit):
    """Inverse of adding a declaration: takes entry `index` out and puts the
    value's previous type back."""
    kind: ClassVar[str] = "undeclare"
    decl: str
    index: int
    type: Any
    graph: GraphPath = ()
    name: str = ""          # the value declared, and which declaration of its name the entry is
    occurrence: int = 0

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        value, override = ir(g.remove_declaration, self.decl, self.index, place=g.path)
        current = value.type
        value.type = self.type
        _note_decl(changes, g, self.decl, value)
        return _Declare(self.decl, self.index, value, override, current, self.graph)

    def as_script_edit(self) -> Optional[Edit]:
        """The entry taken out by name, for a value that had no type before
        it was declared (an output a bypass or a cut added): removing the
        entry leaves it none, as here. None when it had a type to get back."""
        if not self.name or self.type is not None:
            return None
        if self.decl == "value_info":
            return RemoveValueInfo(self.name, self.graph)
        return _REMOVERS[self.decl](self.name, self.graph, occurrence=self.occurrence)


class _RemoveDeclaration(GraphEdit):
    """Shared body of the edits that take one entry out of a graph's input,
    output or value_info list (`decl` says which)."""
    decl: ClassVar[str] = ""
    # Which declaration of the name (0 the first): a field of the input and
    # output removals; a value has one value_info entry at most.
    occurrence: ClassVar[int] = 0

    @property
    def entry(self) -> str:
        return self.name

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        return _remove_decl(g, changes, self.graph, self.decl, self.entry, self.occurrence)

    def describe(self) -> str:
        return f"Remove {self.decl} {self.entry}"


@register
@dataclass
class RemoveValueInfo(_RemoveDeclaration):
    kind: ClassVar[str] = "remove_value_info"
    decl: ClassVar[str] = "value_info"
    value: str
    graph: GraphPath = ()

    @property
    def entry(self) -> str:
        return self.value

    def describe(self) -> str:
        return f"Remove value_info of {self.value}"


@register
@dataclass
class AddGraphInput(GraphEdit):
    """Add a graph input `name` of the given type at `index` (default last).
    Naming an initializer makes it an input whose default is that data."""
    kind: ClassVar[str] = "add_graph_input"
    name: str
    elem_type: Optional[int] = None
    shape: Optional[list] = None
    index: Optional[int] = None
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/input "{self.name}"'
        existing = g.get_value(self.name)
        if existing is not None and existing.const is not None and not existing.is_graph_input \
                and existing.graph is g:
            v = existing
            const = v.const
            dims = const.shape if isinstance(const, Tensor) else const.dims
            elem = const.dtype if isinstance(const, Tensor) else const.values.dtype
            default = TensorType(int(elem), tuple(dims))
        else:
            check_new_name(g, self.name, place)
            v = Value(self.name)
            default = TensorType(0, None)
        shape = norm_shape(self.shape, place) if self.shape is not None else default.shape
        elem = norm_elem_type(self.elem_type, place) if self.elem_type is not None else default.elem_type
        new_type = None if _is_function_body(g) else TensorType(elem, shape)
        return _add_decl(g, changes, self.graph, "input", v, self.index, new_type, place)

    def describe(self) -> str:
        return f"Add input {self.name}"


@register
@dataclass
class RemoveGraphInput(_RemoveDeclaration):
    """Remove graph input `name`; refused while nodes read it (unless an
    initializer backs it). A damaged file may declare the name more than
    once: `occurrence` says which declaration (0 the first); a repeat goes
    with the value staying an input, the first only once no repeat is left."""
    kind: ClassVar[str] = "remove_graph_input"
    decl: ClassVar[str] = "input"
    name: str
    graph: GraphPath = ()
    occurrence: int = 0

    def describe(self) -> str:
        # Spelt out per class (ui/step_names.py's test reads step names from the
        # source; value_info has no repeat to remove). A repeat's removal: the input stays.
        return f"Remove repeated input {self.name}" if self.occurrence else super().describe()


@register
@dataclass
class AddGraphOutput(GraphEdit):
    """Make the value `name` a graph output at `index` (default last),
    declared with `elem_type` and `shape` when given (as AddValueInfo):
    a graph output needs a type (onnx's checker refuses one without), and
    an intermediate value often has none in the file. `typed_output` fills
    them in from inference."""
    kind: ClassVar[str] = "add_graph_output"
    name: str
    index: Optional[int] = None
    graph: GraphPath = ()
    elem_type: Optional[int] = None
    shape: Optional[list] = None

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        place = f'{g.path}/output "{self.name}"'
        v = visible_value(g, self.name, place)
        if v in g.outputs:
            raise EditError(f"{place}: {self.name!r} is already a graph output")
        new_type = _given_type(v.type, self.elem_type, self.shape, place)
        return _add_decl(g, changes, self.graph, "output", v, self.index, new_type, place)

    def describe(self) -> str:
        return f"Add output {self.name}"


def typed_output(value, inferred, graph: GraphPath = (), index: Optional[int] = None) -> AddGraphOutput:
    """The edit that makes `value` a graph output, declaring `inferred` (its
    type from inference) when the value has no declared type of its own:
    otherwise the saved file would list an output without a type. Names
    inference made up for unknown sizes are written as unknown dims."""
    from ..infer.fresh import as_written
    found = as_written(inferred)
    if value.type is not None or not isinstance(found, TensorType) or not found.elem_type:
        return AddGraphOutput(value.name, index, graph)
    return AddGraphOutput(value.name, index, graph, found.elem_type,
                          None if found.shape is None else list(found.shape))


@register
@dataclass
class RemoveGraphOutput(_RemoveDeclaration):
    """Remove graph output `name` (the value stays). A damaged file may list
    the name more than once, each entry with its own declared type:
    `occurrence` says which declaration (0 the first)."""
    kind: ClassVar[str] = "remove_graph_output"
    decl: ClassVar[str] = "output"
    name: str
    graph: GraphPath = ()
    occurrence: int = 0

    def describe(self) -> str:
        # Spelt out per class (ui/step_names.py's test reads step names from the
        # source; value_info has no repeat to remove). A repeat's removal: an earlier declaration stays.
        return f"Remove repeated output {self.name}" if self.occurrence else super().describe()


_REMOVERS = {"input": RemoveGraphInput, "output": RemoveGraphOutput, "value_info": RemoveValueInfo}


@dataclass
class _MoveDeclaration(GraphEdit):
    """Shared body of MoveGraphInput and MoveGraphOutput (`decl` says which list)."""
    decl: ClassVar[str] = ""
    name: str
    index: int
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        return _move(g, changes, self.graph, self.decl, self.name, self.index, type(self))

    def describe(self) -> str:
        return f"Move {self.decl} {self.name}"


def _move(g, changes, graph_path, decl: str, name: str, index: int, kind, occurrence: int = 0) -> Edit:
    items = g.declarations(decl)
    old = items.find(name)
    if old < 0:
        raise EditError(f"{g.path}: no graph {decl} named {name!r}")
    named = g.get_value(name) if decl == "input" else None
    if named is not None and named in items:
        # A file may declare an input twice: the move (and its inverse) takes
        # the declaration the name stands for, wherever the repeat is.
        old = items.index(named)
    if decl == "output":
        # The entries of an output listed twice hold one Value, each with its
        # own declared type: they differ only by position, so the move names
        # its entry by occurrence and the inverse names the one it moved.
        old = _nth_declaration(g, decl, name, occurrence)
    if not isinstance(index, int) or not 0 <= index < len(items):
        raise EditError(f'{g.path}/{decl} "{name}": position {index} is outside 0..{len(items) - 1}')
    g.move_declaration(decl, old, index)
    changes.graph_io.add(g)
    changes.graph(g)
    if decl == "output":
        return kind(name, old, graph_path, occurrence=_occurrence_at(items, index))
    return kind(name, old, graph_path)


@register
@dataclass
class MoveGraphInput(_MoveDeclaration):
    """Move graph input `name` to position `index`."""
    kind: ClassVar[str] = "move_graph_input"
    decl: ClassVar[str] = "input"


@register
@dataclass
class MoveGraphOutput(_MoveDeclaration):
    """Move graph output `name` to position `index`; of a name the file lists
    more than once, declaration `occurrence` (0 the first)."""
    kind: ClassVar[str] = "move_graph_output"
    decl: ClassVar[str] = "output"
    occurrence: int = 0

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        return _move(g, changes, self.graph, self.decl, self.name, self.index, type(self), self.occurrence)
