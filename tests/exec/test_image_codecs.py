"""ImageDecoder on formats the numpy decoders leave to Pillow (JPEG 2000,
WebP, GIF, progressive JPEG), and the message when Pillow is missing."""
from __future__ import annotations

import io
import sys

import numpy as np
import pytest

from onnxstudio.core.exec.kernels.image_decoder import image_decoder

Image = pytest.importorskip("PIL.Image")


def _encoded(fmt: str, **options) -> tuple[np.ndarray, np.ndarray]:
    """(encoded bytes as uint8, the RGB pixels Pillow decodes from them)."""
    rng = np.random.default_rng(7)
    # 4x4 tiles of flat colour, so lossy codecs keep the picture recognisable.
    tiles = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
    picture = Image.fromarray(np.kron(tiles, np.ones((4, 4, 1), np.uint8)), "RGB")
    buf = io.BytesIO()
    picture.save(buf, format=fmt, **options)
    data = buf.getvalue()
    return np.frombuffer(data, np.uint8), np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


@pytest.mark.parametrize("fmt,options", [("JPEG2000", {}), ("WEBP", {}), ("WEBP", {"lossless": True}),
                                         ("GIF", {}), ("JPEG", {"progressive": True})])
def test_codec_formats_decode_like_pillow(fmt, options):
    encoded, expected = _encoded(fmt, **options)
    got = image_decoder(encoded)
    assert got.shape == (20, 24, 3) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(image_decoder(encoded, pixel_format="BGR"), expected[..., ::-1])


def test_without_pillow_the_error_names_the_format_and_the_fix(monkeypatch):
    encoded, _ = _encoded("WEBP")
    progressive, _ = _encoded("JPEG", progressive=True)
    monkeypatch.setitem(sys.modules, "PIL", None)     # makes `from PIL import Image` fail
    with pytest.raises(ValueError, match=r"a WebP image needs an image codec.*onnxstudio\[images\]"):
        image_decoder(encoded)
    with pytest.raises(ValueError, match="progressive"):
        image_decoder(progressive)


def test_a_corrupted_codec_image_names_its_format():
    encoded, _ = _encoded("JPEG2000")
    with pytest.raises(ValueError, match="cannot decode a JPEG 2000 image"):
        image_decoder(encoded[:len(encoded) // 3])
