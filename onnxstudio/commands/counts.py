"""Counts in the commands' English output."""


def counted(n: int, noun: str, plural: str = "") -> str:
    """'1 node', '3 nodes' ('1 entry', '2 entries' with `plural`)."""
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
