"""Errors raised while running a model."""
from ..errors import CoreError


class ExecError(CoreError):
    """A node failed; the message names the node, its op and its inputs."""

    def __init__(self, message: str, node=None):
        super().__init__(message)
        self.node = node


class FeedError(CoreError):
    """An input value does not fit the model (missing, wrong type or shape)."""


class Cancelled(CoreError):
    """The run was cancelled (from another thread or by the user)."""
