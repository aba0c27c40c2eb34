"""Rules of particular operators of the default domain that their signatures
cannot say: attribute values the operator rules out, and the input and
output counts that an attribute or a subgraph fixes. (Groups of attributes
of which exactly one is given are node_rules' own, beside the required ones.)

Every rule is written once, in `_findings`, which yields what is wrong with a
node. `check_operator` words the findings for `node_rules.check_node`;
`operator_clean` is their fast form for the lean pass (scan.py asks it
through `node_rules.node_fields_clean`). The lean pass judges a node of a
signature without subgraphs once per the bytes after its op_type, which hold
its attributes but not its actuals: a rule that also reads the node's
counts is therefore never cleared here for such operators (`_COUNTED`); the
subgraph-holding operators are judged node by node, so theirs are.

Found with tools/check_differential.py: each is a rule onnx.checker
(full_check) enforces and the ONNX operator documentation states. ZipMap's
(found by QA) also read the type declared for its output, which the lean
pass's verdict key does not hold either: a ZipMap is never cleared here
(`_TYPED`), nor a LabelEncoder, whose keys' type is its input's. ZipMap's
input's width against the labels is a shape fact, judged by inference
(core/infer/ops_ml.py).
"""
from __future__ import annotations

from ..ir.dtypes import ELEMENT_TYPES, type_name
from . import paths

# Attributes that name an element type (a TensorProto.DataType number).
_DTYPE_ATTRS = {
    "Cast": "to", "EyeLike": "dtype", "RandomNormal": "dtype", "RandomUniform": "dtype",
    "RandomNormalLike": "dtype", "RandomUniformLike": "dtype", "Bernoulli": "dtype", "Multinomial": "dtype",
    "HannWindow": "output_datatype", "HammingWindow": "output_datatype", "BlackmanWindow": "output_datatype",
    "MelWeightMatrix": "output_datatype", "BitCast": "to", "SequenceEmpty": "dtype",
}
# Convolutions and pools: window sizes, steps and dilations of at least 1,
# paddings of at least 0 (onnx and onnxruntime refuse anything else).
_WINDOWED = frozenset({"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv", "AveragePool",
                       "MaxPool", "LpPool"})
_AT_LEAST = {"kernel_shape": 1, "strides": 1, "dilations": 1, "pads": 0, "output_padding": 0}
# Their auto_pad words (onnxruntime refuses any other, lower case too), and
# the convolutions that refuse explicit pads beside an auto_pad that sets
# them (onnxruntime for both, onnx for ConvTranspose).
_AUTO_PADS = frozenset({b"NOTSET", b"SAME_UPPER", b"SAME_LOWER", b"VALID"})
_PADS_OR_AUTO_PAD = frozenset({"Conv", "ConvTranspose"})
# Operators of the default domain whose rules read the node's counts.
_COUNTED = frozenset({"Einsum", "Split", "Optional"})
_HOLDERS = frozenset({"If", "Loop", "Scan", "SequenceMap"})
# String attributes with a closed set of values, by op (onnx and onnxruntime
# refuse any other word). Resize: every version's values together, so no
# version's own is refused.
_CLOSED_WORDS = {
    "Resize": {
        "mode": frozenset({b"nearest", b"linear", b"cubic"}),
        "coordinate_transformation_mode": frozenset({b"half_pixel", b"half_pixel_symmetric", b"pytorch_half_pixel",
                                                     b"align_corners", b"asymmetric", b"tf_crop_and_resize",
                                                     b"tf_half_pixel_for_nn"}),
        "nearest_mode": frozenset({b"round_prefer_floor", b"round_prefer_ceil", b"floor", b"ceil"}),
        "keep_aspect_ratio_policy": frozenset({b"stretch", b"not_larger", b"not_smaller"}),
    },
    "CausalConvWithState": {"activation": frozenset({b"none", b"silu", b"swish"})},
    "LinearAttention": {"update_rule": frozenset({b"linear", b"gated", b"delta", b"gated_delta"})},
}
# What an Einsum equation may hold besides letters: operands' commas, the
# arrow, an ellipsis and spaces (onnxruntime refuses any other character).
_EINSUM_PUNCTUATION = frozenset(b",->. ")
# Attention's window sizes (opset 25 on): -1 (unbounded) or a count of positions.
_ATTENTION_WINDOWS = ("left_window_size", "right_window_size")
# LabelEncoder's keys_* / values_* suffixes and the field each keeps its list in.
_LABEL_LISTS = (("strings", "strings"), ("int64s", "ints"), ("floats", "floats"), ("tensor", "t"))
# ZipMap's labels attributes and the key type each gives the output's maps.
_ZIPMAP_KEYS = {"classlabels_strings": "string", "classlabels_int64s": "int64"}
_ZIPMAP_OUTPUTS = {key: f"seq(map({key},tensor(float)))" for key in _ZIPMAP_KEYS.values()}
# LabelEncoder's keys_* attributes (but keys_tensor, whose tensor says it)
# and the element type each holds.
_LABEL_KEY_TYPES = {"keys_strings": "string", "keys_int64s": "int64", "keys_floats": "float"}
# TreeEnsemble's parallel lists: one entry per tree node, one per leaf (the
# tensors' elements count; onnx's inference and onnxruntime refuse others).
_TREE_LISTS = (("nodes_splits", ("nodes_featureids", "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids",
                                 "nodes_trueleafs", "nodes_falseleafs", "nodes_missing_value_tracks_true")),
               ("leaf_weights", ("leaf_targetids",)))
