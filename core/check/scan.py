"""The lean pass of a full check: every node is read out of protobuf once,
and a node the cheap tests clear never meets the rule code.

Reading a protobuf field from Python costs about as much as a dict lookup
on the result, so the pass reads each node's inputs and outputs once and
asks the rule modules' fast forms (`node_rules.node_fields_clean` over the
node's fields and attributes, with `attr_rules.lone_value` and
`tensor_rules.tensor_clean`; `node_rules.check_arity` and `type_violations`
for the signature), which judge with set and dict lookups. This module
holds no rule of its own. Anything a fast form cannot clear makes the node
a *suspect*; suspects go through `node_rules` (which builds paths and
messages), so every finding is still reported exactly as the rules word
it. A false alarm here only costs time; a node cleared here must be one
the rules would not report. `tests/check/test_check_scan.py`
compares the pass with the rules on every model it can find.

A node of a signature without subgraph attributes is judged once per run
per its bytes after the op_type field, and its whole outcome (verdict,
derived output types, arity and type constraints) once per those bytes
and its actuals' element types (`Context.memo`). Facts that depend on
nothing but a signature and element types (arity and type constraints,
derived output types) are kept for the process.
"""
from __future__ import annotations

import re

from .. import schemas
from ..ir.text import as_text
from ..proto import onnx_pb2 as pb
from ..serde.wire import encode_varint
from ..diagnostics import Collector
from .attr_rules import IMPLIED_BY_FIELD
from .elem_types import ATTRIBUTE_TYPED, output_types
from .node_rules import check_arity, node_fields_clean, type_violations

A = pb.AttributeProto
# Attribute types other than subgraphs (whose checks depend on the
# enclosing scope): a node of a signature declaring only these is judged by
# its bytes alone, so it is judged once per its bytes.
_KEYABLE_TYPES = frozenset(implied for implied in IMPLIED_BY_FIELD.values() if implied not in (A.GRAPH, A.GRAPHS))
# Nodes whose attributes are longer (tree ensembles, tables, weights held
# by Constants) are judged each time: they rarely repeat, and remembering
# them costs memory for nothing.
MAX_REMEMBERED_BYTES = 512
# Keying costs a serialisation, which pays only when nodes repeat (small
# Constants, Unsqueeze axes do; Constants holding named weights never do).
# Judging a node costs about four times what keying it does, so keying
# pays while at least one node in five repeats: a signature starts a run
# with _KEY_CREDIT credits, a repeat earns _KEY_REFUND, a node met for the
# first time (or too long to key) spends one. With none left, only one
# node in _SAMPLE_EVERY is keyed, until one of them repeats (a model's
# first Constants are often its weights; repeats come later).
_KEY_CREDIT = 16
_KEY_REFUND = 4
_KEY_CREDIT_MAX = 1024
_SAMPLE_EVERY = 16
_OP_TAGS: dict = {}


def _op_tag(op: str) -> bytes:
    """The bytes that open a NodeProto's op_type field holding `op`."""
    raw = op.encode()
    tag = _OP_TAGS[op] = _key_tag(_NF["op_type"].number) + encode_varint(len(raw)) + raw
    return tag


def _key_tag(number: int) -> bytes:
    return encode_varint((number << 3) | 2)


def _keyable(schema) -> bool:
    """Whether every attribute `schema` declares is of a type its nodes'
    bytes hold in full, so the bytes can key the node's verdict."""
    return _FIELDS_IN_ORDER and all(spec.type in _KEYABLE_TYPES for spec in schema.attributes.values())


_NF = pb.NodeProto.DESCRIPTOR.fields_by_name


def _fields_in_order() -> bool:
    """Whether protobuf writes a NodeProto's fields in field-number order,
    so that the node's name and actuals come before its op_type and all it
    is judged by after (upb does; checked once, not assumed)."""
    probe = pb.NodeProto(input=["i"], output=["o"], name="n", op_type="Op", doc_string="d", domain="x",
                         overload="v")
    probe.device_configurations.add()
    probe.metadata_props.add(key="k")
    probe.attribute.add(name="a", type=A.INT, i=1)
    data = probe.SerializeToString()
    numbers, i = [], 0
    while i < len(data):
        numbers.append(data[i] >> 3)
        i += 2 + data[i + 1]
    return numbers == sorted(numbers) and data.find(_key_tag(_NF["op_type"].number)) < data.find(
        _key_tag(_NF["attribute"].number))


_FIELDS_IN_ORDER = _fields_in_order()

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_UNSEEN = object()


def odd_names(names: list) -> list:
    """The names that are not C identifiers, in order. For ASCII text,
    str.isidentifier is exactly [A-Za-z_][A-Za-z0-9_]*, at C speed."""
    try:
        return [n for n in names if not (n.isascii() and n.isidentifier())]
    except AttributeError:      # bytes: invalid UTF-8 in a damaged file
        return [n for n in names if not _IDENTIFIER.match(as_text(n))]


