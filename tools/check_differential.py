"""Development tool: search for models onnx's checker rejects and ours calls clean.

    python tools/check_differential.py                   # seed 0, 3000 mutants
    python tools/check_differential.py --seed 7 --mutants 500 --backend 60
    python tools/check_differential.py --show node_op_type   # every gap of one kind
    python tools/check_differential.py --record after.jsonl  # each mutant's verdicts, to compare versions

Takes valid models (the mutation suite's bases, tests/check/check_bases.py,
and a seeded sample of the ONNX backend test models that onnx accepts),
damages each with one random edit at the protobuf level (mutations below:
what someone editing a model by hand might do), writes the mutant to a
temporary folder and asks both checkers:

- onnx:  `onnx.checker.check_model(path, full_check=True)` raises (run in a
  child process, so a crash of onnx's C++ code is a verdict, not the end);
- ours:  `onnxstudio.core.check.check(path)` has an error-severity finding.

A *gap* is a mutant onnx rejects and ours does not. Gaps are grouped into
classes by the mutation and onnx's message (names and numbers blanked), and
each class is printed with its count and one reproducer (base, seed, edit,
onnx's message), so `--replay BASE:SEED` writes that mutant again. For each
gap the tool also says whether the app catches it after all: the app loads
the file (`core.load`) and checks the IR with inference; an error there (or
a load refusal, which only a file protobuf cannot parse should get) is
noted in the table.

Every mutant also goes through the app's path without inference:
`check(core.load(path), use_inference=False)` must give the verdict of
`check(path)` word for word; disagreements are listed at the end. Every
mutant protobuf parses must open (a tensor whose external data reference
cannot be followed is kept, marked unreadable): a load refusal is listed
there too.

`onnx` is used here as the oracle; the app never imports it.
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import pathlib
import random
import re
import select
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "check"))

import onnx  # noqa: E402
import onnx.defs  # noqa: E402
from onnx import AttributeProto as A  # noqa: E402
from onnx import TensorProto as T  # noqa: E402

from onnxstudio import core  # noqa: E402
from onnxstudio.core.check import ERROR, check, check_file  # noqa: E402

# ----------------------------------------------------------------- the oracle

# The child process: reads a path per line, answers one JSON line per path.
_ORACLE = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import onnx
for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        onnx.checker.check_model(path, full_check=True)
        print(json.dumps(None), flush=True)
    except Exception as e:
        print(json.dumps(f"{type(e).__name__}: {e}"), flush=True)
"""


# onnx.checker has hung on a mutant (an Einsum whose equation is invalid
# UTF-8: 16 minutes of CPU before it was stopped); a verdict waits this long.
ORACLE_SECONDS = 120


class Oracle:
    """onnx.checker in a child process; a crash answers 'crash' and restarts
    it, a hang (over ORACLE_SECONDS) answers 'hang', counted as a refusal,
    and kills it."""

    def __init__(self):
        self.proc = None

    def _start(self):
        self.proc = subprocess.Popen([sys.executable, "-c", _ORACLE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)

    def verdict(self, path) -> str | None:
        """None when onnx accepts the file, else its message."""
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        self.proc.stdin.write(f"{path}\n")
        self.proc.stdin.flush()
        ready, _, _ = select.select([self.proc.stdout], [], [], ORACLE_SECONDS)
        if not ready:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
            return f"hang: onnx.checker answered nothing in {ORACLE_SECONDS} s"
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            self.proc = None
            return "crash: onnx.checker ended the process"
        return json.loads(line)

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)


def message_class(message: str) -> str:
    """onnx's message with the parts that name this model blanked: quoted
    names, node names, numbers, so that mutants failing the same rule group."""
    text = message.splitlines()[0] if message else ""
    text = re.sub(r"^\w+Error: ", "", text)
    text = re.sub(r"\(op_type:[^)]*\)", "(op)", text)
    text = re.sub(r"node name: [^)]*", "node", text)
    # Errors of nested graphs arrive wrapped once per level: keep the innermost.
    text = re.sub(r"(\[\w+Error\] )?Inference error\(s\): \(op\): ", "", text)
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", text)
    text = re.sub(r"\b[\w./-]*\d[\w./-]*\b", "N", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:110]


# ------------------------------------------------------------------ the sites

