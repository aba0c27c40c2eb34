"""DEV TOOL, NOT RUN BY TESTS OR CI: it needs torch, torchvision and
transformers, which are not (and must not become) project dependencies.

Makes real exported models the way users make them, and runs our whole tool
chain on them (the rehearsal of the held-out evaluation, issue h29). Two modes:

1. make: in a throwaway venv of its own (never the app's .venv)

       python3 -m venv /tmp/tv
       /tmp/tv/bin/pip install torch torchvision transformers onnx onnxscript onnxruntime
       /tmp/tv/bin/python tools/make_real_models.py make [--out /tmp/realmodels] [--only NAME ...]

   builds each model below from a config with random (seeded) weights (no
   pretrained downloads), exports it with torch's dynamo exporter
   (dynamo=True) or the legacy TorchScript one (dynamo=False) at the opset
   given, some with external data, some with dynamic axes, and writes
   OUT/<name>/model.onnx, inputs.npz (sample inputs by graph input name) and
   torch_outputs.npz (what torch computed, by graph output name). A model
   whose export fails is reported and skipped (OUT/<name>/export_error.txt).

2. evaluate: with the app's venv, which has onnx and onnxruntime as test oracles

       .venv/bin/python tools/make_real_models.py evaluate [--out /tmp/realmodels] [--only NAME ...]

   per model: onnx.checker (full_check) and onnxruntime's verdict, then
   `onnxstudio check`, `onnxstudio info`, a run with our executor compared
   output by output with onnxruntime (max abs and relative error, time of the
   first run and the fastest of runs 4-6 of each), our inferred types against
   the shapes the run gave every value, `onnxstudio run --compare-onnxruntime`
   and `onnxstudio render`; writes OUT/<name>/evaluation.json and prints one
   table. The time to the first painted canvas in the app comes from
   `benchmarks/open.py OUT/*/model.onnx --display offscreen`.
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

OUT = pathlib.Path("/tmp/realmodels")
SEED = 29
RUNS = 5            # timed runs after the first of each runtime; the fastest of the last three counts
# Sizes of the dynamic axes in the second run of a model that has them.
OTHER_SIZES = {"batch": 3, "seq": 7, "past": 9, "height": 160, "width": 192}


# ---------------------------------------------------------------- make (torch)

def calibrate_batchnorm(model, batch):
    """Set every BatchNorm's running statistics from a random batch, as training
    would: with freshly initialised ones (mean 0, variance 1) the activations of
    mobilenet_v3 and efficientnet fade to outputs of 1e-9 and 1e-14, where any
    two runtimes agree and a comparison says nothing."""
    import torch
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    model.eval()
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None            # a plain average over the batches seen
        norm.train()
    with torch.no_grad():
        model(batch)
    model.eval()
    return model


def vision(builder: str, size: int = 224, dynamic: bool = False, half: bool = False, **kwargs):
    """A torchvision classifier (random weights) and one image batch; with
    dynamic=True batch, height and width are dynamic axes; half=True in float16."""
    import torch
    import torchvision
    model = getattr(torchvision.models, builder)(weights=None, **kwargs)
    calibrate_batchnorm(model, torch.randn(8, 3, size, size))
    image = torch.randn(1, 3, size, size)
    if half:
        model, image = model.half(), image.half()
    axes = {"pixels": {0: "batch", 2: "height", 3: "width"}} if dynamic else None
    return model, (image,), ["pixels"], axes


def kv_decoder(**_):
    """One step of a small decoder with a KV cache, written as users write one:
    the new tokens' keys and values are appended to the past ones (inputs
    past_key, past_value of a dynamic length) and returned as the present."""
    import torch
    from torch import nn

    class Step(nn.Module):
        def __init__(self, vocab=500, dim=64, heads=4, layers=2):
            super().__init__()
            self.heads, self.layers = heads, layers
            self.embed = nn.Embedding(vocab, dim)
            self.qkv = nn.ModuleList(nn.Linear(dim, 3 * dim) for _ in range(layers))
            self.out = nn.ModuleList(nn.Linear(dim, dim) for _ in range(layers))
            self.norm = nn.LayerNorm(dim)
            self.head = nn.Linear(dim, vocab)

        def forward(self, input_ids, past_key, past_value):
            x = self.embed(input_ids)                                   # (B, T, D)
            b, t, d = x.shape
            keys, values = [], []
            for i in range(self.layers):
                q, k, v = self.qkv[i](x).chunk(3, dim=-1)
                q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
                k = torch.cat([past_key[i], k], dim=2)
                v = torch.cat([past_value[i], v], dim=2)
                keys.append(k)
                values.append(v)
                a = nn.functional.scaled_dot_product_attention(q, k, v)
                x = x + self.out[i](a.transpose(1, 2).reshape(b, t, d))
            return self.head(self.norm(x)), torch.stack(keys), torch.stack(values)
    past = torch.randn(2, 1, 4, 5, 16)
    axes = {"input_ids": {0: "batch", 1: "seq"}, "past_key": {1: "batch", 3: "past"},
            "past_value": {1: "batch", 3: "past"}}
    return Step(), (torch.randint(0, 500, (1, 3)), past, past.clone()), ["input_ids", "past_key", "past_value"], axes


def scripted_loop(**_):
    """Control flow the legacy exporter keeps (torch.jit.script): a data-dependent
    loop and a branch, as in greedy decoding or NMS post-processing."""
    import torch

    class Loop(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.step = torch.nn.Linear(8, 8)

        def forward(self, x, steps):
            for _ in range(int(steps)):
                x = torch.tanh(self.step(x))
                if bool(x.sum() > 0):
                    x = x * 0.5
                else:
                    x = x + 1.0
            return x
    return torch.jit.script(Loop()), (torch.randn(2, 8), torch.tensor(4)), ["x", "steps"], None


def segmentation(builder: str):
    import torch
    import torchvision

    class Masks(torch.nn.Module):
        """The segmentation models return a dict; exporters want tensors."""

        def __init__(self):
            super().__init__()
            self.net = getattr(torchvision.models.segmentation, builder)(
                weights=None, weights_backbone=None, num_classes=5)

        def forward(self, x):
            return self.net(x)["out"]
    model = calibrate_batchnorm(Masks(), torch.randn(4, 3, 224, 224))
    return model, (torch.randn(1, 3, 224, 224),), ["pixels"], None


def detection(builder: str):
    import torch
    import torchvision
    model = getattr(torchvision.models.detection, builder)(weights=None, weights_backbone=None, num_classes=5)
    # A detector takes a list of images; inputs in [0, 1] as it expects.
    calibrate_batchnorm(model, [torch.rand(3, 320, 320) for _ in range(4)])
    return model, ([torch.rand(3, 320, 320)],), ["image"], None


def hf_encoder(kind: str, dynamic: bool = False, **config):
    """A transformers encoder with random weights and a batch of token ids;
    returns the last hidden state (and the pooler's output where it has one)."""
    import torch
    import transformers
    cfg = getattr(transformers, f"{kind}Config")(**config)
    net = getattr(transformers, f"{kind}Model")(cfg)

    class Encoder(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, input_ids, attention_mask):
            out = self.net(input_ids=input_ids, attention_mask=attention_mask, return_dict=True)
            return out.last_hidden_state
    ids = torch.randint(0, cfg.vocab_size, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 12:] = 0
    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}} if dynamic else None
    return Encoder(), (ids, mask), ["input_ids", "attention_mask"], axes


