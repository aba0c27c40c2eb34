"""Errors raised while running a model."""
from ..errors import CoreError, one_line


class ExecError(CoreError):
    """A node failed; the message names the node, its op and its inputs.

    `node` is the node that failed, the innermost one when it sits in an
    If/Loop/Scan body or a function (the message's path leads there);
    `detail` is what the kernel or numpy said, when the message puts it in
    other words ("" otherwise); `via` the nodes calling the model-local
    functions `node` is inside, outermost first."""

    def __init__(self, message: str, node=None, detail: str = "", via: tuple = ()):
        super().__init__(message)
        self.node = node
        self.detail = detail
        self.via = tuple(via)


class KernelInputError(ValueError):
    """A kernel's inputs break a rule of the operator (the ONNX spec's, or
    onnxruntime's where it is stricter): the message says which, in a user's
    words. The session adds the node, its path and its inputs."""


class FeedError(CoreError):
    """An input value does not fit the model (missing, wrong type or shape)."""


class Cancelled(CoreError):
    """The run was cancelled (from another thread or by the user)."""


__all__ = ["ExecError", "KernelInputError", "FeedError", "Cancelled", "one_line"]
