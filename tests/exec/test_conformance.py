"""Every ONNX backend test case through our loader and executor.

Each failing case must be listed in EXCLUDED with the reason; an excluded case
that starts passing fails the test too, so the list only ever shrinks.
"""
import warnings

import numpy as np
import pytest

import backend_data
from conformance import is_random_draw, run_case

PASS_RATE = 0.97

# case id -> why it fails today. Empty: keep it so. (The ImageDecoder cases
# for JPEG 2000 and WebP need Pillow, which the test extra installs.)
EXCLUDED: dict[str, str] = {}


@pytest.mark.slow
def test_backend_conformance():
    cases = backend_data.all_cases()
    assert len(cases) > 2000
    failures = {}
    warnings.simplefilter("ignore")
    with np.errstate(all="ignore"):
        for case in cases:
            why = run_case(case)
            if why:
                failures[case.id] = why
    passed = len(cases) - len(failures)
    draws = sum(1 for case in cases if is_random_draw(case) and case.id not in failures)
    print(f"\nbackend conformance: {passed} of {len(cases)} cases pass ({passed / len(cases):.1%}; "
          f"{draws} of them are random draws, judged by the draw's properties)")
    unexpected = {k: v for k, v in failures.items() if k not in EXCLUDED}
    fixed = sorted(k for k in EXCLUDED if k not in failures)
    assert not unexpected, "new failures:\n" + "\n".join(f"{k}: {v[:200]}" for k, v in unexpected.items())
    assert not fixed, "these excluded cases pass now; remove them from EXCLUDED:\n" + "\n".join(fixed)
    assert passed >= PASS_RATE * len(cases)
