"""Rules for one node: opset binding, arity, attributes against the operator
signature, and element types against type constraints. Subgraphs held in
attributes are checked by `graph_rules` through the `check_subgraph` hook."""
from __future__ import annotations

from .. import schemas
from ..ir.dtypes import type_name
from ..ir.text import as_text
from ..proto import onnx_pb2 as pb
from . import paths
from .attr_rules import TYPE_NAMES, check_attribute, lone_value
from .context import bind_cached
from .elem_types import ATTRIBUTE_TYPED, type_from_attributes
from .operator_rules import RULED, check_operator, given_count, operator_clean
from .tensor_rules import check_sparse, check_tensor, tensor_clean
from .text_rules import damaged_text, node_labels

A = pb.AttributeProto


# Operators onnxruntime adds to the default domain outside the standard (at
# any opset); models saved after its graph optimizations contain them.
_ONNXRUNTIME_OWN_DEFAULT_DOMAIN_OPS = frozenset({"LayerNormalization", "SimplifiedLayerNormalization"})

# The experimental operators onnxruntime still runs (and our executor with it).
_RUN_BY_ONNXRUNTIME = frozenset({"Affine", "Crop", "DynamicSlice", "ImageScaler", "ParametricSoftplus", "Scale",
                                 "ScaledTanh"})


def _experimental_message(op: str) -> str:
    runs = ("onnxruntime and onnxstudio's executor still run it, other runtimes may not"
            if op in _RUN_BY_ONNXRUNTIME else "onnxruntime does not run it either")
    return (f"{op} is one of early ONNX's experimental operators, dropped from the standard without a "
            f"signature: onnx's checker lets it pass unchecked, and so does this one; {runs}")


# Value fields holding something that has checks of its own.
_PAYLOAD_FIELDS = frozenset({"t", "tensors", "sparse_tensor", "sparse_tensors", "g", "graphs"})
# Attribute types node_fields_clean judges: plain values by their fields,
# tensors by tensor_clean, graphs by handing them back (their checks depend
# on the enclosing scope). Sparse tensors, lists of tensors and type protos
# go to the rules.
_PLAIN, _TENSOR, _GRAPH = 1, 2, 3
_KIND = {A.FLOAT: _PLAIN, A.INT: _PLAIN, A.STRING: _PLAIN, A.FLOATS: _PLAIN, A.INTS: _PLAIN,
         A.STRINGS: _PLAIN, A.TENSOR: _TENSOR, A.GRAPH: _GRAPH, A.GRAPHS: _GRAPH}


# Groups of attributes of which a node gives exactly one, by op: (domain,
# groups). Only the members the bound signature declares count, and a group
# with fewer than two of them is the signature's own required attribute.
_ONE_OF = {
    "Constant": ("", (("value", "sparse_value", "value_float", "value_floats", "value_int", "value_ints",
                       "value_string", "value_strings"),)),
    "LabelEncoder": ("ai.onnx.ml", (("keys_tensor", "keys_strings", "keys_int64s", "keys_floats"),
                                    ("values_tensor", "values_strings", "values_int64s", "values_floats"))),
}
_GROUPS: dict = {}


def one_of_groups(schema) -> tuple:
    """The groups of `schema`'s attributes of which a node gives exactly one."""
    found = _GROUPS.get(schema)
    if found is None:
        domain, groups = _ONE_OF.get(schema.name, (None, ()))
        found = tuple(declared for declared in ([n for n in g if n in schema.attributes] for g in groups)
                      if len(declared) > 1) if domain == schema.domain else ()
        _GROUPS[schema] = found
    return found