# Operators of ai.onnx.ml whose rules read the type of a value: ZipMap's
# output, LabelEncoder's input.
_TYPED = frozenset({"ZipMap", "LabelEncoder"})
# Every operator a rule here is about (LabelEncoder's and ZipMap's domain is
# ai.onnx.ml, all the others' the default one).
RULED = frozenset(set(_DTYPE_ATTRS) | _WINDOWED | _COUNTED | _HOLDERS | _TYPED | set(_CLOSED_WORDS)
                  | {"ConstantOfShape", "LabelEncoder", "Attention", "TreeEnsemble"})


def operator_clean(node, op: str, schema, graphs=None) -> bool:
    """False when check_operator may find something in the node (the lean
    pass then hands it to the rules). Ask only for ops in RULED, and only
    for a node whose attributes node_rules already cleared (known names,
    each once, the required ones given; `graphs`: the [(name, type,
    graph)] node_rules read for a node holding graphs): the common
    operators are judged here without building _findings' generator, on
    that footing."""
    if op in _TYPED:
        return False
    if schema.domain and op != "LabelEncoder" and op != "TreeEnsemble":
        return True
    if op in _WINDOWED:
        auto_pad = pads = None
        for a in node.attribute:
            least = _AT_LEAST.get(a.name)
            if least is not None:
                ints = a.ints
                if ints and min(ints) < least:
                    return False
                if a.name == "pads":
                    pads = a
            elif a.name == "auto_pad":
                auto_pad = a.s
        if auto_pad is None or auto_pad == b"NOTSET":
            return True
        return auto_pad in _AUTO_PADS and (pads is None or op not in _PADS_OR_AUTO_PAD)
    dtype_attr = _DTYPE_ATTRS.get(op)
    if dtype_attr is not None:
        for a in node.attribute:
            if a.name == dtype_attr and a.HasField("i") and a.i not in ELEMENT_TYPES:
                return False
        return True
    if op == "If" and graphs is not None:
        # then_branch and else_branch are both there (required): each gives every output.
        n = len(node.output)
        for _, _, g in graphs:
            if len(g.output) != n:
                return False
        return True
    if op in _COUNTED:
        return False
    return next(_findings(node, op, schema), None) is None


def given_count(actuals) -> int:
    """How many inputs or outputs a node gives: trailing "" ones are not
    given (IR spec)."""
    given = len(actuals)
    while given and not actuals[given - 1]:
        given -= 1
    return given


