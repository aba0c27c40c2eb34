"""Executor tests fail when a merged unit or an in-place step fell back to
the general path and the general path then computed what the fast form
could not: a silent fallback is a bug in the fast form (core/exec/fallbacks.py)."""
import pytest

from onnxstudio.core.exec import fallbacks


@pytest.fixture(autouse=True)
def _no_silent_fallbacks(request):
    """(A test that plants a failing unit resets the count itself.)"""
    fallbacks.reset()
    yield
    happened = fallbacks.silent()
    fallbacks.reset()
    if happened:
        pytest.fail(f"{request.node.nodeid}: merged units fell back to the general path where it "
                    f"succeeded: {happened} (core/exec/fallbacks.py)", pytrace=False)