def hf_causal_lm(kind: str, dynamic: bool = False, **config):
    """A decoder-only LM (GPT2, Llama) with random weights, without a KV cache:
    logits of a batch of token ids."""
    import torch
    import transformers
    cfg = getattr(transformers, f"{kind}Config")(**config)
    cfg.use_cache = False
    net = getattr(transformers, f"{kind}ForCausalLM" if kind != "GPT2" else "GPT2LMHeadModel")(cfg)

    class Logits(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, input_ids, attention_mask):
            return self.net(input_ids=input_ids, attention_mask=attention_mask, use_cache=False,
                            return_dict=True).logits
    ids = torch.randint(0, cfg.vocab_size, (1, 12))
    mask = torch.ones(1, 12, dtype=torch.int64)
    axes = {"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"}} if dynamic else None
    return Logits(), (ids, mask), ["input_ids", "attention_mask"], axes


def vit(**config):
    import torch
    import transformers
    cfg = transformers.ViTConfig(**config)
    net = transformers.ViTModel(cfg, add_pooling_layer=False)

    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, pixel_values):
            return self.net(pixel_values=pixel_values, return_dict=True).last_hidden_state
    return Hidden(), (torch.randn(1, 3, cfg.image_size, cfg.image_size),), ["pixel_values"], None


