"""Synthetic transformer-like layout requests, for benchmarks and tests.

Shaped like a real export: an embedding stem, `layers` identical blocks
(attention with Q/K/V branches, softmax, projection, residual adds, layer
norms, an MLP) named by scope, a head, and an attention mask consumed by
every layer (a long edge across all blocks).
"""
from __future__ import annotations

from .geometry import LayoutEdge, LayoutNode, LayoutRequest

# (name, inputs by local name) of one block; "in" is the block's input,
# "mask" the shared attention mask.
_BLOCK = [
    ("ln1_mean", ["in"]), ("ln1_sub", ["in", "ln1_mean"]), ("ln1_pow", ["ln1_sub"]),
    ("ln1_var", ["ln1_pow"]), ("ln1_add", ["ln1_var"]), ("ln1_sqrt", ["ln1_add"]),
    ("ln1_div", ["ln1_sub", "ln1_sqrt"]), ("ln1_mul", ["ln1_div"]), ("ln1_out", ["ln1_mul"]),
]
for _h in "qkv":
    _BLOCK += [(f"{_h}_mm", ["ln1_out"]), (f"{_h}_bias", [f"{_h}_mm"]),
               (f"{_h}_reshape", [f"{_h}_bias"]), (f"{_h}_transpose", [f"{_h}_reshape"])]
_BLOCK += [
    ("scores", ["q_transpose", "k_transpose"]), ("scale", ["scores"]), ("masked", ["scale", "mask"]),
    ("softmax", ["masked"]), ("context", ["softmax", "v_transpose"]), ("ctx_t", ["context"]),
    ("ctx_reshape", ["ctx_t"]), ("proj_mm", ["ctx_reshape"]), ("proj_bias", ["proj_mm"]),
    ("resid1", ["in", "proj_bias"]),
    ("ln2_mean", ["resid1"]), ("ln2_sub", ["resid1", "ln2_mean"]), ("ln2_pow", ["ln2_sub"]),
    ("ln2_var", ["ln2_pow"]), ("ln2_add", ["ln2_var"]), ("ln2_sqrt", ["ln2_add"]),
    ("ln2_div", ["ln2_sub", "ln2_sqrt"]), ("ln2_mul", ["ln2_div"]), ("ln2_out", ["ln2_mul"]),
    ("fc1_mm", ["ln2_out"]), ("fc1_bias", ["fc1_mm"]), ("gelu_div", ["fc1_bias"]),
    ("gelu_erf", ["gelu_div"]), ("gelu_add", ["gelu_erf"]), ("gelu_mul", ["fc1_bias", "gelu_add"]),
    ("gelu_half", ["gelu_mul"]), ("fc2_mm", ["gelu_half"]), ("fc2_bias", ["fc2_mm"]),
    ("out", ["resid1", "fc2_bias"]),
]
BLOCK_SIZE = len(_BLOCK)


def _size(name: str) -> tuple[float, float]:
    # Deterministic label-like sizes: wider for longer names, taller for
    # ops that would show folded weights.
    return 40.0 + 7.0 * len(name), 36.0 if name.endswith(("_mm", "_bias", "_mul")) else 24.0


def transformer_request(layers: int, rankdir: str = "TB", scoped: bool = True) -> LayoutRequest:
    nodes: list[LayoutNode] = []
    edges: list[LayoutEdge] = []

    def add(node_id: str, group: tuple, inputs: list[str]) -> None:
        nodes.append(LayoutNode(node_id, *_size(node_id.rsplit("/", 1)[-1]), group))
        for k, src in enumerate(inputs):
            edges.append(LayoutEdge(f"{src}->{node_id}#{k}", src, node_id))

    add("input_ids", (), [])
    add("attention_mask", (), [])
    add("/embeddings/gather", ("embeddings",) if scoped else (), ["input_ids"])
    add("/embeddings/add", ("embeddings",) if scoped else (), ["/embeddings/gather"])
    add("/mask/cast", ("mask",) if scoped else (), ["attention_mask"])
    add("/mask/sub", ("mask",) if scoped else (), ["/mask/cast"])
    previous = "/embeddings/add"
    for layer in range(layers):
        scope = f"/encoder/layer.{layer}"
        group = ("encoder", f"layer.{layer}") if scoped else ()
        for name, inputs in _BLOCK:
            real = [previous if i == "in" else "/mask/sub" if i == "mask" else f"{scope}/{i}"
                    for i in inputs]
            add(f"{scope}/{name}", group, real)
        previous = f"{scope}/out"
    add("/pooler/dense", ("pooler",) if scoped else (), [previous])
    add("/pooler/tanh", ("pooler",) if scoped else (), ["/pooler/dense"])
    add("logits", (), ["/pooler/tanh"])
    return LayoutRequest(nodes, edges, rankdir=rankdir)
