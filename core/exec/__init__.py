"""The built-in numpy executor.

    from onnxstudio.core.exec import run, Session
    outputs = run(model, {"x": x})
"""
from .errors import Cancelled, ExecError, FeedError
from .session import Session, StepResult, run

__all__ = ["Cancelled", "ExecError", "FeedError", "Session", "StepResult", "run"]