def t5(**config):
    import torch
    import transformers
    cfg = transformers.T5Config(**config)
    net = transformers.T5Model(cfg)

    class Seq2Seq(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, input_ids, decoder_input_ids):
            return self.net(input_ids=input_ids, decoder_input_ids=decoder_input_ids, use_cache=False,
                            return_dict=True).last_hidden_state
    return (Seq2Seq(), (torch.randint(0, cfg.vocab_size, (1, 10)), torch.randint(0, cfg.vocab_size, (1, 6))),
            ["input_ids", "decoder_input_ids"], None)


def whisper(**config):
    import torch
    import transformers
    cfg = transformers.WhisperConfig(**config)
    net = transformers.WhisperModel(cfg)

    class Speech(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.net = net

        def forward(self, input_features, decoder_input_ids):
            return self.net(input_features=input_features, decoder_input_ids=decoder_input_ids, use_cache=False,
                            return_dict=True).last_hidden_state
    frames = 2 * cfg.max_source_positions
    return (Speech(), (torch.randn(1, cfg.num_mel_bins, frames), torch.tensor([[50258, 50259, 50359, 50363]])),
            ["input_features", "decoder_input_ids"], None)


SMALL_BERT = dict(vocab_size=1000, hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                  intermediate_size=256, max_position_embeddings=64)
SMALL_GPT2 = dict(vocab_size=1000, n_embd=128, n_layer=2, n_head=4, n_positions=64)
SMALL_LLAMA = dict(vocab_size=2000, hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128)

# name: (builder, its arguments, exporter, opset, external data)
MODELS = {
    "resnet18_legacy_op17": (vision, ("resnet18",), "legacy", 17, False),
    "resnet18_dynamo_op18": (vision, ("resnet18",), "dynamo", 18, False),
    "mobilenet_v3_small_dynamo_op20": (vision, ("mobilenet_v3_small",), "dynamo", 20, False),
    "mobilenet_v3_small_legacy_op13": (vision, ("mobilenet_v3_small",), "legacy", 13, False),
    "efficientnet_b0_legacy_op17": (vision, ("efficientnet_b0",), "legacy", 17, False),
    "efficientnet_b0_dynamo_op18": (vision, ("efficientnet_b0",), "dynamo", 18, True),
    "convnext_tiny_dynamo_op18": (vision, ("convnext_tiny",), "dynamo", 18, True),
    "swin_t_dynamo_op18": (vision, ("swin_t",), "dynamo", 18, False),
    "swin_t_legacy_op17": (vision, ("swin_t",), "legacy", 17, False),
    "lraspp_legacy_op17": (segmentation, ("lraspp_mobilenet_v3_large",), "legacy", 17, False),
    "deeplabv3_mbv3_dynamo_op18": (segmentation, ("deeplabv3_mobilenet_v3_large",), "dynamo", 18, False),
    "fasterrcnn_mbv3_legacy_op17": (detection, ("fasterrcnn_mobilenet_v3_large_320_fpn",), "legacy", 17, False),
    "ssdlite_legacy_op17": (detection, ("ssdlite320_mobilenet_v3_large",), "legacy", 17, False),
    "bert_dynamic_legacy_op17": (hf_encoder, ("Bert", True), "legacy", 17, False),
    "bert_dynamic_dynamo_op18": (hf_encoder, ("Bert", True), "dynamo", 18, False),
    "gpt2_dynamo_op20": (hf_causal_lm, ("GPT2", True), "dynamo", 20, False),
    "gpt2_legacy_op14": (hf_causal_lm, ("GPT2", True), "legacy", 14, False),
    "llama_extdata_dynamo_op23": (hf_causal_lm, ("Llama", True), "dynamo", 23, True),
    "llama_extdata_legacy_op18": (hf_causal_lm, ("Llama", False), "legacy", 18, True),
    "vit_base_dynamo_op18": (vit, (), "dynamo", 18, True),
    "vit_base_legacy_op17": (vit, (), "legacy", 17, False),
    "vit_small_dynamo_op23": (vit, (), "dynamo", 23, False),
    "resnet18_dynamic_hw_legacy_op17": (vision, ("resnet18", 224, True), "legacy", 17, False),
    "resnet18_dynamic_hw_dynamo_op18": (vision, ("resnet18", 224, True), "dynamo", 18, False),
    "resnet18_fp16_legacy_op17": (vision, ("resnet18", 224, False, True), "legacy", 17, False),
    "mobilenet_v3_fp16_dynamo_op18": (vision, ("mobilenet_v3_small", 224, False, True), "dynamo", 18, False),
    "kv_decoder_dynamo_op18": (kv_decoder, (), "dynamo", 18, False),
    "kv_decoder_dynamo_op23": (kv_decoder, (), "dynamo", 23, False),
    "kv_decoder_legacy_op17": (kv_decoder, (), "legacy", 17, False),
    "scripted_loop_legacy_op17": (scripted_loop, (), "legacy", 17, False),
    "llama_medium_extdata_dynamo_op18": (hf_causal_lm, ("Llama", True), "dynamo", 18, True),
    "llama_2gb_extdata_dynamo_op18": (hf_causal_lm, ("Llama", True), "dynamo", 18, True),
    "whisper_tiny_dynamo_op23": (whisper, (), "dynamo", 23, False),
    "t5_small_dynamo_op18": (t5, (), "dynamo", 18, False),
    "whisper_tiny_dynamo_op20": (whisper, (), "dynamo", 20, False),
    "whisper_tiny_legacy_op17": (whisper, (), "legacy", 17, False),
    # Older opsets, as the model zoo's classics and long-lived pipelines have them: torchvision's
    # detection and segmentation at 11-12 write an empty Resize scales beside its sizes (once called
    # an error here), and opsets 7-10 write Upsample, Slice and Clip with attributes.
    "fasterrcnn_mbv3_legacy_op11": (detection, ("fasterrcnn_mobilenet_v3_large_320_fpn",), "legacy", 11, False),
    "deeplabv3_mbv3_legacy_op12": (segmentation, ("deeplabv3_mobilenet_v3_large",), "legacy", 12, False),
    "mobilenet_v2_legacy_op7": (vision, ("mobilenet_v2",), "legacy", 7, False),
    "densenet121_legacy_op8": (vision, ("densenet121",), "legacy", 8, False),
    "squeezenet1_1_legacy_op10": (vision, ("squeezenet1_1",), "legacy", 10, False),
}
CONFIGS = {"bert": SMALL_BERT, "gpt2": SMALL_GPT2,
           # an LLM of about 700 MB: external data as real ones have it
           "llama_medium": dict(vocab_size=32000, hidden_size=1024, intermediate_size=2816, num_hidden_layers=8,
                                num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=256),
           # past 2 GB: offsets in the external data beyond 2**31
           "llama_2gb": dict(vocab_size=32000, hidden_size=2048, intermediate_size=5632, num_hidden_layers=9,
                             num_attention_heads=16, num_key_value_heads=4, max_position_embeddings=256),
           "llama": SMALL_LLAMA,
           "vit_small": dict(hidden_size=384, num_hidden_layers=4, num_attention_heads=6, intermediate_size=1536),
           "t5": dict(vocab_size=1000, d_model=128, d_kv=32, d_ff=256, num_layers=2, num_heads=4),
           "whisper": dict(vocab_size=51865, d_model=64, encoder_layers=2, decoder_layers=2,
                           encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=128,
                           decoder_ffn_dim=128, max_source_positions=100, max_target_positions=32)}


def ort_transformer_optimized(source: pathlib.Path, target: pathlib.Path, model_type: str) -> None:
    """What users of onnxruntime's transformer tools ship: the model with
    com.microsoft fused ops (Attention, SkipLayerNormalization, BiasGelu ...)."""
    from onnxruntime.transformers import optimizer
    model = optimizer.optimize_model(str(source), model_type=model_type, num_heads=4, hidden_size=128,
                                     opt_level=1)
    model.save_model_to_file(str(target))


def ort_quantized_dynamic(source: pathlib.Path, target: pathlib.Path) -> None:
    """onnxruntime's dynamic quantization (MatMulInteger, DynamicQuantizeLinear).
    u8 weights: onnxruntime's u8 x s8 kernels saturate on CPUs without VNNI."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    quantize_dynamic(str(source), str(target), weight_type=QuantType.QUInt8)


def ort_quantized_qdq(source: pathlib.Path, target: pathlib.Path) -> None:
    """onnxruntime's static QDQ quantization, calibrated on random images."""
    import numpy as np
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)

    class Images(CalibrationDataReader):
        def __init__(self):
            rng = np.random.default_rng(SEED)
            self.batches = iter([{"pixels": rng.standard_normal((1, 3, 224, 224), dtype=np.float32)}
                                 for _ in range(4)])

        def get_next(self):
            return next(self.batches, None)
    quantize_static(str(source), str(target), Images(), quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QUInt8)


