"""ai.onnx.ml operators (the classic scikit-learn style models)."""
from __future__ import annotations

from ..ir.dtypes import DataType
from ..ir.types import MapType, SequenceType, TensorType
from .context import rule, tensor
from .findings import DIM, RANK, dims_differ, input_label, show

ML = "ai.onnx.ml"
FLOAT, INT64, STRING = DataType.FLOAT, DataType.INT64, DataType.STRING


def _rows(ctx):
    s = ctx.shape(0)
    if s is None or not s:
        return None
    return s[0] if len(s) == 2 else (1 if len(s) == 1 else s[0])


@rule("Binarizer", "Imputer", domain=ML)
def same_as_input(ctx):
    return [ctx.type(0)]


@rule("Normalizer", "Scaler", domain=ML)
def float_same_shape(ctx):
    return [tensor(FLOAT, ctx.shape(0))]


@rule("ArrayFeatureExtractor", domain=ML)
def array_feature_extractor(ctx):
    x, idx = ctx.shape(0), ctx.shape(1)
    if x is None:
        return [tensor(ctx.elem(0), None)]
    n = None
    if idx is not None:
        n = 1
        for d in idx:
            n = n * d if isinstance(d, int) and isinstance(n, int) else None
    if len(x) == 1:
        return [tensor(ctx.elem(0), (1, n))]
    return [tensor(ctx.elem(0), x[:-1] + (n,))]


@rule("CastMap", domain=ML)
def cast_map(ctx):
    to = ctx.attr("cast_to", "TO_FLOAT")
    elem = {"TO_FLOAT": FLOAT, "TO_STRING": STRING, "TO_INT64": INT64}.get(to, FLOAT)
    return [tensor(elem, (1, None))]


@rule("CategoryMapper", domain=ML)
def category_mapper(ctx):
    return [tensor(INT64 if ctx.elem(0) == STRING else STRING, ctx.shape(0))]


@rule("DictVectorizer", domain=ML)
def dict_vectorizer(ctx):
    m = ctx.type(0)
    elem = m.value.elem_type if isinstance(m, MapType) and isinstance(m.value, TensorType) else 0
    n = len(ctx.attr("int64_vocabulary", []) or ctx.attr("string_vocabulary", []) or []) or None
    return [tensor(elem, (1, n))]


@rule("FeatureVectorizer", domain=ML)
def feature_vectorizer(ctx):
    dims = ctx.attr("inputdimensions")
    width = sum(dims) if dims else None
    return [tensor(FLOAT, (_rows(ctx), width))]


@rule("LabelEncoder", domain=ML)
def label_encoder(ctx):
    a = ctx.attrs
    if "values_tensor" in a:
        elem = int(a["values_tensor"].dtype)
    elif "values_strings" in a:
        elem = STRING
    elif "values_int64s" in a:
        elem = INT64
    elif "values_floats" in a:
        elem = FLOAT
    elif ctx.opset < 2 or "default_string" in a or "default_int64" in a:
        elem = INT64 if ctx.elem(0) == STRING else STRING
    else:
        elem = 0
    return [tensor(elem, ctx.shape(0))]


def _label_elem(ctx):
    return STRING if ctx.attr("classlabels_strings") else INT64


@rule("LinearClassifier", domain=ML)
def linear_classifier(ctx):
    labels = ctx.attr("classlabels_strings") or ctx.attr("classlabels_ints") or []
    n_cls = len(labels)
    # One score column per intercept, except that a binary classifier with a
    # single intercept still reports both classes.
    intercepts = ctx.attr("intercepts")
    width = len(intercepts) if intercepts is not None else n_cls
    if n_cls == 2 and width == 1:
        width = 2
    return [tensor(_label_elem(ctx), (_rows(ctx),)), tensor(FLOAT, (_rows(ctx), width or None))]


@rule("LinearRegressor", domain=ML)
def linear_regressor(ctx):
    return [tensor(FLOAT, (_rows(ctx), ctx.attr("targets", 1)))]


@rule("SVMClassifier", domain=ML)
def svm_classifier(ctx):
    labels = ctx.attr("classlabels_strings") or ctx.attr("classlabels_ints") or []
    return [tensor(_label_elem(ctx), (_rows(ctx),)), tensor(FLOAT, (_rows(ctx), len(labels) or None))]


@rule("SVMRegressor", domain=ML)
def svm_regressor(ctx):
    return [tensor(FLOAT, (_rows(ctx), 1))]


@rule("OneHotEncoder", domain=ML)
def one_hot_encoder(ctx):
    cats = ctx.attr("cats_int64s") or ctx.attr("cats_strings") or []
    s = ctx.shape(0)
    return [tensor(FLOAT, None if s is None else s + (len(cats),))]


@rule("TreeEnsembleClassifier", domain=ML)
def tree_classifier(ctx):
    labels = ctx.attr("classlabels_strings") or ctx.attr("classlabels_int64s") or []
    elem = STRING if ctx.attr("classlabels_strings") else INT64
    return [tensor(elem, (_rows(ctx),)), tensor(FLOAT, (_rows(ctx), len(labels) or None))]


@rule("TreeEnsembleRegressor", domain=ML)
def tree_regressor(ctx):
    return [tensor(FLOAT, (_rows(ctx), ctx.attr("n_targets", 1)))]


@rule("TreeEnsemble", domain=ML)
def tree_ensemble(ctx):
    return [tensor(ctx.elem(0), (_rows(ctx), ctx.attr("n_targets")))]


@rule("ZipMap", domain=ML)
def zip_map(ctx):
    strings, ints = ctx.attr("classlabels_strings"), ctx.attr("classlabels_int64s")
    key = STRING if strings else INT64
    x = ctx.shape(0)
    if x is not None and len(x) not in (1, 2):
        # onnx and onnxruntime refuse any other rank ("1D or 2D").
        ctx.error(RANK, f"{input_label(ctx, 0)} has rank {len(x)} {show(x)} but ZipMap takes [N, C] or [C]")
    elif x is not None and bool(strings) != bool(ints) and dims_differ(x[-1], len(strings or ints)):
        # One map entry per column: onnxruntime refuses to run any other width.
        # (Both or neither list of labels is the checker's attr.one-of.)
        what = "classlabels_strings" if strings else "classlabels_int64s"
        ctx.error(DIM, f"{input_label(ctx, 0)} has {x[-1]} {'columns' if len(x) == 2 else 'entries'} {show(x)} "
                       f"but ZipMap's {what} has "
                       f"{len(strings or ints)} labels; it needs one label per column")
    return [SequenceType(MapType(key, tensor(FLOAT, None)))]
