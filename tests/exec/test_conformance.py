"""Every ONNX backend test case through our loader and executor.

Each failing case must be listed in EXCLUDED with the reason; an excluded case
that starts passing fails the test too, so the list only ever shrinks.
"""
import warnings

import numpy as np

import backend_data
from conformance import run_case

PASS_RATE = 0.97

BERNOULLI = ("random output: the expected values come from numpy's global RNG as the case generator left it "
             "(one stream for the input and the output); no implementation can reproduce them from the node")

# case id -> why it fails today
EXCLUDED: dict[str, str] = {
    "node/test_bernoulli": BERNOULLI,
    "node/test_bernoulli_double": BERNOULLI,
    "node/test_bernoulli_double_expanded": BERNOULLI,
    "node/test_bernoulli_expanded": BERNOULLI,
    "node/test_bernoulli_seed": BERNOULLI,
    "node/test_bernoulli_seed_expanded": BERNOULLI,
    "node/test_image_decoder_decode_jpeg2k_rgb": "needs a JPEG 2000 codec; ImageDecoder reads BMP, PNM, PNG, TIFF and baseline JPEG with numpy alone",
    "node/test_image_decoder_decode_webp_rgb": "needs a WebP (VP8) codec; ImageDecoder reads BMP, PNM, PNG, TIFF and baseline JPEG with numpy alone",
}


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
    print(f"\nbackend conformance: {passed} of {len(cases)} cases pass ({passed / len(cases):.1%})")
    unexpected = {k: v for k, v in failures.items() if k not in EXCLUDED}
    fixed = sorted(k for k in EXCLUDED if k not in failures)
    assert not unexpected, "new failures:\n" + "\n".join(f"{k}: {v[:200]}" for k, v in unexpected.items())
    assert not fixed, "these excluded cases pass now; remove them from EXCLUDED:\n" + "\n".join(fixed)
    assert passed >= PASS_RATE * len(cases)