class Sites:
    """Every place of a model a mutation can reach, gathered once per mutant."""

    def __init__(self, model: onnx.ModelProto):
        self.model = model
        self.graphs = []        # (GraphProto, is_main)
        self.node_lists = []    # repeated NodeProto containers (graphs and function bodies)
        self.nodes = []         # (container, index, opsets dict)
        self.attrs = []         # (node, attribute)
        self.tensors = []       # TensorProto (initializers, attribute tensors, sparse parts)
        self.value_infos = []   # (graph, field name, ValueInfoProto)
        opsets = {o.domain or "": o.version for o in model.opset_import}
        self._graph(model.graph, True, opsets)
        for ti in model.training_info:
            for part in (ti.initialization, ti.algorithm):
                if len(part.node) or len(part.output):
                    self._graph(part, False, opsets)
        for fn in model.functions:
            fopsets = {o.domain or "": o.version for o in fn.opset_import}
            self._nodes(fn.node, fopsets)

    def _graph(self, g, is_main, opsets):
        self.graphs.append((g, is_main))
        for field in ("input", "output", "value_info"):
            for vi in getattr(g, field):
                self.value_infos.append((g, field, vi))
        self.tensors.extend(g.initializer)
        for sp in g.sparse_initializer:
            self.tensors += [sp.values, sp.indices]
        self._nodes(g.node, opsets)

    def _nodes(self, nodes, opsets):
        self.node_lists.append(nodes)
        for i, n in enumerate(nodes):
            self.nodes.append((nodes, i, opsets))
            for a in n.attribute:
                self.attrs.append((n, a))
                if a.HasField("t"):
                    self.tensors.append(a.t)
                self.tensors.extend(a.tensors)
                if a.HasField("sparse_tensor"):
                    self.tensors += [a.sparse_tensor.values, a.sparse_tensor.indices]
                if a.HasField("g"):
                    self._graph(a.g, False, opsets)
                for g in a.graphs:
                    self._graph(g, False, opsets)

    def names(self) -> list:
        """Value names used anywhere: what a hand edit would reuse."""
        found = set()
        for nodes in self.node_lists:
            for n in nodes:
                found.update(n.input)
                found.update(n.output)
        for _, _, vi in self.value_infos:
            found.add(vi.name)
        found.discard("")
        return sorted(found)


# -------------------------------------------------------------- the mutations

MUTATIONS = {}


def mutation(fn):
    """Register fn(model, sites, rng) -> description | None (None: nothing to do here)."""
    MUTATIONS[fn.__name__] = fn
    return fn


_DOMAINS = ("", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview.training", "com.microsoft", "custom.x", "AI.ONNX")
_ALL_OPS = sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if s.domain in ("", "ai.onnx.ml")})
_ELEM_TYPES = [t for t in T.DataType.values()] + [99]
_ATTR_TYPES = list(A.AttributeType.values())   # a closed enum: no value outside it parses


def _pick(rng, seq):
    return seq[rng.randrange(len(seq))] if len(seq) else None


def _fresh(rng) -> str:
    return rng.choice(["", "x", "y", "unknown_value", "w", "0", "a b", "__tmp"]) + \
        ("" if rng.random() < 0.5 else str(rng.randrange(5)))


def _node(sites, rng):
    site = _pick(rng, sites.nodes)
    return (None, None) if site is None else (site[0][site[1]], site)


def _schema(node, opsets):
    try:
        return onnx.defs.get_schema(node.op_type, opsets.get(node.domain or "", 1), node.domain or "")
    except Exception:   # noqa: BLE001 - no schema: a custom or broken node
        return None


@mutation
def node_op_type(m, sites, rng):
    node, _ = _node(sites, rng)
    if node is None:
        return None
    old = node.op_type
    choice = rng.random()
    node.op_type = (old.lower() if choice < 0.15 else "" if choice < 0.25 else _pick(rng, _ALL_OPS))
    return f"op_type {old!r} -> {node.op_type!r}"


@mutation
def node_domain(m, sites, rng):
    node, _ = _node(sites, rng)
    if node is None:
        return None
    old = node.domain
    node.domain = rng.choice(_DOMAINS)
    return f"{node.op_type} domain {old!r} -> {node.domain!r}"


