"""Test-wide setup: Qt without a display, every per-user folder inside a
temporary one, the shared models guarded, and a fixture over them."""
import os

# Qt aborts without a display unless told to draw offscreen.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# First: sets the environment every test (and every process a test starts) runs in.
from isolation import GUARD  # noqa: E402

import pytest  # noqa: E402

from shared_models import shared_model, shared_model_names  # noqa: E402

# Random edit sequences keep no example database (it would be written into
# the checkout as .hypothesis/).
try:
    from hypothesis import settings as _hypothesis_settings
    _hypothesis_settings.register_profile("onnxstudio", database=None)
    _hypothesis_settings.load_profile("onnxstudio")
except ImportError:  # hypothesis is a test extra; tests that need it say so
    pass


@pytest.fixture(autouse=True)
def _shared_models_untouched(request):
    """Every test leaves the shared models as it found them (they are inputs,
    read-only in CI; running as root, file modes would not stop a save)."""
    yield
    changed = GUARD.changes()
    if changed:
        GUARD.rebase()        # report each change once, at the test that made it
        pytest.fail(f"{request.node.nodeid} changed shared model files: {', '.join(changed)}; "
                    f"tests must copy a shared model into tmp_path before writing", pytrace=False)


# Missing shared models fail these tests with the reason; the rest still runs.
@pytest.fixture(params=shared_model_names())
def shared_model_dir(request):
    return shared_model(request.param)
