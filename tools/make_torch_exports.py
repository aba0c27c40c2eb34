"""Build tests/data/torch_exports/tiny_legacy.onnx and tiny_dynamo.onnx: one
small PyTorch model exported twice, by the legacy TorchScript exporter
(dynamo=False) and by the dynamo exporter (dynamo=True), so that
tests/diff/test_torch_exports.py can diff a real re-export (issue 24).

torch is not a project dependency and must not become one, so this script
runs in a throwaway venv of its own:

    python3 -m venv /tmp/torchvenv
    /tmp/torchvenv/bin/pip install torch==2.13.0 onnxscript onnx
    /tmp/torchvenv/bin/python tools/make_torch_exports.py

Commit the two files it writes with any change to it.
"""
import pathlib

import torch
from torch import nn

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "torch_exports"
OPSET = 18


class TinyBlock(nn.Module):
    """A conv stem, then one pre-norm self-attention block with an MLP: the
    ops a re-export of a real model touches (Conv, LayerNorm, MatMul with
    bias, Softmax, reshapes and transposes), at a few KB of weights."""

    def __init__(self, channels: int = 8, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.stem = nn.Conv2d(3, channels, kernel_size=3, stride=2, padding=1)
        self.norm1 = nn.LayerNorm(channels)
        self.qkv = nn.Linear(channels, 3 * channels)
        self.proj = nn.Linear(channels, channels)
        self.norm2 = nn.LayerNorm(channels)
        self.fc1 = nn.Linear(channels, 2 * channels)
        self.fc2 = nn.Linear(2 * channels, channels)
        self.head = nn.Linear(channels, 4)

    def forward(self, x):
        x = torch.relu(self.stem(x))                      # (1, C, 4, 4)
        b, c, h, w = x.shape
        t = x.flatten(2).transpose(1, 2)                  # (1, 16, C) tokens
        q, k, v = self.qkv(self.norm1(t)).chunk(3, dim=-1)
        d = c // self.heads
        q, k, v = (z.reshape(b, h * w, self.heads, d).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) * (d ** -0.5), dim=-1)
        t = t + self.proj((att @ v).transpose(1, 2).reshape(b, h * w, c))
        t = t + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm2(t))))
        return self.head(t.mean(dim=1))


def main() -> None:
    torch.manual_seed(24)
    model = TinyBlock().eval()
    # Nudge every parameter off its initial value: LayerNorm starts at all
    # ones and zeros, and both exporters share equal weights between layers,
    # which would leave norm2's weights as norm1's (an Identity in legacy).
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.1)
    example = (torch.randn(1, 3, 8, 8),)
    OUT.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(model, example, str(OUT / "tiny_legacy.onnx"), dynamo=False, opset_version=OPSET,
                      input_names=["pixels"], output_names=["logits"])
    program = torch.onnx.export(model, example, dynamo=True, opset_version=OPSET,
                                input_names=["pixels"], output_names=["logits"])
    # Weights inside the file (not beside it), so each export is one file.
    program.save(str(OUT / "tiny_dynamo.onnx"), external_data=False)
    for name in ("tiny_legacy.onnx", "tiny_dynamo.onnx"):
        print(name, (OUT / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()
