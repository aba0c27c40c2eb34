"""fast_steps.frozen: what remembered shape arithmetic and shape blocks may
hand out again on later runs (one rule for both; the step memo used to
refuse numpy scalars that shape blocks kept)."""
import numpy as np

from onnxstudio.core.exec.fast_steps import _frozen, frozen


def test_arrays_come_back_read_only_and_owning_their_memory():
    fed = np.arange(6, dtype=np.int64)
    view = fed[:3]
    kept = frozen([view, np.array([7])], 16)
    assert [k.tolist() for k in kept] == [[0, 1, 2], [7]]
    assert all(not k.flags.writeable and k.base is None for k in kept)
    fed[0] = 99                      # the caller changing its array changes nothing kept
    assert kept[0][0] == 0


def test_numpy_scalars_are_kept_as_they_are():
    s = np.int64(3)
    assert frozen([s], 16)[0] is s
    assert _frozen(s) is s


def test_anything_else_or_too_large_is_not_kept():
    assert frozen([np.zeros(17)], 16) is None
    assert frozen([np.zeros(2), [1, 2]], 16) is None
    assert frozen([None], 16) is None


def test_a_step_result_keeps_its_form():
    one = _frozen(np.zeros(2))
    assert type(one) is np.ndarray
    pair = _frozen((np.zeros(2), np.ones(1)))
    assert type(pair) is tuple and len(pair) == 2