def check_operator(node, schema, path, out, scope=None, ctx=None) -> None:
    """The findings of _findings, worded, for a node bound to `schema`.
    `scope` and `ctx` (context.py) give the types of the node's values
    (declared, derived or inferred); without them no output type is judged."""
    op = node.op_type
    if op not in RULED:
        return
    type_of = (lambda name: scope.type_str(name, ctx)) if op in _TYPED and scope is not None else None
    for code, where, message in _findings(node, op, schema, type_of):
        if where.__class__ is int:
            out.add(code, paths.node_output(path, where, node.output[where]), message)
        else:
            out.add(code, paths.attribute(path, where) if where else path, message)


def _attrs(node) -> dict:
    """name -> attribute (the first of a repeated name: attr.duplicate says the rest)."""
    found = {}
    for a in node.attribute:
        found.setdefault(a.name, a)
    return found


def _findings(node, op, schema, type_of=None):
    """(code, where, message) for each rule the node breaks; `where` is an
    attribute name, an output index (int) or None (the node).
    `type_of(name)`: a value's type string or None (check_operator)."""
    attrs = _attrs(node)
    if schema.domain:
        if schema.domain == "ai.onnx.ml":
            if op == "LabelEncoder":
                yield from _label_encoder(attrs, schema)
                if type_of is not None and schema.since_version >= 2:
                    yield from _label_keys_type(node, attrs, type_of)
            elif op == "ZipMap":
                yield from _zip_map(node, attrs, type_of)
            elif op == "TreeEnsemble":
                yield from _tree_lists(attrs)
        return
    dtype_attr = _DTYPE_ATTRS.get(op)
    if dtype_attr is not None:
        a = attrs.get(dtype_attr)
        if a is not None and a.HasField("i") and a.i not in ELEMENT_TYPES:
            yield ("attr.dtype-invalid", dtype_attr,
                   f"{dtype_attr} = {a.i} is not an ONNX element type; give a TensorProto.DataType "
                   "number (1 float, 6 int32, 7 int64, 10 float16, ...)")
    if op in _WINDOWED:
        for name, least in _AT_LEAST.items():
            a = attrs.get(name)
            if a is not None and any(v < least for v in a.ints):
                what = "positive" if least else "zero or more"
                yield ("attr.value-out-of-range", name,
                       f"{name} {list(a.ints)} must all be {what}")
        a = attrs.get("auto_pad")
        if a is not None and a.HasField("s"):
            if a.s not in _AUTO_PADS:
                yield ("attr.value-out-of-range", "auto_pad",
                       f"auto_pad {a.s.decode(errors='replace')!r} is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID")
            elif a.s != b"NOTSET" and op in _PADS_OR_AUTO_PAD and "pads" in attrs:
                yield ("node.inputs-exclusive", "pads",
                       f"{op} takes explicit pads or auto_pad {a.s.decode()}, which sets them, not both: remove pads "
                       "or set auto_pad to NOTSET")
    elif op == "ConstantOfShape":
        a = attrs.get("value")
        if a is not None and a.HasField("t") and list(a.t.dims) != [1]:
            yield ("attr.value-out-of-range", "value",
                   f"ConstantOfShape's value must be a one-element 1-D tensor (dims [1]); it has dims "
                   f"{list(a.t.dims)} (onnx and onnxruntime refuse any other)")
    elif op == "Einsum":
        a = attrs.get("equation")
        if a is not None and a.HasField("s"):
            odd = sorted({c for c in a.s if not (65 <= c <= 90 or 97 <= c <= 122 or c in _EINSUM_PUNCTUATION)})
            if odd:
                yield ("attr.value-out-of-range", "equation",
                       f"the equation {a.s.decode(errors='replace')!r} holds {bytes(odd).decode(errors='replace')!r}: "
                       "subscripts are letters, with commas between operands, '->' and '...'")
            operands = a.s.split(b"->")[0].count(b",") + 1
            given = given_count(node.input)
            if operands != given:
                yield ("node.input-count", None,
                       f"the equation names {operands} operand(s); the node has {given} inputs")
    elif op == "Split":
        if schema.since_version >= 18:
            split_given = len(node.input) > 1 and bool(node.input[1])
            num_outputs = "num_outputs" in attrs
            if split_given and num_outputs:
                yield ("node.inputs-exclusive", "num_outputs",
                       "Split takes its sizes from the split input or the count from num_outputs, not both; "
                       "remove one")
            elif not split_given and not num_outputs:
                yield ("node.inputs-exclusive", None,
                       "Split (opset 18 on) needs the split input or the num_outputs attribute; give one")
            elif num_outputs and attrs["num_outputs"].HasField("i") and attrs["num_outputs"].i < 1:
                yield ("attr.value-out-of-range", "num_outputs",
                       f"num_outputs {attrs['num_outputs'].i} must be 1 or more: the number of pieces")
            elif num_outputs and attrs["num_outputs"].HasField("i"):
                yield from _split_count(node, attrs["num_outputs"].i)
    elif op == "Optional":
        if not (len(node.input) and node.input[0]) and "type" not in attrs:
            yield ("attr.required-missing", None,
                   "an Optional without an input needs the type attribute (the type of the empty optional)")
    elif op in _CLOSED_WORDS:
        for name, words in _CLOSED_WORDS[op].items():
            a = attrs.get(name)
            if a is not None and a.HasField("s") and a.s not in words:
                yield ("attr.value-out-of-range", name,
                       f"{name} {a.s.decode(errors='replace')!r} is not one of "
                       f"{', '.join(sorted(w.decode() for w in words))}")
    elif op == "Attention" and schema.since_version >= 25:
        for name in _ATTENTION_WINDOWS:
            a = attrs.get(name)
            if a is not None and a.HasField("i") and a.i < -1:
                yield ("attr.value-out-of-range", name,
                       f"{name} {a.i} must be -1 (no bound) or a number of positions (0 or more)")
    elif op in _HOLDERS:
        yield from _subgraph_counts(node, op, schema, attrs)