def check_node(node: pb.NodeProto, path: str, scope, ctx, out, check_subgraph) -> None:
    if not node.op_type:
        out.add("node.op-type-missing", path, "the node has no op_type")
    damaged_text(path, node_labels(node), out)
    if not len(node.input) and not len(node.output):
        out.add("node.no-io", path, "the node has neither inputs nor outputs")
    if ctx.ir_version and ctx.ir_version < 10 and (node.overload or len(node.metadata_props)):
        out.add("model.feature-too-new", path,
                f"overload / metadata_props on nodes need IR version 10; the model declares {ctx.ir_version}")
    if ctx.ir_version and ctx.ir_version < 11 and len(node.device_configurations):
        out.add("model.feature-too-new", path,
                f"device_configurations need IR version 11; the model declares {ctx.ir_version}")
    schema = _bind(node, path, ctx, out, scope)
    # One pass over the attributes: the attribute on its own, what it holds,
    # and (when the node binds to a signature) what the operator expects.
    spec_of = schema.attributes if schema is not None else None
    seen = set()
    for attr in node.attribute:
        name = attr.name
        apath = paths.Lazy(paths.attribute, path, name)
        if name in seen:
            out.add("attr.duplicate", apath, f"attribute {paths.shown(name)} is given more than once; "
                    "readers use the last: remove it, then add it back with the value it should have")
        seen.add(name)
        fields = check_attribute(attr, apath, ctx, out)
        for fname, _ in fields:
            if fname in _PAYLOAD_FIELDS:
                _check_attribute_payload(attr, apath, scope, ctx, out, check_subgraph)
                break
        if spec_of is None:
            continue
        spec = spec_of.get(name)
        if spec is None:
            if name:
                known = ", ".join(sorted(spec_of)) or "none"
                out.add("attr.unknown", apath, f"{schema.key} has no attribute {paths.shown(name)} (it has: {known})")
            continue
        declared = attr.type or (fields[0][1] if len(fields) == 1 else 0)
        if spec.type and declared and declared != spec.type:
            out.add("attr.wrong-type", apath,
                    f"{paths.shown(name)} must be {TYPE_NAMES.get(spec.type, spec.type)}, "
                    f"not {TYPE_NAMES.get(declared, declared)}")
    if schema is None:
        return
    for name in schema.required_attributes:
        if name not in seen:
            out.add("attr.required-missing", path, f"{schema.key} requires attribute {name!r}")
    for group in one_of_groups(schema) if node.op_type in _ONE_OF else ():
        given = [name for name in group if name in seen]
        if len(given) != 1:
            out.add("attr.one-of", path, f"{schema.key} takes exactly one of {', '.join(group)}; the node gives "
                    + (" and ".join(given) or "none"))
    check_arity(node.input, node.output, schema, path, out)
    check_operator(node, schema, path, out, scope, ctx)
    _check_types(node, schema, path, scope, ctx, out)


def node_fields_clean(node, op, domain, schema, ir):
    """check_node's rules on the node's own fields and attributes in their
    fast form, for the lean pass (scan.py), which clears a node only when
    this says the rules find nothing there: no field newer than the IR
    version, then _attributes_clean. A change to check_node (or to
    check_attribute, lone_value's rules) changes this too;
    test_check_scan.py holds the two equal on every model it finds."""
    if 0 < ir < 11 and (len(node.device_configurations) or (ir < 10 and (node.overload or len(node.metadata_props)))):
        return False
    verdict = _attributes_clean(node.attribute, op, domain, schema, ir)
    if verdict and op in RULED and not operator_clean(node, op, schema,
                                                       verdict if verdict.__class__ is list else None):
        return False
    return verdict


