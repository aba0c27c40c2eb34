"""The one dims grammar (core/dims_text.py) that set-shape, run --dim, the
app's editors and core's edits share: what it reads, and that whatever it
cannot represent exactly is refused naming the dim and the bad part."""
import pytest

from onnxstudio.core.dims_text import INT64_MAX, DimsTextError, format_dims, parse_dim, parse_dims, parse_size
from onnxstudio.core.edits import EditError
from onnxstudio.core.edits.values import norm_shape


def test_sizes_names_and_unknown():
    assert parse_dims("1, 3, batch, ?") == [1, 3, "batch", None]
    assert parse_dims("[N, 3]") == ["N", 3]
    assert parse_dims("") == [] and parse_dims("[]") == []
    assert parse_dims("p2o.DynamicDimension.0,input:0,_x,+4,007") == ["p2o.DynamicDimension.0", "input:0", "_x", 4, 7]
    assert parse_dims(str(INT64_MAX)) == [INT64_MAX]
    assert parse_dims("abc") == ["abc"]
    assert parse_dim(" ? ") is None


@pytest.mark.parametrize("text, reason, index, words", [
    ("1,3,2.5,4", "fraction", 2, "dim 2 is 2.5: a size is a whole number"),
    ("1e3", "fraction", 0, "whole number"),
    ("1,3,99999999999999999999999,4", "too_large", 2, "dim 2 is 99999999999999999999999: a size must fit in int64"),
    (str(INT64_MAX + 1), "too_large", 0, "int64"),
    ("1,-3", "negative", 1, "dim 1 is -3: a size cannot be negative"),
    ("1,,2", "empty", 1, "dim 1 is empty"),
    ("'3'", "not_a_dim", 0, "no quotes"),
    ("a b", "not_a_dim", 0, "'a b' is neither"),
    ("1,$", "not_a_dim", 1, "'$' is neither"),
    ("2x", "not_a_dim", 0, "'2x' is neither"),
])
def test_what_cannot_be_represented_exactly_is_refused(text, reason, index, words):
    with pytest.raises(DimsTextError) as e:
        parse_dims(text)
    assert (e.value.reason, e.value.index) == (reason, index)
    assert words in str(e.value)


def test_a_single_size():
    assert parse_size(" 32 ") == 32
    for bad in ("seq", "?", "-1", "1.5", str(INT64_MAX + 1)):
        with pytest.raises(DimsTextError):
            parse_size(bad)


def test_format_reads_back():
    shape = (1, "batch", None, INT64_MAX)
    assert parse_dims(format_dims(shape)) == list(shape)


def test_core_edits_read_string_dims_with_the_same_rules():
    assert norm_shape(["1", "?", "", "batch", 3, None, -1], "x") == (1, None, None, "batch", 3, None, -1)
    # names read from files or made by inference may be any text: kept as they are
    assert norm_shape(["seq + 1", "floor(h/2)"], "x") == ("seq + 1", "floor(h/2)")
    for bad, words in (("2.5", "dim 0 is 2.5: a size is a whole number"), ("-3", "cannot be negative"),
                       ("99999999999999999999999", "int64"), (2 ** 63, "int64"), (-2 ** 63 - 1, "int64")):
        with pytest.raises(EditError, match=words):
            norm_shape([bad], 'graph/input "x"')


def test_names_already_in_the_shape_being_edited_stay_as_they_are():
    known = ("floor((x.2+1)/2)", 3, "seq + 1")
    assert parse_dims("floor((x.2+1)/2), 4, seq + 1", known) == ["floor((x.2+1)/2)", 4, "seq + 1"]
    # only at their own position, and only names: typed elsewhere they are refused
    with pytest.raises(DimsTextError, match="dim 1: 'seq \\+ 1' is neither"):
        parse_dims("1, seq + 1", known)
