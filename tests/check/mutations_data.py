"""Mutations breaking tensor, external data and sparse tensor rules (see check_mutations.py for the contract)."""
from __future__ import annotations

from onnx import TensorProto

from mutation_helpers import q, find_initializer, elements, make_external, first_sparse


def tensor_short(m):
    t = find_initializer(m, lambda t: elements(t) > 0)
    if t is None:
        return None
    if t.HasField("raw_data"):
        t.raw_data = t.raw_data[:-1]
    else:
        for f in ("float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
            if len(getattr(t, f)):
                del getattr(t, f)[-1]
                break
    return "tensor.data-length", f"graph/initializer {q(t.name)}", True


def tensor_two_fields(m):
    t = find_initializer(m, lambda t: elements(t) > 0)
    if t is None:
        return None
    if t.HasField("raw_data"):
        t.int64_data.append(1) if t.data_type != TensorProto.INT64 else t.float_data.append(1.0)
    else:
        t.raw_data = b"\0" * 4
    return "tensor.multiple-data-fields", f"graph/initializer {q(t.name)}", True


def tensor_dtype_undefined(m):
    t = find_initializer(m)
    if t is None:
        return None
    t.data_type = 0
    return "tensor.dtype-missing", f"graph/initializer {q(t.name)}", True


def tensor_negative_dim(m):
    t = find_initializer(m, lambda t: len(t.dims) > 0)
    if t is None:
        return None
    t.dims[0] = -t.dims[0] - 1
    return "tensor.negative-dim", f"graph/initializer {q(t.name)}", True


def external_missing_file(m):
    t = find_initializer(m)
    if t is None:
        return None
    make_external(t, "weights_that_do_not_exist.bin")
    return "tensor.external-missing-file", f"graph/initializer {q(t.name)}", True


def external_escapes_folder(m):
    t = find_initializer(m)
    if t is None:
        return None
    make_external(t, "../../etc/passwd")
    return "tensor.external-location", f"graph/initializer {q(t.name)}", True


def external_bad_key(m):
    t = find_initializer(m)
    if t is None:
        return None
    make_external(t, "w.bin")
    t.external_data.add(key="colour", value="blue")
    return "tensor.external-key", f"graph/initializer {q(t.name)}", True


def sparse_index_out_of_range(m):
    if not len(m.graph.sparse_initializer):
        return None
    sp = m.graph.sparse_initializer[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    n = sp.values.dims[0]
    sp.indices.int64_data.extend([0] * (n - 1) + [10**6])
    return "sparse.index-range", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_index_unsorted(m):
    if not len(m.graph.sparse_initializer):
        return None
    sp = m.graph.sparse_initializer[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    n = sp.values.dims[0]
    sp.indices.int64_data.extend(list(range(n))[::-1])
    return "sparse.index-order", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_needs_ir6(m):
    if not len(m.graph.sparse_initializer):
        return None
    m.ir_version = 5
    return "model.feature-too-new", f"graph/sparse_initializer {q(m.graph.sparse_initializer[0].values.name)}", True


def tensor_without_data(m):
    t = find_initializer(m, lambda t: elements(t) > 0 and not t.data_location)
    if t is None:
        return None
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    return "tensor.no-data", f"graph/initializer {q(t.name)}", True


def data_for_empty_tensor(m):
    t = find_initializer(m, lambda t: elements(t) > 0 and len(t.dims) > 0)
    if t is None:
        return None
    t.dims[0] = 0
    return "tensor.data-for-empty", f"graph/initializer {q(t.name)}", True


def tensor_in_wrong_field(m):
    t = find_initializer(m, lambda t: elements(t) > 0)
    if t is None:
        return None
    n = elements(t)
    for f in ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data"):
        t.ClearField(f)
    if t.data_type == TensorProto.DOUBLE:
        t.float_data.extend([0.0] * n)
    else:
        t.double_data.extend([0.0] * n)
    return "tensor.wrong-data-field", f"graph/initializer {q(t.name)}", True


def string_tensor_in_raw_data(m):
    t = find_initializer(m, lambda t: t.HasField("raw_data") and elements(t) > 0)
    if t is None:
        return None
    t.data_type = TensorProto.STRING
    return "tensor.string-raw", f"graph/initializer {q(t.name)}", True


def external_tensor_keeps_data(m):
    t = find_initializer(m, lambda t: elements(t) > 0)
    if t is None:
        return None
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    return "tensor.external-with-data", f"graph/initializer {q(t.name)}", True


def sparse_values_not_1d(m):
    sp = first_sparse(m)
    if sp is None:
        return None
    sp.values.dims.append(1)
    return "sparse.values-rank", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_zero_dim(m):
    sp = first_sparse(m)
    if sp is None:
        return None
    sp.dims[0] = 0
    return "sparse.dims", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_int32_indices(m):
    sp = first_sparse(m)
    if sp is None:
        return None
    values = list(sp.indices.int64_data) or [1] * sp.values.dims[0]
    sp.indices.ClearField("raw_data")
    sp.indices.ClearField("int64_data")
    sp.indices.data_type = TensorProto.INT32
    sp.indices.int32_data.extend(values)
    return "sparse.indices-type", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_indices_wrong_shape(m):
    sp = first_sparse(m)
    if sp is None:
        return None
    n = sp.values.dims[0]
    del sp.indices.dims[:]
    sp.indices.dims.extend([1, n])
    return "sparse.indices-shape", f"graph/sparse_initializer {q(sp.values.name)}", True


def sparse_nameless(m):
    sp = first_sparse(m)
    if sp is None:
        return None
    sp.values.name = ""
    return "sparse.name-missing", 'graph/sparse_initializer ""', True



MUTATIONS = [
    tensor_short,
    tensor_two_fields,
    tensor_dtype_undefined,
    tensor_negative_dim,
    external_missing_file,
    external_escapes_folder,
    external_bad_key,
    sparse_index_out_of_range,
    sparse_index_unsorted,
    sparse_needs_ir6,
    tensor_without_data,
    data_for_empty_tensor,
    tensor_in_wrong_field,
    string_tensor_in_raw_data,
    external_tensor_keeps_data,
    sparse_values_not_1d,
    sparse_zero_dim,
    sparse_int32_indices,
    sparse_indices_wrong_shape,
    sparse_nameless,
]