def _attributes_clean(attrs, op, domain, schema, ir):
    """False when the rules may find something in the attributes; otherwise
    True, except for
      - a node holding graphs: [(attribute name, type, graph or graphs)],
        whose checks are all that is left to do;
      - a Constant / ConstantOfShape whose only attribute is a "value"
        tensor: that tensor's type string (its output type)."""
    spec_of = schema.attributes
    seen = None
    value_type = None
    graphs = None
    for a in attrs:
        name = a.name
        spec = spec_of.get(name)
        atype = a.type
        if spec is None or not atype or (spec.type and atype != spec.type):
            return False
        if seen is None:
            seen = {name}
        elif name in seen:
            return False
        else:
            seen.add(name)
        kind = _KIND.get(atype)
        if kind is _PLAIN:
            if lone_value(a, atype) is None:
                return False
        elif kind is _TENSOR:
            value = lone_value(a, atype)
            if value is None or value is True:
                return False
            dtype = tensor_clean(value, ir)
            if not dtype:
                return False
            if name == "value" and len(seen) == 1:
                value_type = _tensor_type(dtype)
        elif kind is _GRAPH:
            value = lone_value(a, atype)
            if value is None:
                return False
            if value is not True:
                if graphs is None:
                    graphs = []
                graphs.append((name, atype, value))
        else:
            return False
    for name in schema.required_attributes:
        if seen is None or name not in seen:
            return False
    if op in _ONE_OF:
        if op == "Constant":
            # Every attribute a Constant declares is one of its values.
            if seen is None or len(seen) != 1:
                return False
        else:
            for group in one_of_groups(schema):
                if seen is None or sum(1 for name in group if name in seen) != 1:
                    return False
    if graphs is not None:
        return graphs
    if value_type is None or len(seen) != 1 or op not in ("Constant", "ConstantOfShape") \
            or domain not in ("", "ai.onnx"):
        return True
    return value_type


_TENSOR_TYPES: dict = {}


def _tensor_type(dtype: int) -> str:
    t = _TENSOR_TYPES.get(dtype)
    if t is None:
        t = _TENSOR_TYPES[dtype] = f"tensor({type_name(dtype)})"
    return t


def _bind(node, path, ctx, out, scope=None):
    """The node's OpSchema, or None after saying why (or after checking a
    call to a model-local function: its input types against the body's
    operators when `scope` gives them)."""
    if not node.op_type:
        return None
    schema = ctx.schema_for(node)
    if schema is not None and not schema.deprecated:
        return schema        # the common case; the rest says why there is none
    domain = schemas.canonical_domain(node.domain)
    version = ctx.version_of(domain)
    if version is None:
        out.add("node.domain-not-imported", path,
                f"domain {paths.shown(node.domain or 'ai.onnx')} is not imported; add it to opset_import")
        return None
    if domain not in schemas.KNOWN_DOMAINS:
        fn = ctx.functions.get((node.domain, node.op_type, node.overload))
        if fn is not None:
            _check_function_call(node, fn, path, out, scope, ctx)
        else:
            out.add("node.custom-op", path,
                    f"{as_text(node.op_type)} of domain {paths.shown(node.domain)} has no known signature; "
                    "not checked")
        return None
    schema = bind_cached(domain, node.op_type, version)
    if schema is None:
        fn = ctx.functions.get((node.domain, node.op_type, node.overload))
        if fn is not None:
            _check_function_call(node, fn, path, out, scope, ctx)
            return None
        if domain == "" and node.op_type in schemas.EXPERIMENTAL_OPS:
            out.add("node.experimental-op", path, _experimental_message(node.op_type))
            return None
        code = "node.op-too-new" if schemas.versions(domain, node.op_type) else "node.unknown-op"
        message = schemas.why_unbound(domain, as_text(node.op_type), ctx.opsets)
        if domain == "" and node.op_type in _ONNXRUNTIME_OWN_DEFAULT_DOMAIN_OPS:
            message += (f"; onnxruntime registers a {node.op_type} of its own here and its optimizer writes it, "
                        "so onnxruntime (and onnxstudio's executor) run the model, other runtimes may not")
        out.add(code, path, message)
        return None
    if schema.deprecated:
        out.add("node.deprecated-op", path,
                f"{node.op_type} is deprecated from opset {schema.since_version}; "
                f"the model imports {version} (see {schema.doc_url})")
        return None
    return schema


