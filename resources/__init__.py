"""Bundled resources: sample models, icons, styles."""
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent


def sample_path(name: str = "demo.onnx") -> pathlib.Path:
    """Path of a bundled sample model."""
    return ROOT / "samples" / name