def _split_count(node, count: int):
    """Split's num_outputs is the number of pieces, one per output: onnxruntime
    fails to run (or aborts on) a node with another number of outputs, and
    onnx refuses a count too large to allocate. Trailing "" outputs may be
    counted either way: only a count neither way matches is judged."""
    if count not in (len(node.output), given_count(node.output)):
        yield ("node.output-count", "num_outputs",
               f"num_outputs {count} asks for that many pieces but the node has {len(node.output)} outputs, one "
               "per piece: set num_outputs to the number of outputs")


def _label_encoder(attrs, schema):
    """LabelEncoder maps keys[i] to values[i]: as many values as keys."""
    counts = {}
    for side in ("keys", "values"):
        for kind, field in _LABEL_LISTS:
            a = attrs.get(f"{side}_{kind}")
            if a is not None:
                counts[side] = _elements(a.t) if field == "t" else len(getattr(a, field))
                break
    if len(counts) == 2 and counts["keys"] != counts["values"]:
        yield ("attr.lengths-differ", None,
               f"{counts['keys']} keys but {counts['values']} values; LabelEncoder maps each key to the value "
               "at its place")
    for name in ("keys_tensor", "values_tensor"):
        a = attrs.get(name)
        # Its page says 1-D; onnx and onnxruntime read a scalar as one entry
        # (and run it), and refuse a higher rank.
        if a is not None and a.HasField("t") and len(a.t.dims) > 1:
            yield ("attr.value-out-of-range", name,
                   f"{name} has dims {list(a.t.dims)}; it lists the {name[:-7]} as a 1-D tensor (onnx and onnxruntime "
                   "refuse a higher rank)")
    default = attrs.get("default_tensor")     # (LabelEncoder-4 on; before, attr.unknown says it)
    if default is not None and default.HasField("t") and list(default.t.dims) != [1] and schema.since_version >= 4:
        yield ("attr.value-out-of-range", "default_tensor",
               f"default_tensor has dims {list(default.t.dims)}; it is the one value of a key not listed: a 1-D "
               "tensor of one element (dims [1]; onnx and onnxruntime refuse any other)")


