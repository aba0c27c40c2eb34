"""Feature-handling ai.onnx.ml kernels: ArrayFeatureExtractor, CastMap,
CategoryMapper, DictVectorizer, FeatureVectorizer, Imputer, LabelEncoder,
OneHotEncoder, ZipMap. Maps are Python dicts, ZipMap's output is a list of
dicts."""
from __future__ import annotations

import numpy as np

from ..registry import kernel
from ._tensor_util import ints, str_array

ML = "ai.onnx.ml"


@kernel("ArrayFeatureExtractor", since=1, domain=ML)
def array_feature_extractor(X, Y):
    index = np.asarray(Y, dtype=np.int64).reshape(-1)
    picked = X[..., index]
    # A vector input still gives one row, as onnxruntime does.
    return picked.reshape(1, -1) if X.ndim == 1 else picked


def _cast_values(values, cast_to):
    if cast_to == "TO_STRING":
        # Numbers print with six decimals, like C++ std::to_string (onnxruntime).
        return str_array([v if isinstance(v, str) else f"{float(v):f}" for v in values])
    if cast_to == "TO_FLOAT":
        return np.array([float(v) for v in values], dtype=np.float32)
    if cast_to == "TO_INT64":
        return np.array([int(float(v)) for v in values], dtype=np.int64)
    raise ValueError(f"unknown cast_to {cast_to!r}")


@kernel("CastMap", since=1, domain=ML)
def cast_map(X, cast_to="TO_FLOAT", map_form="DENSE", max_map=1):
    keys = sorted(X)
    if map_form == "DENSE":
        return _cast_values([X[k] for k in keys], cast_to).reshape(1, -1)
    if map_form != "SPARSE":
        raise ValueError(f"unknown map_form {map_form!r}")
    # Sparse: position = key, unmentioned positions hold the zero value.
    fill = "" if cast_to == "TO_STRING" else 0
    dense = [fill] * max_map
    for k in keys:
        if 0 <= k < max_map:
            dense[k] = X[k]
    return _cast_values(dense, cast_to).reshape(1, -1)


def _lookup(x, keys, values, default, out_dtype):
    """values[position of each x in keys], default where absent."""
    x = np.asarray(x)
    if x.dtype != object and len(keys) and not isinstance(keys[0], str):
        k = np.asarray(keys)
        order = np.argsort(k, kind="stable")
        sk = k[order]
        pos = np.clip(np.searchsorted(sk, x), 0, max(sk.size - 1, 0))
        found = sk[pos] == x
        vals = np.asarray(values, dtype=out_dtype if out_dtype != object else object)[order][pos]
        if out_dtype == object:
            return np.where(found, vals, default).astype(object)
        return np.where(found, vals, np.asarray(default, dtype=out_dtype)).astype(out_dtype)
    table = dict(zip(keys, values))
    out = np.empty(x.shape, dtype=out_dtype)
    flat = out.reshape(-1)
    for i, v in enumerate(x.reshape(-1)):
        flat[i] = table.get(v if isinstance(v, str) else v.item() if hasattr(v, "item") else v, default)
    return out


@kernel("CategoryMapper", since=1, domain=ML)
def category_mapper(X, cats_int64s=None, cats_strings=None, default_int64=-1, default_string="_Unused"):
    strings, numbers = list(cats_strings or []), ints(cats_int64s)
    if X.dtype == object:
        return _lookup(X, strings, numbers, default_int64, np.int64)
    return _lookup(X, numbers, strings, default_string, object)


@kernel("DictVectorizer", since=1, domain=ML)
def dict_vectorizer(X, int64_vocabulary=None, string_vocabulary=None):
    vocab = list(string_vocabulary) if string_vocabulary else ints(int64_vocabulary)
    sample = next(iter(X.values()), 0.0)
    dtype = object if isinstance(sample, str) else np.asarray(sample).dtype
    if dtype == np.float64 and not isinstance(sample, np.generic):
        dtype = np.float32          # plain Python floats come from float maps
    zero = "" if dtype == object else 0
    return np.array([[X.get(k, zero) for k in vocab]], dtype=dtype)


