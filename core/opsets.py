"""Operator sets: one spelling of the default domain, one versioned lookup.

A node binds to the entry with the highest since_version <= the opset its
model imports for the node's domain. The executor's kernels, inference's
rules and the signature table all resolve (domain, op_type, opset) through
`VersionedTable`, and all spell the default domain "" (files may say
"ai.onnx")."""
from __future__ import annotations

import bisect
from typing import Generic, Iterator, Optional, TypeVar

DEFAULT_DOMAIN = ""

T = TypeVar("T")


def canonical_domain(domain: str) -> str:
    """"ai.onnx" and "" both name the default domain; we use ""."""
    return DEFAULT_DOMAIN if domain == "ai.onnx" else domain


def shown_domain(domain: str) -> str:
    """The domain as a person reads it ("ai.onnx" for the default one)."""
    return canonical_domain(domain) or "ai.onnx"


def imported_version(domain: str, opset_imports: dict) -> Optional[int]:
    """The version a model imports for `domain` ("" and "ai.onnx" are one)."""
    d = canonical_domain(domain)
    if d == DEFAULT_DOMAIN:
        return opset_imports.get("", opset_imports.get("ai.onnx"))
    return opset_imports.get(d)


class DuplicateEntryError(RuntimeError):
    pass


class VersionedTable(Generic[T]):
    """Entries per (domain, op_type), each valid from its since_version on."""

    def __init__(self, what: str):
        self.what = what                       # "kernel", "inference rule", ... for messages
        self._entries: dict[tuple[str, str], tuple[list[int], list[T]]] = {}

    def add(self, domain: str, op_type: str, since: int, entry: T) -> None:
        key = (canonical_domain(domain), op_type)
        sinces, entries = self._entries.setdefault(key, ([], []))
        if since in sinces:
            raise DuplicateEntryError(f"{self.what} {shown_domain(domain)}::{op_type} since {since} "
                                      f"registered twice")
        i = bisect.bisect_right(sinces, since)
        sinces.insert(i, since)
        entries.insert(i, entry)

    def find(self, domain: str, op_type: str, opset: int) -> Optional[T]:
        """The entry with the highest since_version <= opset, or None."""
        found = self._entries.get((canonical_domain(domain), op_type))
        if found is None:
            return None
        sinces, entries = found
        i = bisect.bisect_right(sinces, opset)
        return entries[i - 1] if i else None

    def versions(self, domain: str, op_type: str) -> list[T]:
        """Every entry of (domain, op_type), oldest first."""
        found = self._entries.get((canonical_domain(domain), op_type))
        return list(found[1]) if found else []

    def keys(self) -> set[tuple[str, str]]:
        return set(self._entries)

    def __iter__(self) -> Iterator[T]:
        for _, entries in self._entries.values():
            yield from entries
