"""Test-wide setup: Qt without a display, and a fixture over the shared models."""
import os

# Qt aborts without a display unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from shared_models import SHARED_MODELS, shared_model_dirs  # noqa: E402


@pytest.fixture(params=[p.name for p in shared_model_dirs()])
def shared_model_dir(request):
    return SHARED_MODELS / request.param
