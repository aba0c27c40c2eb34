"""The built-in numpy executor.

    from onnxstudio.core.exec import run, Session
    outputs = run(model, {"x": x})
"""
from .errors import Cancelled, ExecError, FeedError


def __getattr__(name):
    # The session (and with it every kernel, ~0.2 s to import) loads on first
    # use: the app's panels import light modules of this package (errors,
    # values, input generation) while the window is being built.
    if name in ("Session", "StepResult", "run"):
        from . import session
        return getattr(session, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["Cancelled", "ExecError", "FeedError", "Session", "StepResult", "run"]