def _edit_names(rng, names, sites, what):
    k = rng.randrange(len(names) + 1)
    choice = rng.random()
    if choice < 0.25 and len(names):
        k = min(k, len(names) - 1)
        old = names[k]
        del names[k]
        return f"{what}[{k}] {old!r} deleted"
    if choice < 0.45:
        new = rng.choice(["", _pick(rng, sites.names()) or "x"])
        names.append(new)
        return f"{what} {new!r} appended"
    if not len(names):
        return None
    k = min(k, len(names) - 1)
    old = names[k]
    names[k] = "" if choice < 0.6 else (_pick(rng, sites.names()) if choice < 0.85 else _fresh(rng))
    return f"{what}[{k}] {old!r} -> {names[k]!r}"


@mutation
def node_input(m, sites, rng):
    node, _ = _node(sites, rng)
    return None if node is None else f"{node.op_type}: " + (_edit_names(rng, node.input, sites, "input") or "")


@mutation
def node_output(m, sites, rng):
    node, _ = _node(sites, rng)
    return None if node is None else f"{node.op_type}: " + (_edit_names(rng, node.output, sites, "output") or "")


@mutation
def node_order(m, sites, rng):
    nodes = _pick(rng, [n for n in sites.node_lists if len(n)])
    if nodes is None:
        return None
    i = rng.randrange(len(nodes))
    choice = rng.random()
    if choice < 0.4:
        old = nodes[i].op_type
        del nodes[i]
        return f"node[{i}] {old} deleted"
    if choice < 0.7:
        nodes.add().CopyFrom(nodes[i])
        return f"node[{i}] {nodes[i].op_type} repeated at the end"
    if len(nodes) < 2:
        return None
    j = rng.randrange(len(nodes))
    a, b = onnx.NodeProto(), onnx.NodeProto()
    a.CopyFrom(nodes[i])
    b.CopyFrom(nodes[j])
    nodes[i].CopyFrom(b)
    nodes[j].CopyFrom(a)
    return f"nodes {i} and {j} swapped"


@mutation
def node_fields(m, sites, rng):
    node, _ = _node(sites, rng)
    if node is None:
        return None
    choice = rng.random()
    if choice < 0.4:
        node.name = rng.choice(["", node.name + "_x"])
        return f"{node.op_type} name -> {node.name!r}"
    if choice < 0.7:
        node.overload = rng.choice(["o", "v2"])
        return f"{node.op_type} overload -> {node.overload!r}"
    node.metadata_props.add(key="k", value="v")
    return f"{node.op_type} metadata_props added"


def _attr(sites, rng):
    site = _pick(rng, sites.attrs)
    return (None, None) if site is None else site


@mutation
def attr_type(m, sites, rng):
    node, a = _attr(sites, rng)
    if a is None:
        return None
    old = a.type
    if rng.random() < 0.3:
        a.ClearField("type")
    else:
        a.type = rng.choice(_ATTR_TYPES)
    return f"{node.op_type}.{a.name} type {old} -> {a.type}"


@mutation
def attr_name(m, sites, rng):
    node, a = _attr(sites, rng)
    if a is None:
        return None
    old = a.name
    others = [x.name for x in node.attribute]
    a.name = rng.choice(["", old.upper(), old + "_", _pick(rng, others)])
    return f"{node.op_type} attribute {old!r} renamed {a.name!r}"


@mutation
def attr_count(m, sites, rng):
    node, a = _attr(sites, rng)
    if a is None:
        return None
    if rng.random() < 0.5:
        node.attribute.remove(a)
        return f"{node.op_type} attribute {a.name!r} deleted"
    node.attribute.add().CopyFrom(a)
    return f"{node.op_type} attribute {a.name!r} repeated"


@mutation
def attr_from_schema(m, sites, rng):
    """Add an attribute the operator declares but the node leaves out, with
    a value of a random type (right or wrong)."""
    node, site = _node(sites, rng)
    if node is None:
        return None
    schema = _schema(node, site[2])
    if schema is None:
        return None
    missing = [name for name in schema.attributes if name not in {a.name for a in node.attribute}]
    if not missing:
        return None
    name = rng.choice(missing)
    want = schema.attributes[name].type
    atype = want if rng.random() < 0.6 else rng.choice([A.INT, A.FLOAT, A.INTS, A.STRING, A.TENSOR])
    a = node.attribute.add(name=name, type=atype)
    _random_value(a, atype, rng)
    return f"{node.op_type} attribute {name!r} added as {A.AttributeType.Name(atype)}"