@kernel("FeatureVectorizer", since=1, domain=ML)
def feature_vectorizer(*inputs, inputdimensions=None):
    dims = ints(inputdimensions)
    parts = []
    for x, d in zip(inputs, dims):
        x = np.asarray(x, dtype=np.float32)
        rows = x.reshape(1, -1) if x.ndim <= 1 else x.reshape(x.shape[0], -1)
        # Each input contributes exactly its declared width: cut or zero-pad.
        if rows.shape[1] >= d:
            rows = rows[:, :d]
        else:
            rows = np.pad(rows, ((0, 0), (0, d - rows.shape[1])))
        parts.append(rows)
    return np.concatenate(parts, axis=1)


@kernel("Imputer", since=1, domain=ML)
def imputer(X, imputed_value_floats=None, imputed_value_int64s=None,
            replaced_value_float=0.0, replaced_value_int64=0):
    if X.dtype.kind == "f":
        fill = np.asarray(imputed_value_floats, dtype=X.dtype)
        missing = np.isnan(X) if np.isnan(replaced_value_float) else X == replaced_value_float
    else:
        fill = np.asarray(ints(imputed_value_int64s), dtype=X.dtype)
        missing = X == replaced_value_int64
    # One value for every feature, or one per feature (last axis).
    return np.where(missing, fill if fill.size > 1 else fill.reshape(()), X)


@kernel("LabelEncoder", since=1, domain=ML)
def label_encoder_v1(X, classes_strings=None, default_int64=-1, default_string="_Unused"):
    classes = list(classes_strings or [])
    if X.dtype == object:
        return _lookup(X, classes, list(range(len(classes))), default_int64, np.int64)
    return _lookup(X, list(range(len(classes))), classes, default_string, object)


def _encoder_side(strings, int64s, floats, tensor):
    if tensor is not None:
        t = np.asarray(tensor).reshape(-1)
        return (list(t) if t.dtype == object else t.tolist()), (object if t.dtype == object else t.dtype)
    if strings:
        return list(strings), object
    if int64s:
        return ints(int64s), np.dtype(np.int64)
    if floats:
        return [float(np.float32(v)) for v in floats], np.dtype(np.float32)
    return [], None


@kernel("LabelEncoder", since=2, domain=ML)
def label_encoder(X, default_float=-0.0, default_int64=-1, default_string="_Unused", default_tensor=None,
                  keys_floats=None, keys_int64s=None, keys_strings=None, keys_tensor=None,
                  values_floats=None, values_int64s=None, values_strings=None, values_tensor=None):
    # Opset 4 added the *_tensor forms (any key/value type); opset 2's list
    # attributes keep working, so one kernel covers 2 and 4.
    keys, _ = _encoder_side(keys_strings, keys_int64s, keys_floats, keys_tensor)
    values, vtype = _encoder_side(values_strings, values_int64s, values_floats, values_tensor)
    if default_tensor is not None:
        default = np.asarray(default_tensor).reshape(-1)[0]
    elif vtype == object:
        default = default_string
    elif vtype is not None and np.dtype(vtype).kind in "iu":
        default = default_int64
    else:
        default = default_float
    if X.dtype.kind == "f":
        keys = [np.asarray(k, dtype=X.dtype).item() for k in keys]
    return _lookup(X, keys, values, default, vtype)


@kernel("OneHotEncoder", since=1, domain=ML)
def one_hot_encoder(X, cats_int64s=None, cats_strings=None, zeros=1):
    cats = list(cats_strings) if cats_strings else ints(cats_int64s)
    positions = _lookup(X if X.dtype == object else X.astype(np.int64), cats,
                        list(range(len(cats))), -1, np.int64)
    if not zeros and np.any(positions < 0):
        raise ValueError("OneHotEncoder met a category it does not know and zeros=0")
    return (positions[..., None] == np.arange(len(cats))).astype(np.float32)


@kernel("ZipMap", since=1, domain=ML)
def zip_map(X, classlabels_int64s=None, classlabels_strings=None):
    labels = list(classlabels_strings) if classlabels_strings else ints(classlabels_int64s)
    # Each entry keeps X's element type (float32): tolist() made Python floats, which
    # the inspector could only call double, a type the output map does not declare.
    rows = np.asarray(X).reshape(-1, len(labels))
    return [dict(zip(labels, row)) for row in rows]