def is_odd(name) -> bool:
    """odd_names' test for one name."""
    try:
        return not (name.isascii() and name.isidentifier())
    except AttributeError:      # bytes: invalid UTF-8 in a damaged file
        return not _IDENTIFIER.match(as_text(name))


def odd_summary(names: list) -> tuple:
    """What the summary findings over a graph's names say: (how many are
    not C identifiers, the first three of them, those that are not valid
    UTF-8)."""
    odd = odd_names(names)
    return len(odd), odd[:3], [n for n in odd if n.__class__ is bytes]


def _signature_clean(schema, ins, outs, in_types, out_types) -> bool:
    """Arity and type constraints: True when node_rules finds nothing. Both
    depend only on what (in_types, out_types) hold: counts, which actuals
    are empty (""), element types."""
    found = Collector()
    check_arity(ins, outs, schema, "", found)
    return not found.items and next(type_violations(schema, in_types, out_types), None) is None


def scan_graph(nodes, scope, ctx, names: list):
    """The lean pass over a graph's `nodes` (outside function bodies).

    Adds every node output to scope.defs (and to `names`, in order) and
    derives element types into scope.inferred, as graph_rules.infer_node
    does one node at a time. Returns None as soon as a name is defined twice
    or used before its definition (graph_rules' detailed passes then say
    where); otherwise what is left to check, in node order: (index, None)
    for a node the rules must see, (index, [(attribute, type, graph(s))])
    for a cleared node whose subgraphs are still to be checked."""
    types = scope.types
    types_get = types.get
    inferred = scope.inferred
    inferred_get = inferred.get
    defs = scope.defs
    # The enclosing scopes as (defs, limit): visibility checked inline.
    chain = []
    s = scope.parent
    while s is not None:
        chain.append((s.defs, s.limit))
        s = s.parent
    lookup = ctx.type_lookup
    gpath = scope.graph_path
    schema_cache = ctx.schema_cache
    schema_of = ctx.schema_of
    memo = ctx.memo
    if "outcomes" not in memo:
        memo.update(nodes={}, outcomes={}, credit={})
        memo.setdefault("defined", set())
    nodes_judged, outcomes, credit_of = memo["nodes"], memo["outcomes"], memo["credit"]
    # Every name the graphs checked so far define (graph_rules adds each
    # graph's): a superset of what the enclosing graphs define.
    defined = memo["defined"] if chain else ()
    ir = ctx.ir_version

    suspects = []
    for i, node in enumerate(nodes):
        ins = node.input[:]
        outs = node.output[:]
        if ins:
            for name in ins:
                if name and name not in defs:
                    for outer, limit in chain:
                        pos = outer.get(name)
                        if pos is not None and pos < limit:
                            break
                    else:
                        return None
            # Element types of the inputs as the rules see them at position i.
            if len(ins) == 1:
                n = ins[0]
                in_types = ((types_get(n) or inferred_get(n) or _type_elsewhere(n, scope, ctx)) if n else "",)
            else:
                in_types = tuple([(types_get(n) or inferred_get(n) or _type_elsewhere(n, scope, ctx)) if n else ""
                                  for n in ins])
        else:
            in_types = ()
        for name in outs:
            if name:
                if name in defs:
                    return None
                if name in defined:     # else no enclosing graph defines it
                    for outer, limit in chain:
                        pos = outer.get(name)
                        if pos is not None and pos < limit:
                            return None
                defs[name] = i
        names += outs
        op = node.op_type
        domain = node.domain
        schema = schema_cache.get((domain, op), _UNSEEN)
        if schema is _UNSEEN:
            schema = schema_of(domain, op)
        if schema is None:
            suspects.append((i, None))      # custom op, function call, unknown op: the rules say which
            continue
        # Outputs as the rules see them at the node's own position (declared,
        # else from type_lookup; derived ones only count for later nodes).
        if lookup is None:
            out_types = ((types_get(outs[0]) if outs[0] else ""),) if len(outs) == 1 else \
                tuple([types_get(o) if o else "" for o in outs])
        else:
            out_types = tuple([(types_get(o) or _looked_up(o, gpath, lookup)) if o else "" for o in outs])
        outcome = key = None
        if schema.deprecated or (not ins and not outs):
            verdict = False
        else:
            verdict = None
            credit = credit_of.get(schema, _UNSEEN)
            if credit is _UNSEEN:
                credit = credit_of[schema] = _KEY_CREDIT if _keyable(schema) else None
            if credit is not None and credit < 0:
                credit_of[schema] = credit + 1      # not keyed: counting down to the next sample
            elif credit is not None:
                # Everything the node judgement reads (op_type, attributes,
                # domain, the IR-versioned fields) comes after the op_type
                # field in the node's bytes: one serialisation keys it, and
                # with the actuals' types, the node's whole outcome.
                data = node.SerializeToString()
                start = data.find(_OP_TAGS.get(op) or _op_tag(op))
                repeat = False
                if start >= 0 and len(data) - start <= MAX_REMEMBERED_BYTES:
                    tail = data[start:]
                    key = (tail, in_types, out_types)
                    outcome = outcomes.get(key)
                    if outcome is None:
                        verdict = nodes_judged.get(tail)
                        if verdict is None:
                            verdict = nodes_judged[tail] = node_fields_clean(node, op, domain, schema, ir)
                        else:
                            repeat = True
                    else:
                        repeat = True
                if not repeat:
                    credit_of[schema] = credit - 1 if credit > 1 else -_SAMPLE_EVERY
                elif credit < _KEY_CREDIT_MAX:
                    credit_of[schema] = credit + _KEY_REFUND
            if outcome is None and verdict is None:
                verdict = node_fields_clean(node, op, domain, schema, ir)
        if outcome is None:
            outcome = _outcome(node, op, schema, ins, outs, in_types, out_types, verdict)
            if key is not None:
                outcomes[key] = outcome
        derived_outs, clean = outcome
        # Derived types of undeclared outputs (suspects too: later nodes read them).
        if len(outs) == 1:
            t = derived_outs[0]
            if t is not None:
                o = outs[0]
                if o and o not in types:
                    inferred[o] = t
        else:
            for o, t in zip(outs, derived_outs):
                if t is not None and o and o not in types:
                    inferred[o] = t
        if clean is not True or node.name.__class__ is bytes:
            # A name that is not UTF-8 (a damaged file) is node_rules' to report.
            suspects.append((i, None if node.name.__class__ is bytes else clean or None))
    return suspects