def _random_value(a, atype, rng):
    if atype == A.INT:
        a.i = rng.choice([-1, 0, 1, 2, 3, 7, -100, 2**40, 99])
    elif atype == A.FLOAT:
        a.f = rng.choice([0.0, -1.0, 1.5, float("nan"), float("inf"), 1e30])
    elif atype == A.STRING:
        a.s = rng.choice([b"", b"NOTSET", b"bogus", b"\xff\xfe", b"linear"])
    elif atype == A.INTS:
        a.ints.extend(rng.choice([-1, 0, 1, 2, 3, 99]) for _ in range(rng.randrange(5)))
    elif atype == A.FLOATS:
        a.floats.extend(rng.random() for _ in range(rng.randrange(4)))
    elif atype == A.STRINGS:
        a.strings.extend(rng.choice([b"a", b"", b"x"]) for _ in range(rng.randrange(3)))
    elif atype == A.TENSOR:
        a.t.CopyFrom(onnx.helper.make_tensor("", rng.choice([T.FLOAT, T.INT64, T.INT32]), [2], [1, 2]))
    elif atype == A.GRAPH:
        a.g.name = "g"


@mutation
def attr_value(m, sites, rng):
    node, a = _attr(sites, rng)
    if a is None or a.type in (A.GRAPH, A.GRAPHS, A.SPARSE_TENSOR, A.SPARSE_TENSORS):
        return None
    if a.type == A.INTS and len(a.ints) and rng.random() < 0.5:
        if rng.random() < 0.5:
            del a.ints[-1]
        else:
            a.ints.append(a.ints[-1])
        return f"{node.op_type}.{a.name} ints -> {list(a.ints)}"
    for f in ("f", "i", "s", "t", "floats", "ints", "strings", "tensors", "tp", "type_protos"):
        a.ClearField(f)
    _random_value(a, a.type, rng)
    return f"{node.op_type}.{a.name} value replaced ({A.AttributeType.Name(a.type)})"


@mutation
def attr_second_field(m, sites, rng):
    node, a = _attr(sites, rng)
    if a is None:
        return None
    choice = rng.random()
    if choice < 0.4:
        a.ref_attr_name = rng.choice(["alpha", a.name, "nope"])
        return f"{node.op_type}.{a.name} ref_attr_name -> {a.ref_attr_name!r}"
    if choice < 0.7:
        a.i = 5
        return f"{node.op_type}.{a.name} i also set"
    a.floats.append(0.5)
    return f"{node.op_type}.{a.name} floats also set"


def _tensor(sites, rng):
    return _pick(rng, sites.tensors)


@mutation
def tensor_dtype(m, sites, rng):
    t = _tensor(sites, rng)
    if t is None:
        return None
    old = t.data_type
    t.data_type = rng.choice(_ELEM_TYPES)
    return f"tensor {t.name!r} data_type {old} -> {t.data_type}"


@mutation
def tensor_dims(m, sites, rng):
    t = _tensor(sites, rng)
    if t is None:
        return None
    old = list(t.dims)
    choice = rng.random()
    if choice < 0.3 and len(t.dims):
        del t.dims[rng.randrange(len(t.dims))]
    elif choice < 0.5:
        t.dims.append(rng.choice([1, 2, 0]))
    elif len(t.dims):
        t.dims[rng.randrange(len(t.dims))] = rng.choice([-1, 0, 1, 3, 1000])
    else:
        t.dims.append(-1)
    return f"tensor {t.name!r} dims {old} -> {list(t.dims)}"


