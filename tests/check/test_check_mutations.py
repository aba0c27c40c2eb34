"""Break valid models one rule at a time; every mutant must get an error with
the right code at the right path."""
from __future__ import annotations

import pytest

import mutations_text
from check_bases import BUILT, base_names, load_base
from check_mutations import MUTATIONS, mutant_cases
from onnxstudio import core
from onnxstudio.core.check import ERROR, LiveChecker, check


CASES = mutant_cases()


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


def _verdict(diagnostics) -> list:
    return sorted((d.code, d.path, str(d.severity), d.message) for d in diagnostics)


@pytest.mark.parametrize("base,mutate", CASES)
def test_the_app_judges_a_mutant_as_its_file(base, mutate, tmp_path):
    """The app checks the IR it loaded, not the file: whatever the IR holds
    once per key (a repeated attribute, metadata key or function) or
    decodes (a tensor attribute without a tensor, an external data reference
    that cannot be followed) must still reach the rules. Every mutant opens;
    both the one-off check and the live checker give the file's verdict,
    word for word."""
    model = load_base(base)
    mutate(model)
    path = tmp_path / "mutant.onnx"
    path.write_bytes(model.SerializeToString())
    want = _verdict(check(path))
    loaded = core.load(path)            # a tensor whose external data cannot be read opens, marked
    loaded.graph                        # built on first use, as the app's open does
    assert _verdict(check(loaded, use_inference=False)) == want
    assert _verdict(LiveChecker(loaded).diagnostics) == want


@pytest.mark.parametrize("mutate", mutations_text.MUTATIONS, ids=lambda m: m.__name__)
def test_damaged_text_findings_say_how_a_save_keeps_it(mutate, tmp_path):
    """Each text.invalid-utf8 finding says what a save does with the text:
    written with U+FFFD (the saved file is then clean of it) or kept as read
    (the saved file still has it, in the same words)."""
    applied = 0
    for base in BUILT:
        model = load_base(base)
        if mutate(model) is None:
            continue
        applied += 1
        path = tmp_path / f"{base}.onnx"
        path.write_bytes(model.SerializeToString())
        found = [d for d in check(path) if d.code == "text.invalid-utf8"]
        assert found
        saved = tmp_path / f"{base}-saved.onnx"
        core.save(core.load(path), saved)
        left = sorted((d.path, d.message) for d in check(saved) if d.code == "text.invalid-utf8")
        assert left == sorted((d.path, d.message) for d in found if "saves the bytes as read" in d.message)
        assert all("saves these with U+FFFD" in d.message for d in found if (d.path, d.message) not in left)
    assert applied


def _string_fields(msg, where=()):
    """Every set string field of `msg` and the messages below it, as a
    path of (field, index or None) steps."""
    for fd, value in msg.ListFields():
        if fd.type == fd.TYPE_STRING:
            yield from ((where + ((fd.name, i),) for i in range(len(value))) if fd.is_repeated
                        else [where + ((fd.name, None),)])
        elif fd.type == fd.TYPE_MESSAGE:
            for i, sub in (enumerate(value) if fd.is_repeated else [(None, value)]):
                yield from _string_fields(sub, where + ((fd.name, i),))


def _append_mark(model, steps) -> None:
    owner = model
    for name, i in steps[:-1]:
        owner = getattr(owner, name) if i is None else getattr(owner, name)[i]
    name, i = steps[-1]
    if i is None:
        setattr(owner, name, getattr(owner, name) + mutations_text.MARK)
    else:
        getattr(owner, name)[i] += mutations_text.MARK


@pytest.mark.parametrize("base", list(BUILT))
def test_damaged_text_in_any_field_gets_the_files_verdict_in_the_app(base, tmp_path):
    """Invalid UTF-8 in any one string field of a base (names, op types,
    domains, dims, bindings...): the check of the loaded model and the live
    checker say what `onnxstudio check` says, word for word, and no message
    shows a bytes literal."""
    path = tmp_path / "damaged.onnx"
    fields = list(_string_fields(load_base(base)))
    assert len(fields) > 20
    for steps in fields:
        model = load_base(base)
        _append_mark(model, steps)
        mutations_text._damage(model, ("", "", True))
        path.write_bytes(model.SerializeToString())
        want = _verdict(check(path))
        assert not [m for *_, m in want if "\\x" in m], (steps, want)     # bytes' repr escapes what is not UTF-8
        loaded = core.load(path)
        loaded.graph
        assert _verdict(check(loaded, use_inference=False)) == want, steps
        assert _verdict(LiveChecker(loaded).diagnostics) == want, steps
