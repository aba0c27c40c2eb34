"""Test-wide setup: Qt without a display, and a fixture over the shared models."""
import os

# Qt aborts without a display unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from shared_models import shared_model, shared_model_names  # noqa: E402


# Missing shared models fail these tests with the reason; the rest still runs.
@pytest.fixture(params=shared_model_names())
def shared_model_dir(request):
    return shared_model(request.param)