@mutation
def tensor_data(m, sites, rng):
    t = _tensor(sites, rng)
    if t is None:
        return None
    for fd, value in t.ListFields():
        if fd.name == "raw_data":
            t.raw_data = value[:-1] if value and rng.random() < 0.5 else value + b"\0"
            return f"tensor {t.name!r} raw_data {len(value)} -> {len(t.raw_data)} bytes"
        if fd.name.endswith("_data") and fd.name != "external_data":
            field = getattr(t, fd.name)
            if rng.random() < 0.3:      # the data moved to a field of another type
                other = rng.choice(["float_data", "int32_data", "int64_data", "double_data", "uint64_data"])
                if other == fd.name:
                    return None
                values = list(field)
                if other not in ("float_data", "double_data") and any(
                        isinstance(v, float) and not math.isfinite(v) for v in values):
                    return None     # an infinity or NaN has no integer to move to
                t.ClearField(fd.name)
                convert = {"float_data": float, "double_data": float, "uint64_data": lambda v: abs(int(v))}
                getattr(t, other).extend(convert.get(other, int)(v) for v in values if not isinstance(v, bytes))
                return f"tensor {t.name!r} data moved {fd.name} -> {other}"
            if len(field) and rng.random() < 0.5:
                del field[-1]
            elif len(field):
                field.append(field[-1])
            else:
                return None
            return f"tensor {t.name!r} {fd.name} length -> {len(field)}"
    return None


@mutation
def tensor_fields(m, sites, rng):
    t = _tensor(sites, rng)
    if t is None:
        return None
    choice = rng.random()
    if choice < 0.4:
        old = t.name
        t.name = rng.choice(["", _pick(rng, sites.names()) or "x", old + "_"])
        return f"tensor {old!r} renamed {t.name!r}"
    if choice < 0.6:
        t.data_location = T.EXTERNAL
        return f"tensor {t.name!r} data_location EXTERNAL"
    if choice < 0.8:
        t.segment.begin, t.segment.end = 0, 1
        return f"tensor {t.name!r} segment set"
    t.metadata_props.add(key="k", value="v")
    return f"tensor {t.name!r} metadata_props added"


def _vi(sites, rng):
    return _pick(rng, sites.value_infos)


@mutation
def vi_elem_type(m, sites, rng):
    site = _vi(sites, rng)
    if site is None or site[2].type.WhichOneof("value") != "tensor_type":
        return None
    vi = site[2]
    old = vi.type.tensor_type.elem_type
    vi.type.tensor_type.elem_type = rng.choice(_ELEM_TYPES)
    return f"{site[1]} {vi.name!r} elem_type {old} -> {vi.type.tensor_type.elem_type}"


@mutation
def vi_shape(m, sites, rng):
    site = _vi(sites, rng)
    if site is None or site[2].type.WhichOneof("value") != "tensor_type":
        return None
    vi = site[2]
    shape = vi.type.tensor_type.shape
    choice = rng.random()
    if choice < 0.2:
        vi.type.tensor_type.ClearField("shape")
        return f"{site[1]} {vi.name!r} shape cleared"
    if choice < 0.4:
        shape.dim.add().dim_value = rng.choice([1, 3])
        return f"{site[1]} {vi.name!r} dim appended"
    if not len(shape.dim):
        return None
    k = rng.randrange(len(shape.dim))
    if choice < 0.55:
        del shape.dim[k]
        return f"{site[1]} {vi.name!r} dim {k} deleted"
    if choice < 0.75:
        shape.dim[k].dim_value = rng.choice([-2, 0, 5, 1000])
    else:
        shape.dim[k].dim_param = rng.choice(["", "N", "1"])
    return f"{site[1]} {vi.name!r} dim {k} -> {shape.dim[k]}".replace("\n", " ")


@mutation
def vi_kind(m, sites, rng):
    site = _vi(sites, rng)
    if site is None:
        return None
    vi = site[2]
    old = vi.type.WhichOneof("value")
    choice = rng.random()
    inner = onnx.TypeProto()
    inner.CopyFrom(vi.type)
    if choice < 0.25:
        vi.ClearField("type")
    elif choice < 0.5:
        vi.type.ClearField(old) if old else None
        vi.type.sequence_type.elem_type.CopyFrom(inner)
    elif choice < 0.7:
        vi.type.ClearField(old) if old else None
        vi.type.optional_type.elem_type.CopyFrom(inner)
    elif choice < 0.85 and old == "tensor_type":
        tt = onnx.TypeProto.Tensor()
        tt.CopyFrom(vi.type.tensor_type)
        vi.type.ClearField("tensor_type")
        vi.type.sparse_tensor_type.elem_type = tt.elem_type
        vi.type.sparse_tensor_type.shape.CopyFrom(tt.shape)
    else:
        vi.type.ClearField(old) if old else None
        vi.type.map_type.key_type = rng.choice([T.INT64, T.FLOAT, T.STRING, 0])
        vi.type.map_type.value_type.CopyFrom(inner)
    return f"{site[1]} {vi.name!r} type {old} -> {vi.type.WhichOneof('value')}"