def _check_attribute_payload(attr, apath, scope, ctx, out, check_subgraph) -> None:
    if attr.HasField("t"):
        check_tensor(attr.t, apath, ctx, out)
    for k, t in enumerate(attr.tensors):
        check_tensor(t, f"{apath}[{k}]", ctx, out)
    if attr.HasField("sparse_tensor"):
        check_sparse(attr.sparse_tensor, apath, ctx, out)
    for k, sp in enumerate(attr.sparse_tensors):
        check_sparse(sp, f"{apath}[{k}]", ctx, out)
    if attr.HasField("g"):
        check_subgraph(attr.g, apath, scope)
    for k, g in enumerate(attr.graphs):
        check_subgraph(g, f"{apath}[{k}]", scope)


def _count_message(what, n, lo, hi, op) -> str:
    if hi == schemas.UNBOUNDED:
        want = f"at least {lo}"
    elif lo == hi:
        want = f"exactly {lo}"
    else:
        want = f"{lo} to {hi}"
    return f"{op} takes {want} {what}s; the node has {n}"


def check_arity(inputs, outputs, schema, path, out) -> None:
    """Counts and empty actuals of a node's `inputs` / `outputs` (names)."""
    for what, actuals, formals, lo, hi, code, at in (
        ("input", inputs, schema.inputs, schema.min_input, schema.max_input, "node.input-count", paths.node_input),
        ("output", outputs, schema.outputs, schema.min_output, schema.max_output, "node.output-count",
         paths.node_output),
    ):
        n = len(actuals)
        if n < lo or (hi != schemas.UNBOUNDED and n > hi):
            out.add(code, path, _count_message(what, n, lo, hi, schema.key))
        elif "" not in actuals and not (formals and formals[-1].is_variadic):
            continue    # the common case: counts fit and nothing is left out
        variadic_count = 0
        for i, name in enumerate(actuals):
            formal = formals[i] if i < len(formals) else (formals[-1] if formals and formals[-1].is_variadic else None)
            if formal is None:
                break
            if formal.is_variadic:
                variadic_count += 1
            if not name and formal.option == "single":
                out.add("node.required-input-empty", at(path, i, name),
                        f"{what} {formal.name!r} of {schema.key} is required but given as empty")
            elif not name and formal.is_variadic and what == "input":
                # Every value of a variadic input is one the operator reads:
                # onnx's inference and onnxruntime refuse an empty one (Sum
                # with an empty middle input crashed onnxruntime 1.23).
                out.add("node.required-input-empty", at(path, i, name),
                        f"{what} {i} of {schema.key} is one of its {formal.name!r} values, each required, "
                        f"but given as empty: remove it or name a value")
        last = formals[-1] if formals else None
        if last is not None and last.is_variadic and len(formals) <= n + 1 and variadic_count < last.min_arity:
            out.add("node.variadic-arity", path,
                    f"{what} {last.name!r} of {schema.key} needs at least {last.min_arity} values; "
                    f"the node gives {variadic_count}")
    if schema.name == "BatchNormalization" and schema.since_version >= 14 and not schema.domain:
        # Y alone, or Y with the running mean and variance (training_mode 1): never two.
        if given_count(outputs) == 2:
            out.add("node.output-count", path, f"{schema.key} gives 1 output, or 3 with training_mode 1; "
                    "the node names 2: add the running variance or drop the running mean")
    if schema.name == "Resize" and schema.since_version >= 11 and not schema.domain:
        # Resize's output size comes from scales or from sizes. Both named
        # is no fault by itself: an empty tensor stands for "not given"
        # (opsets 11-12 require a scales input beside sizes); two lists that
        # both hold entries are inference's finding, which knows their lengths.
        if not any(len(inputs) > i and inputs[i] for i in (2, 3)):
            out.add("node.inputs-exclusive", path, f"{schema.key} takes either scales or sizes; the node gives "
                    "neither: give one of them")


