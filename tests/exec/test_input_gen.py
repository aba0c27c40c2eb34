"""core.exec.input_gen: inputs from random/constant/file/image sources, input sets."""
import json

import numpy as np
import pytest

from onnxstudio.core.exec import FeedError
from onnxstudio.core.exec.input_gen import (InputSet, InputSpec, free_dims, image_input, make_feeds,
                                            make_value, resize_bilinear)
from onnxstudio.core.ir import Value
from onnxstudio.core.ir.dtypes import DataType
from onnxstudio.core.ir.types import TensorType


def val(name, elem, shape):
    return Value(name, TensorType(elem, tuple(shape)))


def write_ppm(path, rgb):
    h, w, _ = rgb.shape
    path.write_bytes(f"P6 {w} {h} 255\n".encode() + rgb.astype(np.uint8).tobytes())
    return path


def test_random_sources_are_seeded_per_input():
    ids = val("ids", DataType.INT64, ["batch", "seq"])
    x = val("x", DataType.FLOAT, ["batch", 4])
    s = InputSet(seed=7, dims={"batch": 2, "seq": 5},
                 inputs={"ids": InputSpec("ids", low=0, high=30521),
                         "x": InputSpec("x", distribution="uniform", low=-2, high=-1)})
    feeds = make_feeds([ids, x], s)
    assert feeds["ids"].shape == (2, 5) and feeds["ids"].dtype == np.int64
    assert feeds["ids"].max() <= 30521 and feeds["ids"].max() > 1
    assert feeds["x"].dtype == np.float32 and (feeds["x"] >= -2).all() and (feeds["x"] <= -1).all()
    s.inputs["ids"] = InputSpec("ids", "zeros")
    again = make_feeds([ids, x], s)
    np.testing.assert_array_equal(again["x"], feeds["x"])        # one input's source leaves the others
    assert not again["ids"].any()
    assert free_dims([ids, x, val("y", DataType.FLOAT, [None, 3])]) == ["batch", "seq", "y[0]"]


def test_constants_and_odd_dtypes():
    import ml_dtypes
    b = val("b", DataType.BFLOAT16, [3])
    assert make_value(b, InputSpec("b", "constant", value=1.5)).tolist() == [1.5] * 3
    assert make_value(b, InputSpec("b")).dtype == ml_dtypes.bfloat16
    flag = val("f", DataType.BOOL, [])
    assert make_value(flag, InputSpec("f", "ones")).dtype == np.bool_
    for dt in (DataType.BOOL, DataType.FLOAT, DataType.INT64):      # scalars are 0-d arrays
        assert isinstance(make_value(val("s", dt, []), InputSpec("s")), np.ndarray)
    s = val("s", DataType.STRING, [2])
    assert make_value(s, InputSpec("s")).dtype == object


def test_files_are_checked_against_the_declared_type(tmp_path):
    x = val("x", DataType.FLOAT, ["n", 3])
    np.save(tmp_path / "ok.npy", np.ones((5, 3), np.float32))
    np.save(tmp_path / "wrong_dtype.npy", np.ones((5, 3)))
    np.save(tmp_path / "wrong_shape.npy", np.ones((5, 4), np.float32))
    np.savez(tmp_path / "set.npz", x=np.zeros((2, 3), np.float32), other=np.ones(1))
    assert make_value(x, InputSpec("x", "file", path=str(tmp_path / "ok.npy"))).shape == (5, 3)
    assert make_value(x, InputSpec("x", "file", path=str(tmp_path / "set.npz"))).shape == (2, 3)
    with pytest.raises(FeedError,
                       match=r'input "x" \(wrong_dtype.npy\): holds double\[5,3\], the model wants float\[n,3\]'):
        make_value(x, InputSpec("x", "file", path=str(tmp_path / "wrong_dtype.npy")))
    with pytest.raises(FeedError, match="axis 1 must be 3"):
        make_value(x, InputSpec("x", "file", path=str(tmp_path / "wrong_shape.npy")))
    with pytest.raises(FeedError, match='input "x": .*missing.npy: no such file'):
        make_value(x, InputSpec("x", "file", path=str(tmp_path / "missing.npy")))