@mutation
def vi_entries(m, sites, rng):
    site = _vi(sites, rng)
    if site is None:
        return None
    g, field, vi = site
    entries = getattr(g, field)
    choice = rng.random()
    if choice < 0.35:
        name = vi.name
        entries.remove(vi)
        return f"{field} {name!r} deleted"
    if choice < 0.6:
        entries.add().CopyFrom(vi)
        return f"{field} {vi.name!r} repeated"
    old = vi.name
    vi.name = rng.choice(["", _pick(rng, sites.names()) or "x", old + "_"])
    return f"{field} {old!r} renamed {vi.name!r}"


@mutation
def graph_fields(m, sites, rng):
    g, is_main = _pick(rng, sites.graphs)
    choice = rng.random()
    if choice < 0.3:
        g.name = ""
        return f"{'main' if is_main else 'sub'}graph name cleared"
    if choice < 0.6 and len(g.initializer):
        t = _pick(rng, g.initializer)
        if rng.random() < 0.5:
            g.initializer.remove(t)
            return f"initializer {t.name!r} deleted"
        g.initializer.add().CopyFrom(t)
        return f"initializer {t.name!r} repeated"
    if choice < 0.8 and len(g.initializer):
        t = _pick(rng, g.initializer)
        vi = g.input.add(name=t.name)
        vi.type.tensor_type.elem_type = t.data_type
        return f"initializer {t.name!r} also a graph input"
    g.metadata_props.add(key="k", value="v")
    return "graph metadata_props added"


@mutation
def model_ir_version(m, sites, rng):
    old = m.ir_version
    m.ir_version = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 99, -1])
    return f"ir_version {old} -> {m.ir_version}"


@mutation
def model_opsets(m, sites, rng):
    choice = rng.random()
    if not len(m.opset_import):
        return None
    op = _pick(rng, m.opset_import)
    if choice < 0.45:
        old = op.version
        op.version = rng.choice([0, -1, 1, 5, 7, 9, 11, 13, 15, 17, 19, 21, 22, 23, 24, 99, op.version - 1,
                                 op.version + 1])
        return f"opset {op.domain!r} {old} -> {op.version}"
    if choice < 0.65:
        old = op.domain
        op.domain = rng.choice(_DOMAINS)
        return f"opset domain {old!r} -> {op.domain!r}"
    if choice < 0.85:
        m.opset_import.remove(op)
        return f"opset {op.domain!r} removed"
    m.opset_import.add(domain=rng.choice(_DOMAINS), version=rng.choice([1, 3, 17, 99]))
    return "opset added"


@mutation
def model_fields(m, sites, rng):
    choice = rng.random()
    if choice < 0.4:
        m.metadata_props.add(key=rng.choice(["", "k"]), value="v")
        return "metadata_props added"
    if choice < 0.7:
        m.configuration.add(name="c", num_devices=2)
        return "configuration added"
    m.producer_version = "\u00e9"
    return "producer_version set"


@mutation
def function_fields(m, sites, rng):
    fn = _pick(rng, m.functions)
    if fn is None:
        return None
    choice = rng.random()
    if choice < 0.15:
        fn.name = rng.choice(["", fn.name + "X"])
        return f"function name -> {fn.name!r}"
    if choice < 0.25:
        fn.domain = rng.choice(["", "other", "ai.onnx"])
        return f"function domain -> {fn.domain!r}"
    if choice < 0.45:
        return "function " + (_edit_names(rng, fn.input, sites, "input") or "")
    if choice < 0.65:
        return "function " + (_edit_names(rng, fn.output, sites, "output") or "")
    if choice < 0.8:
        return "function " + (_edit_names(rng, fn.attribute, sites, "attribute") or "")
    if len(fn.opset_import):
        op = _pick(rng, fn.opset_import)
        op.version = rng.choice([1, 6, 13, 18, 99, 0])
        return f"function opset {op.domain!r} -> {op.version}"
    return None


