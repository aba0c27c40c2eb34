"""Exceptions `core` raises for things a user did or a file contains.

Each message names the place (file, tensor, node) and says what to do; the
CLI and the app show it as is, never with a traceback.
"""


class CoreError(Exception):
    """Base of user-facing errors from core. The message is always one line:
    names from a damaged file can hold line breaks and other control
    characters, which are shown escaped (\\n, \\x1b)."""

    def __init__(self, message="", *args):
        super().__init__(one_line(str(message)), *args)


class LoadError(CoreError):
    """A file could not be read as an ONNX model."""


class SaveError(CoreError):
    """A model could not be written; the target was left as it was."""


class ExternalDataError(LoadError):
    """External tensor data is missing, unreadable or outside the model folder."""


def one_line(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text)
