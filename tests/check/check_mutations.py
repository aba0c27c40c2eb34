"""Mutations that each break one rule of a valid model.

A mutation takes an `onnx.ModelProto`, changes it in place and returns
(expected code, expected path, exact) — exact=False means the diagnostic path
must start with the given prefix — or None when the model has nothing the
mutation can break. Paths are spelled here independently of the checker's
own path helpers so a wrong path in the checker fails the suite.
"""
from __future__ import annotations

import pytest

import mutations_data
import mutations_graph
import mutations_nodes
import mutations_operators
import mutations_scopes
import mutations_text

MUTATIONS = (mutations_graph.MUTATIONS + mutations_nodes.MUTATIONS + mutations_data.MUTATIONS
             + mutations_scopes.MUTATIONS + mutations_operators.MUTATIONS + mutations_text.MUTATIONS)


def mutant_cases() -> list:
    """pytest params (base, mutation) for every mutation on every base it
    applies to, named mutation-base."""
    from check_bases import base_names, load_base  # noqa: PLC0415
    return [pytest.param(base, mutate, id=f"{mutate.__name__}-{base}")
            for base in base_names() for mutate in MUTATIONS if mutate(load_base(base)) is not None]