@mutation
def training_fields(m, sites, rng):
    ti = _pick(rng, m.training_info)
    if ti is None:
        return None
    binding = _pick(rng, list(ti.update_binding) + list(ti.initialization_binding))
    if binding is None:
        return None
    if rng.random() < 0.5:
        binding.key = _fresh(rng)
    else:
        binding.value = _fresh(rng)
    return f"binding -> {binding.key!r}: {binding.value!r}"


# ---------------------------------------------------------------------- bases

def bases(n_backend: int, seed: int) -> dict:
    """name -> serialised valid model: the suite's bases, then a seeded
    sample of the backend models onnx accepts (full_check)."""
    from check_bases import base_bytes, base_names  # noqa: PLC0415
    from backend_data import all_cases  # noqa: PLC0415
    found = {name: base_bytes(name) for name in base_names()}
    cases = [c for c in all_cases() if c.model_path.exists()]
    random.Random(seed).shuffle(cases)
    for case in cases:
        if sum(1 for k in found if "/" in k) >= n_backend:
            break
        data = case.model_path.read_bytes()
        if len(data) > 200_000:
            continue            # small models keep the run short
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
        except Exception:  # noqa: BLE001 - not a valid base
            continue
        found[case.id] = data
    return found


def mutate(data: bytes, seed: int, names=None):
    """(mutant bytes, mutation name, description) or None when the mutation
    found nothing to change; the same (data, seed) gives the same mutant."""
    rng = random.Random(seed)
    m = onnx.ModelProto()
    m.ParseFromString(data)
    sites = Sites(m)
    name = rng.choice(names or sorted(MUTATIONS))
    what = MUTATIONS[name](m, sites, rng)
    if what is None:
        return None
    out = m.SerializeToString()
    return None if out == data else (out, name, what)


# -------------------------------------------------------------------- the run

def _errors(diags) -> list:
    return [d for d in diags if d.severity == ERROR]


def _verdict(diags) -> list:
    return sorted((d.code, d.path, str(d.severity), d.message) for d in diags)


def app_verdict(path) -> str:
    """What the app says of a file our file check calls clean."""
    try:
        ir = core.load(path)
        ir.graph        # built on first use: the app's open builds it
    except Exception as e:  # noqa: BLE001 - the app refuses to open it: not "clean"
        return f"refused at load ({type(e).__name__})"
    errors = _errors(check_file(path, ir_model=ir))
    return f"error with inference ({errors[0].code})" if errors else "clean"


def run(args) -> int:
    started = time.perf_counter()
    models = bases(args.backend, args.seed)
    names = sorted(models)
    oracle = Oracle()
    gaps = collections.defaultdict(list)     # class -> [(base, seed, description, onnx message, app)]
    parity = []
    stats = collections.Counter()
    only = [args.kind] if args.kind else None
    record = open(args.record, "w") if args.record else None    # noqa: SIM115 - closed below
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "mutant.onnx"
        seed = args.seed * 1_000_003
        while stats["mutants"] < args.mutants:
            seed += 1
            base = names[seed % len(names)]
            made = mutate(models[base], seed, only)
            if made is None:
                continue
            data, kind, what = made
            path.write_bytes(data)
            stats["mutants"] += 1
            stats[f"kind:{kind}"] += 1
            theirs = oracle.verdict(path)
            try:
                ours = check(path)
            except Exception as e:  # noqa: BLE001 - the checker must never raise; a class of its own
                gaps[(kind, f"OUR CHECKER RAISED {type(e).__name__}")].append((base, seed, what, str(e), "-"))
                continue
            our_errors = _errors(ours)
            if record is not None:
                record.write(json.dumps({"base": base, "seed": seed, "kind": kind, "what": what,
                                         "onnx": theirs, "ours": sorted({d.code for d in our_errors})}) + "\n")
            stats["onnx rejects"] += theirs is not None
            stats["we reject"] += bool(our_errors)
            if theirs is not None and not our_errors:
                gaps[(kind, message_class(theirs))].append((base, seed, what, theirs, app_verdict(path)))
            elif theirs is None and our_errors:
                stats["we reject, onnx accepts"] += 1
            if not args.no_parity:
                try:
                    loaded = core.load(path)
                    loaded.graph    # built on first use: the app's open builds it
                except Exception as e:  # noqa: BLE001 - refused at open: a disagreement, no IR to compare
                    stats["refused at load"] += 1
                    parity.append((base, seed, kind, f"{what}; refused at load: {type(e).__name__}: {e}"))
                    continue
                try:
                    same = _verdict(check(loaded, use_inference=False)) == _verdict(ours)
                except Exception as e:  # noqa: BLE001 - the app's check raised: a disagreement too
                    same, what = False, f"{what}; check(IR) raised {type(e).__name__}: {e}"
                if not same:
                    parity.append((base, seed, kind, what))
    oracle.close()
    if record is not None:
        record.close()
    report(gaps, parity, stats, time.perf_counter() - started, len(models), args)
    return 0


