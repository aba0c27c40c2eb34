"""Errors meant for the person at the keyboard."""


class UserError(Exception):
    """A problem the user can fix; shown as one line, never with a traceback."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