# name: (source model, how it is derived, its arguments); inputs as the source's
DERIVED = {
    "bert_ort_fused": ("bert_dynamic_legacy_op17", ort_transformer_optimized, ("bert",)),
    "gpt2_ort_fused": ("gpt2_legacy_op14", ort_transformer_optimized, ("gpt2",)),
    "bert_quant_dynamic": ("bert_dynamic_legacy_op17", ort_quantized_dynamic, ()),
    "resnet18_quant_qdq": ("resnet18_legacy_op17", ort_quantized_qdq, ()),
}


def derive_one(name: str, out: pathlib.Path) -> None:
    import shutil
    source, how, args = DERIVED[name]
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    how(out / source / "model.onnx", folder / "model.onnx", *args)
    for kept in (out / source).glob("inputs*.npz"):
        shutil.copy(kept, folder / kept.name)
    print(f"{name}: from {source}, {(folder / 'model.onnx').stat().st_size / 2**20:.1f} MB", flush=True)


def flat(value) -> list:
    """Tensors of a (nested) input or output, in order."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flat(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in flat(v)]
    return []


def export_one(name: str, out: pathlib.Path) -> None:
    import numpy as np
    import onnx
    import torch
    builder, args, exporter, opset, external = MODELS[name]
    config = next((c for key, c in CONFIGS.items() if name.startswith(key)), {})
    torch.manual_seed(SEED)
    model, inputs, input_names, dynamic_axes = builder(*args, **config)
    model = model.eval()
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    path = folder / "model.onnx"
    with torch.no_grad():
        expected = model(*inputs)
        if exporter == "dynamo":
            program = torch.onnx.export(model, inputs, dynamo=True, opset_version=opset,
                                        input_names=input_names, dynamic_axes=dynamic_axes)
            program.save(str(path), external_data=external)
        else:
            torch.onnx.export(model, inputs, str(path), dynamo=False, opset_version=opset,
                              input_names=input_names, dynamic_axes=dynamic_axes)
    if external and not any(p.suffix == ".data" for p in folder.iterdir()):
        # The legacy exporter writes one file below 2 GB: move the weights out
        # as a user's onnx.save_model(save_as_external_data=True) does.
        proto = onnx.load(str(path))
        onnx.save_model(proto, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location="model.onnx.data", size_threshold=1024)
    graph = onnx.load(str(path), load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    graph_inputs = [i.name for i in graph.input if i.name not in initializers]
    arrays = [t.numpy() for t in flat(inputs)]
    if len(arrays) != len(graph_inputs):
        raise RuntimeError(f"{len(arrays)} torch inputs for graph inputs {graph_inputs}")
    np.savez(folder / "inputs.npz", **dict(zip(graph_inputs, arrays)))
    if dynamic_axes:
        # Other sizes along the dynamic axes, for a second run: the same values
        # tiled, so token ids stay below the vocabulary's size.
        other = {}
        for input_name, a in zip(graph_inputs, arrays):
            axes = dynamic_axes.get(input_name, {})
            shape = tuple(OTHER_SIZES[axes[i]] if i in axes else n for i, n in enumerate(a.shape))
            other[input_name] = np.resize(a, shape)
        np.savez(folder / "inputs_other.npz", **other)
    outputs = [t.numpy() for t in flat(expected)]
    if len(outputs) == len(graph.output):
        np.savez(folder / "torch_outputs.npz", **{o.name: a for o, a in zip(graph.output, outputs)})
    size = sum(p.stat().st_size for p in folder.iterdir() if p.name.startswith("model.onnx"))
    print(f"{name}: {len(graph.node)} nodes, {size / 2**20:.1f} MB, inputs {graph_inputs}", flush=True)


def make(out: pathlib.Path, names: list[str]) -> int:
    import traceback
    failed = []
    for name in names:
        started = time.perf_counter()
        try:
            (derive_one if name in DERIVED else export_one)(name, out)
        except Exception:  # noqa: BLE001  (an exporter's failure is reported, the next model still made)
            failed.append(name)
            (out / name).mkdir(parents=True, exist_ok=True)
            (out / name / "export_error.txt").write_text(traceback.format_exc())
            print(f"{name}: EXPORT FAILED ({traceback.format_exc().strip().splitlines()[-1][:200]})", flush=True)
        print(f"  {time.perf_counter() - started:.0f} s", flush=True)
    print(f"{len(names) - len(failed)} exported, failed: {failed or 'none'}")
    return 0


# ---------------------------------------------------------- evaluate (app venv)

def oracle_verdicts(path: pathlib.Path) -> dict:
    import onnx
    import onnxruntime
    verdict = {}
    try:
        onnx.checker.check_model(str(path), full_check=True)
        verdict["onnx_checker"] = "ok"
    except Exception as e:  # noqa: BLE001  (the oracle's verdict is recorded, whatever it raises)
        verdict["onnx_checker"] = f"fails: {str(e).splitlines()[0][:200]}"
    try:
        onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        verdict["ort_loads"] = "ok"
    except Exception as e:  # noqa: BLE001  (as above)
        verdict["ort_loads"] = f"fails: {str(e).splitlines()[0][:200]}"
    return verdict


def cli(*args: str, timeout: int = 1800) -> dict:
    """One `onnxstudio` command line of the app's venv: exit code, seconds, output tail."""
    exe = pathlib.Path(sys.executable).parent / "onnxstudio"
    started = time.perf_counter()
    try:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=timeout,
                              env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
    except subprocess.TimeoutExpired:
        return {"exit": "timeout", "seconds": timeout, "output": ""}
    return {"exit": proc.returncode, "seconds": round(time.perf_counter() - started, 2),
            "output": (proc.stdout + proc.stderr)[-3000:]}