def _outcome(node, op, schema, ins, outs, in_types, out_types, verdict) -> tuple:
    """(derived output types, True | False | graphs still to check) for a
    node with the judgement `verdict` (node_rules.node_fields_clean); False: the rules must
    see the node."""
    if verdict.__class__ is str:
        # A Constant's output type, from the tensor the judgement read.
        derived_outs = (verdict,) if len(outs) == 1 else (verdict,) + (None,) * (len(outs) - 1)
    else:
        derived_outs = _derived(node, op, schema, ins, outs, in_types)
    if verdict and op in ATTRIBUTE_TYPED and out_types and out_types[0] and derived_outs[0] \
            and out_types[0] != derived_outs[0]:
        verdict = False     # declared otherwise than the attribute says: the rules word it
    if not verdict:
        return derived_outs, False
    sig = (schema, in_types, out_types)
    clean = _SIGNATURE_CLEAN.get(sig)
    if clean is None:
        clean = _keep(_SIGNATURE_CLEAN, sig, _signature_clean(schema, ins, outs, in_types, out_types))
    if clean:
        clean = verdict if verdict.__class__ is list else True
    return derived_outs, clean


def _derived(node, op, schema, ins, outs, in_types) -> tuple:
    """elem_types.output_types, remembered for signatures whose output
    types depend on the input types alone."""
    if op in ATTRIBUTE_TYPED:
        return tuple(output_types(node, schema, dict(zip(ins, in_types)).get))
    key = (schema, len(outs), in_types)
    found = _DERIVED.get(key)
    if found is None:
        found = _keep(_DERIVED, key, tuple(output_types(node, schema, dict(zip(ins, in_types)).get)))
    return found


# Facts that depend on nothing but an operator signature and the element
# types its actuals have, kept for the process: output types derived from
# (signature, output count, input types) and whether arity and type
# constraints hold for (signature, input types, output types). Verdicts on
# a model's content are never kept past its check.
_DERIVED: dict = {}
_SIGNATURE_CLEAN: dict = {}
_MAX_FACTS = 1 << 16


def _keep(facts: dict, key, value):
    # Checks may run on several threads: a fact lost to a concurrent clear()
    # is only computed again (every value is a pure function of its key).
    if len(facts) >= _MAX_FACTS:
        facts.clear()
    facts[key] = value
    return value


def _looked_up(name, gpath, lookup):
    t = lookup(str(gpath), name)
    return schemas.type_string(t) if t is not None else None


def _type_elsewhere(name, scope, ctx):
    """Scope.type_str for a defined name with neither a declared nor a
    derived type in this graph (in scan_graph only earlier nodes' outputs
    are in defs yet: a later one would have ended the pass)."""
    if scope.parent is not None and name not in scope.defs:
        return scope.type_str(name, ctx)
    lookup = ctx.type_lookup
    return None if lookup is None else _looked_up(name, scope.graph_path, lookup)

