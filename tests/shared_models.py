"""The one place that finds the shared models (real exported models the
tests run on). Every test, tool and benchmark asks here.

Where they are, first match wins:
1. `$ONNXSTUDIO_SHARED_MODELS`, when set (it must then exist: a wrong
   setting is an error, never a fallback);
2. `shared/models` beside the repository (CI clones the repository next to
   `shared/`), looked for beside every folder above the checkout, with and
   without following symbolic links.

When they are not found, tests that need them fail with a message saying
where we looked and how to point at them; they are never skipped, and the
rest of the suite still runs.
"""
from __future__ import annotations

import os
import pathlib

ENV = "ONNXSTUDIO_SHARED_MODELS"
REPO = pathlib.Path(__file__).resolve().parent.parent


def _candidates() -> list[pathlib.Path]:
    setting = os.environ.get(ENV)
    if setting:
        return [pathlib.Path(setting).expanduser()]
    out = []
    here = pathlib.Path(os.path.abspath(__file__)).parent.parent
    for repo in (here, REPO):
        for folder in (repo, *repo.parents):
            p = folder.parent / "shared" / "models"
            if p not in out:
                out.append(p)
    return out


def _locate() -> pathlib.Path:
    cands = _candidates()
    for p in cands:
        if p.is_dir():
            return p
    return cands[0]


SHARED_MODELS = _locate()


class SharedModelsMissing(RuntimeError):
    pass


def shared_models_root() -> pathlib.Path:
    """The shared models folder; raises SharedModelsMissing (never skips)."""
    if not SHARED_MODELS.is_dir():
        if os.environ.get(ENV):
            where = f"{ENV}={os.environ[ENV]} is not a folder"
        else:
            where = f"looked for shared/models beside {REPO} and the folders above it"
        raise SharedModelsMissing(f"shared models not found ({where}); "
                                  f"set {ENV} to the folder that holds bert_small/, silero_vad/ ...")
    return SHARED_MODELS


MISSING = "shared models not found - set ONNXSTUDIO_SHARED_MODELS"


def shared_model_dirs() -> list[pathlib.Path]:
    """Folders of the shared models that hold a model.onnx.

    When the models are missing this is one placeholder folder named after
    the problem: modules that parametrize over it at collection time still
    load (pytest would otherwise stop the whole run), and each test that
    uses it fails, its id and its file-not-found error saying what to set.
    """
    try:
        root = shared_models_root()
    except SharedModelsMissing:
        return [SHARED_MODELS / MISSING]
    dirs = sorted(p for p in root.iterdir() if (p / "model.onnx").is_file())
    if not dirs:
        raise SharedModelsMissing(f"no models (*/model.onnx) in {root}")
    return dirs


def shared_model_names() -> list[str]:
    """Names for parametrizing at collection time (the placeholder's name
    when the models are missing, see shared_model_dirs)."""
    return [p.name for p in shared_model_dirs()]


def shared_model(name: str) -> pathlib.Path:
    """The folder of one shared model (raises with the reason when missing)."""
    root = shared_models_root()
    folder = root / name
    if not (folder / "model.onnx").is_file():
        raise SharedModelsMissing(f"{folder / 'model.onnx'} not found")
    return folder
