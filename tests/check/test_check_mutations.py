"""Break valid models one rule at a time; every mutant must get an error with
the right code at the right path."""
from __future__ import annotations

import pytest

from check_bases import base_names, load_base
from check_mutations import MUTATIONS
from onnxstudio.core.check import ERROR, check


def _cases():
    cases = []
    for base in base_names():
        for mutate in MUTATIONS:
            if mutate(load_base(base)) is not None:
                cases.append(pytest.param(base, mutate, id=f"{mutate.__name__}-{base}"))
    return cases


CASES = _cases()


def test_suite_is_broad():
    kinds = {c.values[1].__name__ for c in CASES}
    assert len(kinds) == len(MUTATIONS) >= 40, sorted(set(m.__name__ for m in MUTATIONS) - kinds)
    assert len(CASES) >= 300


@pytest.mark.parametrize("base,mutate", CASES)
def test_mutant_is_caught_at_its_place(base, mutate, tmp_path):
    model = load_base(base)
    code, path, exact = mutate(model)
    diags = check(model, model_dir=tmp_path)
    hits = [d for d in diags if d.code == code and (d.path == path if exact else d.path.startswith(path))]
    assert hits, f"expected {code} at {path}; got:\n" + "\n".join(map(str, diags))
    assert all(h.severity == ERROR for h in hits)
    assert all(h.message for h in hits)


@pytest.mark.parametrize("base", base_names())
def test_bases_are_clean(base, tmp_path):
    errors = [d for d in check(load_base(base), model_dir=tmp_path) if d.severity == ERROR]
    assert not errors, "\n".join(map(str, errors))
