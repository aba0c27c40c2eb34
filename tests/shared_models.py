"""Where ../shared/models lives (the real exported models tests run on)."""
import os
import pathlib

REPO = pathlib.Path(__file__).resolve().parent.parent
SHARED_MODELS = pathlib.Path(os.environ.get("ONNXSTUDIO_SHARED_MODELS", REPO.parent / "shared" / "models"))


def shared_model_dirs() -> list[pathlib.Path]:
    """Folders of ../shared/models; raises (never skips) when they are missing."""
    if not SHARED_MODELS.is_dir():
        raise RuntimeError(f"shared models not found at {SHARED_MODELS}; set ONNXSTUDIO_SHARED_MODELS")
    dirs = sorted(p for p in SHARED_MODELS.iterdir() if (p / "model.onnx").is_file())
    if not dirs:
        raise RuntimeError(f"no models in {SHARED_MODELS}")
    return dirs