def type_violations(schema, in_types, out_types):
    """The type-constraint findings for actuals of these element types (""
    for an empty actual, None for an unknown type), in order, each as
    (code, "input" | "output", index, formal, type, type parameter, prior):
    prior is None for a type outside the constraint, else the (type,
    side, index) of the actual that bound the parameter first. One
    implementation for the rules, which word each one, and for scan.py,
    which only asks whether there is any."""
    bound = {}   # type parameter -> (type string, side, index)
    constraints = schema.type_constraints
    allowed_types = schema.allowed_types
    for what, types, formals in (("input", in_types, schema.inputs), ("output", out_types, schema.outputs)):
        n_formals = len(formals)
        variadic_tail = formals[-1] if n_formals and formals[-1].is_variadic else None
        for i, actual in enumerate(types):
            if actual == "":
                continue
            formal = formals[i] if i < n_formals else variadic_tail
            if formal is None:
                break
            if actual is None:
                continue
            param = formal.type_str
            if actual not in allowed_types(param):
                yield "node.input-type", what, i, formal, actual, param, None
                continue
            if param not in constraints or (formal.is_variadic and not formal.homogeneous):
                continue
            prior = bound.get(param)
            if prior is None:
                bound[param] = (actual, what, i)
            elif prior[0] != actual:
                yield "node.type-mismatch", what, i, formal, actual, param, prior


def _check_types(node, schema, path, scope, ctx, out) -> None:
    type_str = scope.type_str
    actuals = {"input": node.input, "output": node.output}
    at = {"input": paths.node_input, "output": paths.node_output}
    in_types = [type_str(name, ctx) if name else "" for name in node.input]
    out_types = [type_str(name, ctx) if name else "" for name in node.output]
    for code, what, i, formal, actual, param, prior in type_violations(schema, in_types, out_types):
        name = actuals[what][i]
        if prior is None:
            out.add(code, at[what](path, i, name),
                    f"{what} {formal.name!r} of {schema.key} is {actual}; allowed: "
                    f"{', '.join(sorted(schema.allowed_types(param)))}")
        else:
            prior_type, prior_what, prior_i = prior
            out.add(code, at[what](path, i, name),
                    f"{what} {paths.shown(name)} is {actual} but {prior_what} "
                    f"{paths.shown(actuals[prior_what][prior_i])} is "
                    f"{prior_type}; both are type {param} of {schema.key}")
    if node.op_type in ATTRIBUTE_TYPED and node.domain in ("", "ai.onnx") and len(node.output) and node.output[0]:
        # Cast's `to`, a Constant's value: the output type is the attribute's,
        # whatever a value_info or graph output says (onnx finds this only
        # with full_check, by shape inference).
        given = type_from_attributes(node)
        name = node.output[0]
        declared = type_str(name, ctx)
        if given is not None and declared is not None and declared != given:
            out.add("node.output-type-conflict", paths.node_output(path, 0, name),
                    f"{paths.shown(name)} is declared {declared}, but {schema.key} makes it {given}")


def _check_call_types(node, fn, path, out, scope, ctx) -> None:
    """A function's inputs and outputs are untyped: each call gives them its
    actuals' types. An operator of the body that reads an input directly
    must take that type, and one that gives an output must make it (an
    optional, map or sparse value where it takes or makes tensors: onnx's
    inference and onnxruntime refuse the call). Only a type outside the
    operator's whole constraint is judged here, so a body that binds its
    type parameters per call is never second-guessed."""
    body = None
    for what, actuals, formals, at in (("input", node.input, fn.input, paths.node_input),
                                       ("output", node.output, fn.output, paths.node_output)):
        for i, actual in enumerate(actuals[:len(formals)]):
            given = scope.type_str(actual, ctx) if actual else None
            if given is None:
                continue
            if body is None:
                body = _formals_of(fn, ctx)
            for op_type, name, schema, formal in body[what].get(formals[i], ()):
                allowed = schema.allowed_types(formal.type_str)
                if given not in allowed:
                    verb = "passes it to" if what == "input" else "takes it from"
                    out.add("node.input-type", at(path, i, actual),
                            f"{what} {paths.shown(actual)} is {given}, but function {as_text(fn.name)} {verb} "
                            f"{op_type} {paths.shown(name)} as {formal.name!r}, which "
                            f"{'takes' if what == 'input' else 'makes'} {', '.join(sorted(allowed))}")
                    break