def _label_keys_type(node, attrs, type_of):
    """LabelEncoder (opset 2 on) looks its input up among the keys: they
    have the input's element type (onnx's inference and onnxruntime refuse
    others; int32 keys for an int64 input find nothing)."""
    if not len(node.input) or not node.input[0]:
        return
    for name, a in attrs.items():
        if name == "keys_tensor":
            if not a.HasField("t") or not a.t.data_type:
                return
            keys = type_name(a.t.data_type)
        elif name in _LABEL_KEY_TYPES:
            keys = _LABEL_KEY_TYPES[name]
        else:
            continue
        given = type_of(node.input[0])
        # Another input type altogether is the type constraint's finding (node_rules).
        if given is not None and given.startswith("tensor(") and given != f"tensor({keys})":
            yield ("node.input-type", name,
                   f"the input {paths.shown(node.input[0])} is {given} but {name} holds {keys} keys: LabelEncoder "
                   f"looks its input up among keys of its element type; give {given[7:-1]} keys, or cast the input")
        return


def _tree_lists(attrs):
    """TreeEnsemble describes its trees in parallel lists: the nodes_* lists
    one entry per tree node, leaf_weights and leaf_targetids one per leaf.
    One finding per group whose lists differ, naming every length."""
    for lead, others in _TREE_LISTS:
        counts = {}
        for name in (lead, *others):
            a = attrs.get(name)
            if a is not None:
                counts[name] = _elements(a.t) if a.HasField("t") else len(a.ints)
        if len(set(counts.values())) > 1:
            what = "tree node" if lead == "nodes_splits" else "leaf"
            yield ("attr.length-mismatch", None,
                   f"TreeEnsemble gives each {what} one entry in every such list, but they hold "
                   + ", ".join(f"{name} {n}" for name, n in counts.items()))


def _zip_map(node, attrs, type_of):
    """ZipMap pairs each column of its input with a label: it needs exactly
    one non-empty list of them (onnxruntime refuses both or neither; with
    neither, onnx finds no key type), and their type is the key type of the
    output's maps (onnx's shape inference and onnxruntime refuse an output
    declared with the other key)."""
    given = [name for name in _ZIPMAP_KEYS if name in attrs]
    filled = [name for name in given if _list_length(attrs[name])]
    if len(filled) != 1:
        shown = " and ".join(name if name in filled else f"an empty {name}" for name in given) or "neither"
        yield ("attr.one-of", None,
               f"ZipMap takes exactly one non-empty list of labels, classlabels_strings or classlabels_int64s "
               f"(one per column of its input); the node gives {shown}")
        return
    if type_of is None or not len(node.output) or not node.output[0]:
        return
    made = _ZIPMAP_OUTPUTS[_ZIPMAP_KEYS[filled[0]]]
    other = next(name for name in _ZIPMAP_KEYS if name != filled[0])
    declared = type_of(node.output[0])
    # Another output type altogether is the type constraint's finding (node_rules).
    if declared in _ZIPMAP_OUTPUTS.values() and declared != made:
        yield ("node.output-type-conflict", 0,
               f"{paths.shown(node.output[0])} is declared {declared}, but ZipMap's {filled[0]} makes it {made}: "
               f"declare it {made}, or give the labels as {other}")


def _list_length(a) -> int:
    """How many values a list attribute holds, whichever list field it
    filled (a wrong type is attr.wrong-type's finding, not a missing list)."""
    return len(a.strings) or len(a.ints) or len(a.floats)


def _elements(t) -> int:
    n = 1
    for d in t.dims:
        n *= d
    return n