def test_image_inputs(tmp_path):
    rgb = np.zeros((4, 6, 3), np.uint8)
    rgb[..., 0] = 255                                   # pure red
    path = write_ppm(tmp_path / "red.ppm", rgb)
    nchw = val("img", DataType.FLOAT, [1, 3, 8, 12])
    spec = InputSpec("img", "image", path=str(path), channel_mean=[0.5, 0.5, 0.5], channel_std=[0.5, 0.5, 0.5])
    a = image_input(nchw, spec)
    assert a.shape == (1, 3, 8, 12) and a.dtype == np.float32
    np.testing.assert_allclose(a[0, 0], 1.0)
    np.testing.assert_allclose(a[0, 1], -1.0)
    nhwc = val("img", DataType.FLOAT, ["b", "h", "w", 3])
    b = image_input(nhwc, InputSpec("img", "image", path=str(path), layout="NHWC", bgr=True), {"b": 2})
    assert b.shape == (2, 4, 6, 3) and b[1, 0, 0].tolist() == [0, 0, 1]
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    with pytest.raises(FeedError, match='input "img": .*broken.png: cannot read it as an image'):
        image_input(nchw, InputSpec("img", "image", path=str(tmp_path / "broken.png")))
    assert resize_bilinear(np.arange(4.0).reshape(2, 2, 1), 2, 2)[..., 0].tolist() == [[0, 1], [2, 3]]


def test_input_sets_round_trip_through_json(tmp_path):
    s = InputSet(3, {"batch": 2}, {"x": InputSpec("x", "constant", value=2.0)})
    data = json.loads(json.dumps(s.to_json()))
    back = InputSet.from_json(data)
    assert back == s
    with pytest.raises(FeedError, match="unknown source"):
        InputSet.from_json({"inputs": {"x": {"source": "telepathy"}}})


def test_token_ids_default_to_the_whole_embedding_table():
    # input_ids index an embedding (Gather's indices into a constant table):
    # the first guess covers the vocabulary; other integer inputs stay 0..1.
    from shared_models import SHARED_MODELS
    from onnxstudio import core
    from onnxstudio.core.exec.input_gen import default_spec
    model = core.load(SHARED_MODELS / "bert_small" / "model.onnx")
    specs = {v.name: default_spec(v) for v in model.graph.inputs}
    vocab = next(n.inputs[0].const.shape[0] for n in model.graph.nodes
                 if n.op_type == "Gather" and n.inputs[1].name == "input_ids")
    assert (specs["input_ids"].low, specs["input_ids"].high) == (0, vocab - 1) and vocab > 1000
    assert (specs["attention_mask"].low, specs["attention_mask"].high) == (0, 1)


def test_silero_vad_defaults_come_from_the_model():
    """sr compared with a 16000 constant gets 16000, the state fed back as
    stateN zeros, and the samples axis the STFT's 256-wide window: the model
    runs on them (on a 1-sample chunk and a random sr it cannot)."""
    from shared_models import SHARED_MODELS
    from onnxstudio import core
    from onnxstudio.core.exec import Session
    from onnxstudio.core.exec.input_gen import default_spec, runnable_sizes
    model = core.load(SHARED_MODELS / "silero_vad" / "model.onnx")
    inputs = list(model.graph.inputs)
    specs = {v.name: default_spec(v, model.graph.outputs) for v in inputs}
    assert (specs["sr"].source, specs["sr"].value) == ("constant", 16000)
    assert specs["state"].source == "zeros" and specs["input"].source == "random"
    assert runnable_sizes(inputs) == {"input[1]": 256}
    feeds = make_feeds(inputs, InputSet(inputs=specs))
    assert feeds["input"].shape == (1, 256) and feeds["sr"].dtype == np.int64
    assert Session(model).run(feeds)["output"].shape == (1, 1)