def report(gaps, parity, stats, seconds, n_bases, args) -> None:
    n_gaps = sum(len(v) for v in gaps.values())
    app_clean = sum(1 for items in gaps.values() for it in items if it[4] == "clean")
    print(f"{stats['mutants']} mutants of {n_bases} bases (seed {args.seed}) in {seconds:.0f} s: "
          f"onnx rejects {stats['onnx rejects']}, we reject {stats['we reject']}, "
          f"we reject and onnx accepts {stats['we reject, onnx accepts']}, "
          f"onnx rejects and we give no error {n_gaps} in {len(gaps)} classes "
          f"({app_clean} of them clean for the app too)")
    by_kind = collections.Counter()
    for (kind, _), items in gaps.items():
        by_kind[kind] += len(items)
    print("\nmutants per kind (gaps): " + ", ".join(
        f"{k[5:]} {v} ({by_kind.get(k[5:], 0)})" for k, v in sorted(stats.items()) if k.startswith("kind:")))
    print(f"\n{'count':>5}  {'app':>5}  class (mutation | onnx's message)\n{'':>14}reproducer")
    for (kind, cls), items in sorted(gaps.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        base, seed, what, message, app = items[0]
        caught = sum(1 for it in items if it[4] != "clean")
        print(f"{len(items):5d}  {caught:5d}  {kind} | {cls}")
        print(f"{'':14}--replay {base}:{seed}  {what}  [app: {app}]")
        if args.show and args.show in (kind, cls):
            for it in items:
                print(f"{'':18}{it[0]}:{it[1]}  {it[2]}  [{it[4]}]  {it[3].splitlines()[0][:200]}")
    print("\n'app': of those, how many the app still flags (refused at load, or an error once inference runs)")
    if parity:
        print(f"\ncheck(core.load(path), use_inference=False) differs from check(path), or the load refused "
              f"the file ({stats['refused at load']}), on {len(parity)} mutants:")
        for base, seed, kind, what in parity[:20]:
            print(f"  --replay {base}:{seed}  {kind}: {what}")
    elif not args.no_parity:
        print("\ncheck(core.load(path), use_inference=False) == check(path) on every mutant; the app opens each")


def replay(spec: str, args) -> int:
    base, seed = spec.rsplit(":", 1)
    if "/" in base:
        from backend_data import all_cases  # noqa: PLC0415
        data = next(c for c in all_cases() if c.id == base).model_path.read_bytes()
    else:
        from check_bases import base_bytes  # noqa: PLC0415
        data = base_bytes(base)
    made = mutate(data, int(seed), [args.kind] if args.kind else None)
    if made is None:
        print("the mutation changes nothing on this base")
        return 1
    out = pathlib.Path(args.out)
    out.write_bytes(made[0])
    print(f"{made[1]}: {made[2]} -> {out}")
    theirs = Oracle()
    print("onnx:", theirs.verdict(out.resolve()))
    theirs.close()
    for d in check(out):
        print("ours:", d)
    print("app:", app_verdict(out))
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mutants", type=int, default=3000)
    p.add_argument("--backend", type=int, default=120, help="backend models sampled as bases")
    p.add_argument("--kind", help="only this mutation")
    p.add_argument("--show", help="list every gap of this mutation or class")
    p.add_argument("--no-parity", action="store_true", help="skip the app-path comparison")
    p.add_argument("--record", metavar="JSONL", help="write each mutant's verdicts (to compare two versions)")
    p.add_argument("--replay", metavar="BASE:SEED", help="write one mutant (to --out) and show both verdicts")
    p.add_argument("--out", default="mutant.onnx")
    args = p.parse_args(argv)
    if args.replay:
        return replay(args.replay, args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
