"""Exceptions `core` raises for things a user did or a file contains.

Each message names the place (file, tensor, node) and says what to do; the
CLI and the app show it as is, never with a traceback.
"""


class CoreError(Exception):
    """Base of user-facing errors from core."""


class LoadError(CoreError):
    """A file could not be read as an ONNX model."""


class SaveError(CoreError):
    """A model could not be written; the target was left as it was."""


class ExternalDataError(LoadError):
    """External tensor data is missing, unreadable or outside the model folder."""
