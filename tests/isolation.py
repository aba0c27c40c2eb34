"""The environment every test runs in, set when tests/conftest.py imports
this module (before anything reads it), and the guard over the shared models.

A module of its own (not conftest.py) so that tests can import it by a name
no other folder's conftest shadows."""
import atexit
import os
import shutil
import tempfile

from shared_models import SHARED_MODELS
from shared_models_guard import SharedModelsGuard


def _isolate_user_folders() -> str:
    """Point HOME, the XDG folders and our own overrides at a fresh temporary
    folder, before anything reads them: tests (and the app or CLI processes
    they start, which inherit the environment) never touch the developer's
    settings, layout cache or recovery files. Unconditional on purpose: a
    developer's own ONNXSTUDIO_* settings must not leak into a test either.
    One folder per process (each xdist worker imports this file)."""
    root = tempfile.mkdtemp(prefix="onnxstudio-tests-")
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    folders = {
        "HOME": "home",
        "XDG_CONFIG_HOME": "home/.config",
        "XDG_CACHE_HOME": "home/.cache",
        "XDG_STATE_HOME": "home/.local/state",
        "XDG_DATA_HOME": "home/.local/share",
        "ONNXSTUDIO_LAYOUT_CACHE": "layout-cache",
        "ONNXSTUDIO_RECOVERY_DIR": "recovery",
        # Hypothesis 6.1xx caches constants it finds in the source under
        # its storage folder, by default .hypothesis/ in the working
        # directory (the checkout), whatever the example database setting.
        "HYPOTHESIS_STORAGE_DIRECTORY": "hypothesis",
    }
    for var, sub in folders.items():
        path = os.path.join(root, sub)
        os.makedirs(path, exist_ok=True)
        os.environ[var] = path
    os.environ["ONNXSTUDIO_SETTINGS"] = os.path.join(root, "settings.ini")
    os.environ["ONNXSTUDIO_TEST_ROOT"] = root
    return root


TEST_ROOT = _isolate_user_folders()
GUARD = SharedModelsGuard(SHARED_MODELS)
