"""Images the built-in decoders do not read, handed to Pillow when it is
installed.

The numpy decoders cover the formats models are usually fed (PNG, BMP, PNM,
TIFF, baseline JPEG). Formats whose codecs are whole projects of their own
(JPEG 2000's wavelet coder, WebP's VP8, progressive JPEG, GIF's LZW frames)
are decoded by Pillow, an optional dependency (`onnxstudio[images]`); without
it the error names the format and says what to install.
"""
from __future__ import annotations

import io

import numpy as np


class NeedsCodec(ValueError):
    """A format or variant the built-in decoders do not implement (as opposed
    to a file that is broken)."""

    def __init__(self, what: str):
        super().__init__(f"ImageDecoder: {what} needs an image codec")
        self.what = what


def decode_with_pillow(buf: bytes, what: str) -> np.ndarray:
    """RGB uint8 [H, W, 3] decoded by Pillow; `what` names the format for
    the error messages."""
    try:
        from PIL import Image  # noqa: PLC0415 - optional, imported only for these formats
    except ImportError:
        raise ValueError(f"ImageDecoder: {what} needs an image codec, and Pillow is not installed. The built-in "
                         "decoder reads PNG, BMP, PNM, TIFF and baseline JPEG; install Pillow "
                         "(pip install 'onnxstudio[images]') to decode this image.") from None
    try:
        with Image.open(io.BytesIO(buf)) as image:
            return np.asarray(image.convert("RGB"), dtype=np.uint8)
    except Exception as e:  # noqa: BLE001 - Pillow raises many kinds; the user needs the format and the reason
        raise ValueError(f"ImageDecoder: cannot decode {what}: it is truncated, corrupted or a variant Pillow "
                         f"does not read ({type(e).__name__}: {e})") from e