def compare_runs(path: pathlib.Path, feeds: dict) -> dict:
    """Our executor against onnxruntime on the same inputs: per output the max
    abs error and that error over the reference's largest |value|."""
    import numpy as np
    import onnxruntime

    from onnxstudio.core.exec.session import Session
    from onnxstudio.core.serde.io import load
    report = {}
    started = time.perf_counter()
    session = Session(load(path))
    try:
        ours = session.run(dict(feeds))
        first = time.perf_counter() - started
        # Our session settles over its first runs (closures, shape blocks, the
        # BLAS thread count tried both ways): the fastest of runs 3-5 is its pace.
        steady = []
        for _ in range(RUNS):
            t = time.perf_counter()
            session.run(dict(feeds))
            steady.append(time.perf_counter() - t)
    except Exception as e:  # noqa: BLE001  (recorded as this model's run failure)
        report["run_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        return report
    report["ours_s"] = [round(first, 3), round(min(steady[2:]), 4)]
    started = time.perf_counter()
    try:
        ort = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        ref = dict(zip([o.name for o in ort.get_outputs()], ort.run(None, dict(feeds))))
    except Exception as e:  # noqa: BLE001  (the oracle's refusal is recorded; ours ran)
        report["ort_error"] = f"{type(e).__name__}: {str(e)[:600]}"
        return report
    first = time.perf_counter() - started
    steady = []
    for _ in range(RUNS):
        t = time.perf_counter()
        ort.run(None, dict(feeds))
        steady.append(time.perf_counter() - t)
    report["ort_s"] = [round(first, 3), round(min(steady[2:]), 4)]
    worst_abs, worst_rel, agree = 0.0, 0.0, True
    for name, expected in ref.items():
        got = ours.get(name)
        if got is None or np.shape(got) != np.shape(expected):
            report.setdefault("mismatch", []).append(f"{name}: shape {np.shape(got)} vs {np.shape(expected)}")
            agree = False
            continue
        if expected.dtype.kind in "fc":
            diff = np.abs(got.astype(np.float64) - expected.astype(np.float64))
            scale = float(np.nanmax(np.abs(expected))) if expected.size else 0.0
            scale = scale if np.isfinite(scale) and scale > 0 else 1.0
            err = float(np.nanmax(diff)) if diff.size else 0.0
            worst_abs, worst_rel = max(worst_abs, err), max(worst_rel, err / scale)
            if not np.allclose(got, expected, rtol=1e-4, atol=1e-5 * scale, equal_nan=True):
                agree = False
                report.setdefault("mismatch", []).append(f"{name}: max abs {err:.3g}")
        elif not np.array_equal(got, expected):
            agree = False
            report.setdefault("mismatch", []).append(f"{name}: {expected.dtype} values differ")
    report.update(agree=agree, max_abs=worst_abs, max_rel=worst_rel, outputs=len(ref))
    return report


def inference_vs_run(path: pathlib.Path, feeds: dict) -> dict:
    """Our inferred types against the values a run computed: element type, rank,
    every numeric dim, and each symbol (or expression over symbols whose sizes
    the run showed) taking one size throughout. Expressions over floor atoms
    are left unchecked."""
    import numpy as np

    from onnxstudio.core.exec.session import Session
    from onnxstudio.core.infer import Inference
    from onnxstudio.core.infer.symexpr import poly_of
    from onnxstudio.core.ir.dtypes import to_numpy_dtype
    from onnxstudio.core.serde.io import load
    model = load(path)
    inference = Inference(model)
    inference.run()
    types = inference.types_in(model.graph)
    session = Session(model, keep=True)
    outputs = session.run(dict(feeds))
    values = {**session.values, **outputs}
    sizes, wrong, checked, unchecked = {}, [], 0, 0
    deferred = []
    for name, value in values.items():
        t = types.get(name)
        if t is None or not hasattr(t, "shape") or not isinstance(value, np.ndarray):
            continue
        checked += 1
        if t.elem_type and to_numpy_dtype(t.elem_type) != value.dtype:
            wrong.append(f"{name}: inferred {t}, ran {value.dtype}{list(value.shape)}")
            continue
        if t.shape is None:
            continue
        if len(t.shape) != value.ndim:
            wrong.append(f"{name}: inferred {t}, ran {value.dtype}{list(value.shape)}")
            continue
        for d, n in zip(t.shape, value.shape):
            if isinstance(d, int) and d != n:
                wrong.append(f"{name}: inferred {t}, ran {value.dtype}{list(value.shape)}")
                break
            if isinstance(d, str):
                deferred.append((name, t, value.shape, d, n))
    for name, t, shape, d, n in deferred:        # plain symbols first: they give the sizes
        poly = poly_of(d)
        if list(poly) == [(d,)] and poly[(d,)] == 1:
            if sizes.setdefault(d, n) != n:
                wrong.append(f"{name}: inferred {t}, ran {list(shape)} ({d} was {sizes[d]} elsewhere)")
    for name, t, shape, d, n in deferred:
        poly = poly_of(d)
        if list(poly) == [(d,)]:
            continue
        if not all(s in sizes for mono in poly for s in mono):
            unchecked += 1
            continue
        expected = sum(c * int(np.prod([sizes[s] for s in mono])) for mono, c in poly.items())
        if expected != n:
            wrong.append(f"{name}: inferred {t}, ran {list(shape)} ({d} = {expected} here)")
    return {"values": checked, "wrong": len(wrong), "examples": wrong[:8], "unchecked_exprs": unchecked}


def evaluate_one(folder: pathlib.Path, with_compare_cli: bool) -> dict:
    import numpy as np
    path = folder / "model.onnx"
    report = {"name": folder.name, "mb": round(sum(p.stat().st_size for p in folder.iterdir()
                                                     if p.name.startswith("model.onnx")) / 2**20, 1)}
    report.update(oracle_verdicts(path))
    check = cli("check", str(path))
    report["check"] = check
    report["info"] = cli("info", str(path))
    for inputs in sorted(folder.glob("inputs*.npz")):
        key = "run" if inputs.name == "inputs.npz" else f"run_{inputs.stem[len('inputs_'):]}"
        try:
            report[key] = compare_runs(path, dict(np.load(inputs)))
        except Exception as e:  # noqa: BLE001  (a failure to load or compile is this model's finding)
            report[key] = {"run_error": f"{type(e).__name__}: {str(e)[:600]}"}
    for inputs in sorted(folder.glob("inputs*.npz")):
        try:
            report[f"infer_{inputs.stem}"] = inference_vs_run(path, dict(np.load(inputs)))
        except Exception as e:  # noqa: BLE001  (as above)
            report[f"infer_{inputs.stem}"] = {"error": f"{type(e).__name__}: {str(e)[:600]}"}
    if with_compare_cli:
        report["run_compare_cli"] = cli("run", str(path), "--load-inputs", str(folder / "inputs.npz"),
                                        "--compare-onnxruntime")
    report["render"] = cli("render", str(path), "-o", str(folder / "render.svg"))
    return report


def agreement(run: dict) -> str:
    if "run_error" in run:
        return "RUN FAILS"
    if "ort_error" in run:
        return "ours ran, onnxruntime fails"
    return f"{'ok' if run['agree'] else 'DIFFERS'} abs {run['max_abs']:.1e} rel {run['max_rel']:.1e}"


def table_row(r: dict) -> str:
    run = r["run"]
    agreed = "; ".join(f"{key[4:] or 'inputs'}: {agreement(r[key])}" if key != "run" else agreement(run)
                       for key in r if key.startswith("run") and key != "run_compare_cli")
    inferred = "; ".join(f"{r[key]['wrong']}/{r[key]['values']}" if "error" not in r[key] else "FAILS"
                         for key in r if key.startswith("infer_"))
    times = f"{run['ours_s'][1]:.3f}/{run['ort_s'][1]:.4f}" if "ort_s" in run else "-"
    oracle = "ok" if r["onnx_checker"] == "ok" and r["ort_loads"] == "ok" else \
        f"chk:{r['onnx_checker'][:5]} ort:{r['ort_loads'][:5]}"
    compare = r.get("run_compare_cli", {}).get("exit", "-")
    return (f"| {r['name']} | {r['mb']} | {oracle} | {'ok' if r['check']['exit'] == 0 else 'ERRORS'} "
            f"| {r['info']['exit']} | {agreed} | {inferred} | {times} | {compare} | {r['render']['exit']} "
            f"({r['render']['seconds']:.1f} s) |")


def evaluate(out: pathlib.Path, names: list[str], with_compare_cli: bool) -> int:
    print("| model | MB | onnx+ort | our check | info exit | our run vs ort | inferred types wrong/values "
          "| steady run s ours/ort | run --compare exit | render exit (s) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in names:
        folder = out / name
        if not (folder / "model.onnx").exists():
            print(f"| {name} | export failed | | | | | | | |")
            continue
        report = evaluate_one(folder, with_compare_cli)
        (folder / "evaluation.json").write_text(json.dumps(report, indent=1))
        print(table_row(report), flush=True)
    print(f"load average: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("make", "evaluate"))
    parser.add_argument("--out", type=pathlib.Path, default=OUT)
    parser.add_argument("--only", nargs="*", help="model names (default: all)")
    parser.add_argument("--no-compare-cli", action="store_true",
                        help="evaluate: skip `onnxstudio run --compare-onnxruntime`")
    args = parser.parse_args(argv)
    names = args.only or [*MODELS, *DERIVED]
    unknown = [n for n in names if n not in MODELS and n not in DERIVED]
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join([*MODELS, *DERIVED])}")
    if args.mode == "make":
        return make(args.out, names)
    return evaluate(args.out, names, not args.no_compare_cli)


if __name__ == "__main__":
    sys.exit(main())