def _subgraph_counts(node, op, schema, attrs):
    """A body's or branch's input and output counts against the node's."""
    n_in, n_out = len(node.input), len(node.output)
    if op == "If":
        then_g, else_g = attrs.get("then_branch"), attrs.get("else_branch")
        if then_g is None or else_g is None or not then_g.HasField("g") or not else_g.HasField("g"):
            return
        t, e = len(then_g.g.output), len(else_g.g.output)
        if t != e:
            yield ("node.subgraph-arity", "else_branch",
                   f"else_branch has {e} output(s) but then_branch has {t}; both give the If's outputs")
        elif t != n_out:
            yield ("node.subgraph-arity", None,
                   f"the branches have {t} output(s); the node has {n_out}")
        return
    body = attrs.get("body")
    if body is None or not body.HasField("g"):
        return
    g_in, g_out = len(body.g.input), len(body.g.output)
    if op == "SequenceMap":
        # The body maps one element of each input (a sequence's, or a tensor as it is) to one of each output.
        if g_in != n_in:
            yield ("node.subgraph-arity", "body",
                   f"the body has {g_in} input(s); it needs one per SequenceMap input ({n_in})")
        if g_out != n_out:
            yield ("node.subgraph-arity", "body",
                   f"the body has {g_out} output(s); it needs one per SequenceMap output ({n_out})")
        return
    if op == "Loop":
        # Body: (iteration, condition, N carried) -> (condition, N carried, K scanned);
        # node: (M, condition, N carried) -> (N carried, K scanned).
        if g_in != n_in:
            yield ("node.subgraph-arity", "body",
                   f"the body has {g_in} input(s); it needs one per Loop input ({n_in}: the iteration "
                   "number, the condition and each loop-carried value)")
        if g_out != n_out + 1:
            yield ("node.subgraph-arity", "body",
                   f"the body has {g_out} output(s); it needs the condition and one per Loop output "
                   f"({n_out + 1})")
        return
    # Scan: the node's inputs (after Scan-8's sequence_lens) are the body's.
    states = n_in - 1 if schema.since_version < 9 else n_in
    scan_inputs = attrs.get("num_scan_inputs")
    if scan_inputs is not None and scan_inputs.i > states:
        yield ("attr.value-out-of-range", "num_scan_inputs",
               f"num_scan_inputs {scan_inputs.i} is more than the node's {states} state and scan inputs")
    if g_in != states:
        yield ("node.subgraph-arity", "body",
               f"the body has {g_in} input(s); it needs one per state and scan input of the node ({states})")
    if g_out != n_out:
        yield ("node.subgraph-arity", "body",
               f"the body has {g_out} output(s); it needs one per output of the node ({n_out})")
    if schema.since_version >= 9 and scan_inputs is not None and 0 <= scan_inputs.i <= states:
        yield from _scan_lists(attrs, scan_inputs.i, n_out - (states - scan_inputs.i))


def _scan_lists(attrs, scan_inputs: int, scan_outputs: int):
    """Scan (opset 9 on) gives an axis and a direction per scan input and per
    scan output (each list optional): onnx and onnxruntime refuse an axes
    list of another length, onnxruntime a directions list of another length
    and a direction other than 0 (forward) and 1 (reverse)."""
    for name, count, what in (("scan_input_axes", scan_inputs, "scan input"),
                              ("scan_input_directions", scan_inputs, "scan input"),
                              ("scan_output_axes", scan_outputs, "scan output"),
                              ("scan_output_directions", scan_outputs, "scan output")):
        a = attrs.get(name)
        if a is None or a.type != a.INTS:
            continue
        if len(a.ints) != count:
            yield ("attr.length-mismatch", name,
                   f"{name} has {len(a.ints)} entries {list(a.ints)[:8]} but the node has {count} "
                   f"{what}(s): give one per {what}, or leave it out")
        elif name.endswith("directions") and any(d not in (0, 1) for d in a.ints):
            yield ("attr.value-out-of-range", name,
                   f"{name} {list(a.ints)[:8]} may hold only 0 (forward) and 1 (reverse)")

