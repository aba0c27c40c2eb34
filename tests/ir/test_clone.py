"""Model.clone(): a copy to change freely, weights shared, saved as the
original would be."""
import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.edits import RemoveNode, RenameValue, SetInitializer
from onnxstudio.core.serde.convert import model_to_proto

from shared_models import shared_model


def _bytes(model) -> bytes:
    return model_to_proto(model).SerializeToString(deterministic=True)


@pytest.fixture(scope="module")
def silero():
    return core.load(shared_model("silero_vad") / "model.onnx")     # If bodies, outer captures


@pytest.fixture(scope="module")
def bert():
    return core.load(shared_model("bert_small") / "model.onnx")


def test_a_clone_saves_as_the_original(silero, bert):
    for m in (silero, bert):
        assert _bytes(m.clone()) == _bytes(m)


def test_a_clone_has_its_own_objects_and_true_use_lists(silero):
    vmap = {}
    c = silero.clone(vmap)
    originals = {id(o) for g in silero.graphs() for o in [g, *g.nodes]}
    for g in c.graphs():
        assert id(g) not in originals
        for n in g.nodes:
            assert id(n) not in originals and n.graph is g
            for i, v in enumerate(n.inputs):
                if v is not None:
                    assert (n, i) in v.uses and id(v) not in {id(x) for x in vmap} - {id(v)}
            for v in n.outputs:
                if v is not None:
                    assert v.producer is n
            for _, body in n.subgraphs():
                assert body.parent_node is n
    for g_old, g_new in zip(silero.graphs(), c.graphs()):
        assert [v.name for v in g_new.inputs] == [v.name for v in g_old.inputs]
        assert all(vmap[id(v)] is w for v, w in zip(g_old.inputs, g_new.inputs))
        for v in g_old.values().values():
            w = vmap[id(v)]
            assert [(x.name, i) for x, i in w.uses] == [(x.name, i) for x, i in v.uses]
            assert (w.producer is None) == (v.producer is None)


def test_weights_are_shared_not_copied(bert):
    c = bert.clone()
    name, v = next((k, x) for k, x in bert.graph.initializers.items() if x.const.nbytes > 1000)
    assert np.shares_memory(c.graph.initializers[name].const.numpy(), v.const.numpy())


def test_editing_the_clone_leaves_the_original_alone(silero, bert):
    before = _bytes(bert)
    c = bert.clone()
    init = next(k for k, v in c.graph.initializers.items() if v.const.nbytes > 1000)
    RenameValue(init, init + "_renamed").apply(c)
    arr = c.graph.initializers[init + "_renamed"].const.numpy()
    SetInitializer(init + "_renamed", np.zeros_like(arr)).apply(c)
    assert _bytes(bert) == before
    assert bert.graph.initializers[init].const.name == init
    assert np.array_equal(bert.graph.initializers[init].const.numpy(), arr)

    # silero: remove the node holding bodies; the original keeps its uses
    before = _bytes(silero)
    uses = {v.name: len(v.uses) for v in silero.graph.values().values()}
    c = silero.clone()
    g = c.graph
    while g.outputs:
        g.remove_declaration("output", 0)
    for n in reversed(list(g.nodes)):        # the node with bodies among them
        RemoveNode({"index": n.index}).apply(c)
    assert not g.nodes and not any(v.uses for v in g.values().values())
    assert _bytes(silero) == before
    assert {v.name: len(v.uses) for v in silero.graph.values().values()} == uses
    assert any(uses.values())


def test_a_clone_copies_every_field_of_nodes_and_values(silero):
    from onnxstudio.core.ir import Node, Value
    vmap = {}
    c = silero.clone(vmap)
    linked = {"__weakref__", "_uses", "producer", "graph", "_inputs", "_outputs", "attributes", "const"}
    for old_g, new_g in zip(silero.graphs(), c.graphs()):
        for a, b in zip(old_g.nodes, new_g.nodes):
            for s in set(Node.__slots__) - linked:
                assert getattr(a, s) == getattr(b, s), s
        for v in old_g.values().values():
            w = vmap[id(v)]
            for s in set(Value.__slots__) - linked:
                assert getattr(v, s) == getattr(w, s), s