def test_defaults_read_the_rate_state_and_window_a_model_declares(tmp_path):
    from onnx import TensorProto, helper
    from onnxstudio import core
    from onnxstudio.core.exec.input_gen import default_spec, runnable_sizes
    nodes = [helper.make_node("Constant", [], ["rate_8k"], value=helper.make_tensor("", TensorProto.INT64, [], [8000])),
             helper.make_node("Equal", ["sample_rate", "rate_8k"], ["is_8k"]),
             helper.make_node("Unsqueeze", ["audio", "one"], ["channel"]),
             helper.make_node("Conv", ["channel", "w"], ["frames"], pads=[1, 1], dilations=[2]),
             helper.make_node("Identity", ["past_key"], ["present_key"])]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("audio", TensorProto.FLOAT, ["batch", "samples"]),
         helper.make_tensor_value_info("sample_rate", TensorProto.INT64, []),
         helper.make_tensor_value_info("past_key", TensorProto.FLOAT, [1, 4, "past"]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("frames", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("is_8k", TensorProto.BOOL, []),
         helper.make_tensor_value_info("present_key", TensorProto.FLOAT, [1, 4, "total"])],
        initializer=[helper.make_tensor("one", TensorProto.INT64, [1], [1]),
                     helper.make_tensor("w", TensorProto.FLOAT, [2, 1, 5], [0.0] * 10)])
    path = tmp_path / "audio.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    model = core.load(path)
    inputs = [v for v in model.graph.inputs if v.name not in model.graph.initializers]
    specs = {v.name: default_spec(v, model.graph.outputs) for v in inputs}
    assert (specs["sample_rate"].source, specs["sample_rate"].value) == ("constant", 8000)
    assert specs["past_key"].source == "zeros"
    assert specs["audio"].source == specs["ids"].source == "random"
    # The dilated kernel spans 9 samples, the padding gives 2 of them; ids meet no window.
    assert runnable_sizes(inputs) == {"samples": 7}
    feeds = make_feeds(inputs, InputSet(dims={"batch": 2}, inputs=specs))
    assert feeds["audio"].shape == (2, 7) and feeds["ids"].shape == (2, 1) and int(feeds["sample_rate"]) == 8000
    typed = make_feeds(inputs, InputSet(dims={"samples": 3}, inputs=specs))
    assert typed["audio"].shape == (1, 3)                  # a size the user gives wins


def test_every_input_from_one_npz(tmp_path):
    from onnxstudio.core.exec.input_gen import specs_from_npz
    a, b = val("a", DataType.FLOAT, [2]), val("b", DataType.INT64, [])
    np.savez(tmp_path / "set.npz", a=np.ones(2, np.float32), stray=np.zeros(1))
    specs, unknown = specs_from_npz([a, b], tmp_path / "set.npz")
    assert list(specs) == ["a"] and unknown == ["stray"]
    assert make_value(a, specs["a"]).tolist() == [1.0, 1.0]
    with pytest.raises(FeedError, match="no such file"):
        specs_from_npz([a, b], tmp_path / "none.npz")


def test_sets_of_the_first_format_lose_their_untouched_sizes():
    """Format /1 saved every size box, 1 where the user left it: read as typed
    sizes, they made an image input 1x1. A 1 there is dropped, other sizes kept;
    /2 sets hold typed sizes only and keep even a 1."""
    old = InputSet.from_json({"format": "onnxstudio-inputs/1", "dims": {"x[2]": 1, "seq": 64}})
    assert old.dims == {"seq": 64}
    typed = InputSet(dims={"x[2]": 1})
    assert typed.to_json()["format"] == "onnxstudio-inputs/2"
    assert InputSet.from_json(json.loads(json.dumps(typed.to_json()))).dims == {"x[2]": 1}


def test_default_set_and_saved_arrays_round_trip(tmp_path):
    """default_input_set is what the app starts from and `run --random`
    makes; save_npz keeps odd names and leaves out what an .npz cannot hold."""
    import ml_dtypes
    from onnxstudio.core.exec.input_gen import default_input_set, unsized_dims
    from onnxstudio.core.exec.run_files import load_npz, save_npz
    ids = val("ids", DataType.INT64, ["batch", 4])
    x = val("x", DataType.FLOAT, ["batch", "n"])
    s = default_input_set([ids, x], seed=3, dims={"batch": 2})
    assert (s.spec("ids").low, s.spec("ids").high) == (0, 1) and s.seed == 3
    feeds = make_feeds([ids, x], s)
    assert feeds["ids"].shape == (2, 4) and unsized_dims([ids, x], s) == ["n"]
    np.testing.assert_array_equal(make_feeds([ids, x], default_input_set([ids, x], seed=3, dims={"batch": 2}))["x"],
                                  feeds["x"])
    path = tmp_path / "run.npz"
    arrays = {"/m/Add_output_0": feeds["x"], "file": feeds["ids"], "s": np.array(["a"], dtype=object),
              "b": np.ones(2, ml_dtypes.bfloat16), "seq": [np.ones(1)], "scalar": np.float32(2)}
    written, left_out = save_npz(path, arrays)
    assert left_out == ["b", "seq"] and [p.name for p in tmp_path.iterdir()] == ["run.npz"]
    back = load_npz(path)
    assert sorted(back) == sorted(written)
    np.testing.assert_array_equal(back["/m/Add_output_0"], feeds["x"])
    assert back["scalar"].shape == () and back["s"].tolist() == ["a"]
    with pytest.raises(FeedError, match="not an .npz file"):
        load_npz(tmp_path / "run.npy")