def _check_call_inputs_given(node, fn, path, out, ctx) -> None:
    """An input the call leaves out ("" or past its last input) is missing in
    the body too: an operator of the body that needs it where it reads it
    (a required formal, not an optional one) gets nothing (onnxruntime
    refuses the model; onnx's inference refuses the call where that
    operator's types need the input)."""
    missing = [i for i in range(len(fn.input)) if i >= len(node.input) or not node.input[i]]
    if not missing:
        return
    body = _formals_of(fn, ctx)
    for i in missing:
        readers = [r for r in body["input"].get(fn.input[i], ()) if r[3].option == "single"]
        if not readers:
            continue
        op_type, name, _, formal = readers[0]
        where = paths.node_input(path, i, "") if i < len(node.input) else path
        given = "given as empty" if i < len(node.input) else "not given"
        out.add("node.required-input-empty", where,
                f"input {i} of function {as_text(fn.name)} ({paths.shown(fn.input[i])}) is {given}, but its body's "
                f"{op_type} {paths.shown(name)} reads it as {formal.name!r}, which it requires: pass a value")


def _formals_of(fn, ctx) -> dict:
    """_body_formals of `fn`, worked out once per function and run: a model
    may call one thousands of times."""
    kept = ctx.memo.setdefault("body_formals", {})
    hit = kept.get(id(fn))
    if hit is None or hit[0] is not fn:
        hit = kept[id(fn)] = (fn, _body_formals(fn, ctx))
    return hit[1]


def _body_formals(fn, ctx) -> dict:
    """{"input": function input name -> [(op_type, name of a body node, its
    OpSchema, the formal that reads it)], "output": function output name ->
    [the same for the node giving it]}, for the body's nodes of known
    operators (the function's own opset imports, else the model's), met
    directly (not in a subgraph). Text, not the nodes: the live checker
    keeps no NodeProto."""
    versions = dict(ctx.opsets)
    versions.update((schemas.canonical_domain(o.domain), o.version) for o in fn.opset_import)
    wanted = {"input": set(fn.input), "output": set(fn.output)}
    found = {"input": {}, "output": {}}
    for body_node in fn.node:
        domain = schemas.canonical_domain(body_node.domain)
        version = versions.get(domain)
        if version is None or domain not in schemas.KNOWN_DOMAINS or not body_node.op_type:
            continue
        schema = bind_cached(domain, body_node.op_type, version)
        if schema is None or schema.deprecated:
            continue
        label = (as_text(body_node.op_type), as_text(body_node.name), schema)
        for what, names, formals in (("input", body_node.input, schema.inputs),
                                     ("output", body_node.output, schema.outputs)):
            for j, name in enumerate(names):
                if name not in wanted[what]:
                    continue
                formal = formals[j] if j < len(formals) else (formals[-1] if formals and formals[-1].is_variadic
                                                              else None)
                if formal is not None:
                    found[what].setdefault(name, []).append((*label, formal))
    return found


def _check_function_call(node, fn, path, out, scope=None, ctx=None) -> None:
    if scope is not None:
        _check_call_types(node, fn, path, out, scope, ctx)
    if ctx is not None:
        _check_call_inputs_given(node, fn, path, out, ctx)
    if len(node.input) > len(fn.input):
        out.add("node.function-arity", path,
                f"function {as_text(fn.name)} declares {len(fn.input)} inputs; the node passes {len(node.input)}")
    if len(node.output) > len(fn.output):
        out.add("node.function-arity", path,
                f"function {as_text(fn.name)} declares {len(fn.output)} outputs; the node takes {len(node.output)}")
    declared = set(fn.attribute) | {a.name for a in fn.attribute_proto}
    for attr in node.attribute:
        if attr.name and attr.name not in declared:
            out.add("attr.unknown", paths.attribute(path, attr.name),
                    f"function {as_text(fn.name)} has no attribute {paths.shown(attr.name)}")
