"""Diagnostics: what the checker and inference report, and the catalogue of
stable codes. Here, below both packages, so neither imports the other for it.

A code is a contract: the UI filters and documents by code, tests assert on
it. Add codes; never rename one.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(enum.IntEnum):
    # Ordered so `>=` means "at least as serious".
    INFO = 0
    WARNING = 1
    ERROR = 2

    def __str__(self) -> str:
        return self.name.lower()


ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Diagnostic:
    severity: Severity
    code: str
    path: str        # e.g. 'graph/node[12] Conv "conv1"/attribute "pads"'
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.severity} {self.code}: {self.message}"

    def to_json(self) -> dict:
        return {"severity": str(self.severity), "code": self.code, "path": self.path, "message": self.message}


# code -> (default severity, what it means). The README lists these.
CODES = {
    # model
    "model.ir-version-missing": (ERROR, "ir_version is not set"),
    "model.ir-version-unknown": (ERROR, "ir_version is newer than any this checker knows"),
    "model.opset-missing": (ERROR, "IR >= 3 needs opset_import"),
    "model.opset-not-allowed": (ERROR, "IR < 3 cannot have opset_import"),
    "model.opset-duplicate": (ERROR, "a domain is imported twice with different versions"),
    "model.opset-repeated": (WARNING, "the same domain and version imported twice"),
    "model.opset-version-invalid": (ERROR, "an imported opset version is not positive"),
    "model.opset-too-new": (ERROR, "an imported opset newer than any the checker knows (it checks against its newest)"),
    "model.metadata-duplicate": (ERROR, "metadata_props has a key twice"),
    "model.feature-too-new": (ERROR, "a field or element type the declared IR version does not have"),
    # graph
    "graph.name-missing": (ERROR, "graph has no name"),
    "graph.input-name-missing": (ERROR, "graph input or output with an empty name"),
    "graph.input-duplicate": (ERROR, "two graph inputs share a name"),
    "graph.shadowing": (WARNING, "a subgraph input hides a name of the enclosing graph"),
    "graph.io-type-missing": (ERROR, "a top-level input/output has no type"),
    "graph.io-shape-missing": (ERROR, "a top-level tensor input/output has no shape"),
    "graph.io-elem-type-missing": (ERROR, "a top-level input/output type has no element type"),
    "graph.initializer-name-missing": (ERROR, "initializer without a name"),
    "graph.initializer-duplicate": (ERROR, "two (sparse) initializers share a name"),
    "graph.initializer-not-input": (ERROR, "IR < 4: an initializer that is not a graph input"),
    "graph.redefinition": (ERROR, "a name is defined twice (SSA)"),
    "graph.undefined-input": (ERROR, "a node input that nothing defines"),
    "graph.not-topological": (ERROR, "a node input defined only by a later node"),
    "graph.cycle": (ERROR, "nodes that depend on each other"),
    "graph.output-undefined": (ERROR, "a graph output that no node, input or initializer defines"),
    "graph.value-info-duplicate": (ERROR, "two value_info entries share a name"),
    "graph.value-info-unused": (WARNING, "value_info for a name nothing defines"),
    "graph.value-info-conflict": (ERROR, "value_info disagrees with the declared type of a graph input/output"),
    "graph.output-conflict": (ERROR, "a graph output that is a graph input of the same name, declared with another "
                                     "element type"),
    "graph.elem-type-missing": (ERROR, "a tensor type in value_info or a subgraph input/output "
                                       "without an element type"),
    "graph.declared-type-contradicts": (ERROR, "a declared type (graph input/output, value_info) that contradicts "
                                               "the type its producer gives it (inference's, or the graph input "
                                               "a pass-through output is)"),
    "name.not-identifier": (INFO, "a name that is not a C identifier"),
    "text.invalid-utf8": (ERROR, "a name, op_type, domain, attribute name, doc string, metadata entry or other "
                                 "text the file holds as invalid UTF-8 (a damaged file)"),
    # node
    "node.op-type-missing": (ERROR, "node has no op_type"),
    "node.no-io": (ERROR, "node has neither inputs nor outputs"),
    "node.domain-not-imported": (ERROR, "the node's domain is not imported"),
    "node.unknown-op": (ERROR, "no such operator in a standard domain"),
    "node.op-too-new": (ERROR, "operator newer than the imported opset"),
    "node.deprecated-op": (ERROR, "operator is deprecated at the imported opset"),
    "node.custom-op": (INFO, "operator of a custom domain with no known signature"),
    "node.experimental-op": (WARNING, "an operator of early ONNX's experimental set, since dropped from the standard"),
    "node.input-count": (ERROR, "too few or too many inputs"),
    "node.output-count": (ERROR, "too few or too many outputs"),
    "node.required-input-empty": (ERROR, "a non-optional input or output is given as empty"),
    "node.variadic-arity": (ERROR, "a variadic formal has fewer actuals than its minimum"),
    "node.input-type": (ERROR, "an input/output type outside the operator's constraint"),
    "node.type-mismatch": (ERROR, "actuals bound to one type parameter have different types"),
    "node.output-type-conflict": (ERROR, "an output declared with another type than the operator's attribute gives it"),
    "node.function-arity": (ERROR, "a call to a model function with more inputs/outputs than it declares"),
    "node.inputs-exclusive": (ERROR, "an operator that takes exactly one of two things (Resize's scales and "
                                     "sizes, Split's split input and num_outputs) got both or neither"),
    "node.subgraph-arity": (ERROR, "a subgraph whose input or output count does not fit its node (If branches, "
                                   "Loop and Scan bodies)"),
    # attributes
    "attr.name-missing": (ERROR, "attribute without a name"),
    "attr.duplicate": (ERROR, "attribute given twice on one node"),
    "attr.type-missing": (ERROR, "IR >= 2: attribute without a type field"),
    "attr.type-field-mismatch": (ERROR, "the value field set does not match the type field"),
    "attr.multiple-values": (ERROR, "more than one value field set"),
    "attr.no-value": (ERROR, "a non-list attribute with no value field"),
    "attr.value-not-of-type": (ERROR, "an attribute set from Python to a value its type cannot carry"),
    "attr.unknown": (ERROR, "attribute the operator does not define"),
    "attr.wrong-type": (ERROR, "attribute type differs from the operator's"),
    "attr.required-missing": (ERROR, "a required attribute is missing"),
    "attr.ref-outside-function": (ERROR, "ref_attr_name used outside a function body"),
    "attr.ref-with-value": (ERROR, "ref_attr_name together with a value"),
    "attr.ref-unknown": (ERROR, "ref_attr_name names no attribute of the function"),
    "attr.one-of": (ERROR, "none or several of a group of attributes of which the operator takes exactly one "
                           "(Constant's value attributes, LabelEncoder's keys_* and values_*, ZipMap's labels)"),
    "attr.dtype-invalid": (ERROR, "an attribute naming an element type (Cast's to, dtype) holds no ONNX element type"),
    "attr.lengths-differ": (ERROR, "two list attributes that pair up entry by entry have different lengths "
                                   "(LabelEncoder's keys and values)"),
    "attr.value-out-of-range": (ERROR, "an attribute value the operator rules out (a window size, stride or dilation "
                                       "below 1, a negative pad, a ConstantOfShape value that is not one element, "
                                       "num_scan_inputs above the inputs, a Resize mode it does not have)"),
    # shapes and axes that contradict the operator (found by inference, from known dims only)
    "shape.broadcast-conflict": (ERROR, "two known dims, both other than 1, that a broadcasting operator "
                                        "cannot broadcast"),
    "shape.rank-mismatch": (ERROR, "an input whose known rank the operator, its attributes or its other "
                                   "inputs rule out"),
    "shape.dim-mismatch": (ERROR, "two known dims the operator needs equal differ (MatMul/Gemm inner dims, "
                                  "Concat's other axes, channels, split sizes)"),
    "shape.reshape-mismatch": (ERROR, "Reshape's target shape is invalid or cannot hold the input's elements"),
    "shape.dim-fixed": (WARNING, "a symbolic dim that the model's fixed numbers (a Reshape's target, a weight's "
                                 "size) allow only one size of, as in an export traced at one size: other sizes "
                                 "fail at run"),
    "shape.index-out-of-range": (ERROR, "a constant index outside a known axis size"),
    "attr.axis-out-of-range": (ERROR, "an axis (attribute or constant input) outside the input's rank, or given twice"),
    "attr.perm-invalid": (ERROR, "Transpose's perm is not a permutation of the input's axes"),
    "attr.length-mismatch": (ERROR, "a per-axis attribute (kernel_shape, strides, pads, ...) whose length does not "
                                    "fit the input's rank"),
    # tensors
    "tensor.dtype-missing": (ERROR, "tensor with data_type UNDEFINED"),
    "tensor.dtype-unknown": (ERROR, "tensor with an unknown data_type"),
    "tensor.negative-dim": (ERROR, "tensor with a negative dim"),
    "tensor.multiple-data-fields": (ERROR, "more than one data field set"),
    "tensor.no-data": (ERROR, "a non-empty tensor with no data"),
    "tensor.data-for-empty": (ERROR, "a 0-element tensor carrying data"),
    "tensor.data-length": (ERROR, "data length does not match dims and type"),
    "tensor.wrong-data-field": (ERROR, "a typed data field that does not fit data_type"),
    "tensor.string-raw": (ERROR, "string tensor stored in raw_data"),
    "tensor.external-with-data": (ERROR, "external tensor that also has inline data"),
    "tensor.external-key": (ERROR, "unknown or repeated external_data key"),
    "tensor.external-location": (ERROR, "external data location missing, absolute or outside the model folder"),
    "tensor.external-missing-file": (ERROR, "external data file does not exist"),
    "tensor.external-range": (ERROR, "offset/length invalid or beyond the end of the file"),
    "tensor.external-unverified": (INFO, "external data not checked: the model has no folder"),
    "sparse.values-rank": (ERROR, "sparse values must be 1-D"),
    "sparse.dims": (ERROR, "sparse dims must be positive"),
    "sparse.indices-type": (ERROR, "sparse indices must be int64"),
    "sparse.indices-shape": (ERROR, "sparse indices shape does not fit values/dims"),
    "sparse.index-range": (ERROR, "a sparse index is out of range"),
    "sparse.index-order": (ERROR, "sparse indices are not strictly increasing"),
    "sparse.name-missing": (ERROR, "sparse initializer without a name"),
    # functions and training
    "function.name-missing": (ERROR, "function without a name"),
    "function.domain-missing": (ERROR, "function without a domain"),
    "function.duplicate": (ERROR, "two functions with the same (domain, name, overload)"),
    "function.input-duplicate": (ERROR, "function formal input twice"),
    "function.output-duplicate": (ERROR, "function formal output twice"),
    "function.attribute-duplicate": (ERROR, "function attribute declared twice"),
    "function.output-undefined": (ERROR, "function output nothing in the body produces"),
    "function.recursive": (ERROR, "functions that call each other in a cycle"),
    "function.opset-mismatch": (ERROR, "function imports an opset whose operator version differs from the model's"),
    "training.binding-key": (ERROR, "binding key is not an initializer of the main graph"),
    "training.binding-value": (ERROR, "binding value is not an output of the training graph"),
    "training.binding-duplicate": (ERROR, "an initializer bound twice"),
    "check.internal": (ERROR, "the checker itself failed on this part (a bug: please report)"),
}


class Collector:
    """Accumulates diagnostics; rule functions only ever append."""
    __slots__ = ("items",)

    def __init__(self):
        self.items: list = []

    def add(self, code: str, path: str, message: str, severity=None) -> None:
        sev = CODES[code][0] if severity is None else severity
        self.items.append(Diagnostic(sev, code, path if path.__class__ is str else str(path), message))

    def extend(self, diags) -> None:
        self.items.extend(diags)
