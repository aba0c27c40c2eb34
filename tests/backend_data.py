"""The ONNX backend test data, written once to a cache outside git.

The `onnx` wheel (a test dependency) ships simple/, pytorch-converted/,
pytorch-operator/ and light/ on disk; the 1,884 node cases are built in memory
by `onnx.backend.test.loader.load_node_model_tests()`. We write those to
`<temp>/onnxstudio-test-cache-onnx<version>/onnx-backend/node/<case>/`
(ONNXSTUDIO_TEST_CACHE overrides the first part) in the same layout as the shipped folders
(model.onnx, test_data_set_N/input_K.pb, output_K.pb) so every test reads one
kind of case. Anything that prevents this raises: a suite that silently found
no cases would pass vacuously.

`onnx` is used here only as the oracle that produces the data.
"""
from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import tempfile
import warnings

def _default_cache() -> pathlib.Path:
    """The system's temporary folder, one folder per onnx version (the cases
    are onnx's: another version builds others): tests write nothing into
    the checkout, and the cache outlives a run."""
    from importlib.metadata import PackageNotFoundError, version  # noqa: PLC0415
    try:
        onnx_version = version("onnx")
    except PackageNotFoundError:
        onnx_version = "none"
    return pathlib.Path(tempfile.gettempdir()) / f"onnxstudio-test-cache-onnx{onnx_version}"


CACHE = pathlib.Path(os.environ.get("ONNXSTUDIO_TEST_CACHE") or _default_cache()) / "onnx-backend"
SHIPPED_KINDS = ("simple", "pytorch-converted", "pytorch-operator")
NODE_CASES_MIN = 1800   # the onnx 1.2x wheels build ~1,884


@dataclasses.dataclass(frozen=True)
class Case:
    kind: str            # node, simple, pytorch-converted, pytorch-operator, light
    name: str
    dir: pathlib.Path    # holds model.onnx and test_data_set_*/ (light: see model_path)
    rtol: float = 1e-3
    atol: float = 1e-7

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def model_path(self) -> pathlib.Path:
        if self.kind == "light":
            return self.dir / f"{self.name}.onnx"
        return self.dir / "model.onnx"

    def data_sets(self) -> list[tuple[list[pathlib.Path], list[pathlib.Path]]]:
        """[(input .pb paths, output .pb paths)] for each test_data_set_N."""
        if self.kind == "light":
            # light/ models ship only the expected output; the input is
            # generated (see light_input below), as onnx's own runner does.
            return [([], [self.dir / f"{self.name}_output_0.pb"])]
        sets = []
        for d in sorted(self.dir.glob("test_data_set_*")):
            ins = sorted(d.glob("input_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
            outs = sorted(d.glob("output_*.pb"), key=lambda p: int(p.stem.split("_")[1]))
            sets.append((ins, outs))
        return sets


def _onnx_data_dir() -> pathlib.Path:
    import onnx.backend.test  # noqa: PLC0415  (oracle, test-only)
    return pathlib.Path(onnx.backend.test.__file__).parent / "data"


def _write_node_cases(target: pathlib.Path) -> None:
    from onnx.backend.test import loader  # noqa: PLC0415
    from onnx.backend.test.cmd_tools import generate_data  # noqa: F401,PLC0415
    from onnx import TensorProto, numpy_helper  # noqa: PLC0415

    # A folder of this process's own: pytest-xdist workers may all find the
    # cache missing and write it at once.
    tmp = target.with_name(f"{target.name}.tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = loader.load_node_model_tests()
    if len(cases) < NODE_CASES_MIN:
        raise RuntimeError(f"onnx built only {len(cases)} node test cases; expected >= {NODE_CASES_MIN}")

    def encode(value, vi):
        t = vi.type
        if t.HasField("map_type"):
            return numpy_helper.from_dict(value, vi.name)
        if t.HasField("sequence_type"):
            return numpy_helper.from_list(value, vi.name)
        if t.HasField("optional_type"):
            return numpy_helper.from_optional(value, vi.name)
        if isinstance(value, TensorProto):
            return value
        return numpy_helper.from_array(value, vi.name)

    for case in cases:
        d = tmp / case.name
        d.mkdir(parents=True)
        (d / "model.onnx").write_bytes(case.model.SerializeToString())
        if case.rtol != 1e-3 or case.atol != 1e-7:
            (d / "tolerance.txt").write_text(f"{case.rtol} {case.atol}\n")
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = d / f"test_data_set_{i}"
            ds.mkdir()
            for j, value in enumerate(inputs):
                (ds / f"input_{j}.pb").write_bytes(encode(value, case.model.graph.input[j]).SerializeToString())
            for j, value in enumerate(outputs):
                (ds / f"output_{j}.pb").write_bytes(encode(value, case.model.graph.output[j]).SerializeToString())
    (tmp / "COMPLETE").write_text(str(len(cases)))
    if target.exists() and not (target / "COMPLETE").exists():
        shutil.rmtree(target, ignore_errors=True)      # no marker: not a folder this code wrote
    try:
        tmp.rename(target)      # atomic: the folder appears complete or not at all
    except OSError:
        if not (target / "COMPLETE").exists():
            raise
        shutil.rmtree(tmp, ignore_errors=True)          # another worker finished first


def node_dir() -> pathlib.Path:
    target = CACHE / "node"
    if not (target / "COMPLETE").exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        _write_node_cases(target)
    return target


def _tolerance(d: pathlib.Path) -> tuple[float, float]:
    f = d / "tolerance.txt"
    if f.exists():
        r, a = f.read_text().split()
        return float(r), float(a)
    return 1e-3, 1e-7


def all_cases(kinds=("node", *SHIPPED_KINDS, "light")) -> list[Case]:
    """Every backend test case, built on first use. Raises if none can be had."""
    cases: list[Case] = []
    for kind in kinds:
        if kind == "node":
            root = node_dir()
            cases += [Case("node", p.name, p, *_tolerance(p)) for p in sorted(root.iterdir()) if p.is_dir()]
        elif kind == "light":
            root = _onnx_data_dir() / "light"
            cases += [Case("light", p.stem, root) for p in sorted(root.glob("*.onnx"))]
        else:
            root = _onnx_data_dir() / kind
            cases += [Case(kind, p.name, p, *_tolerance(p)) for p in sorted(root.iterdir())
                      if (p / "model.onnx").exists()]
    if not cases:
        raise RuntimeError("no ONNX backend test cases found; is the onnx test dependency installed?")
    return cases


def light_input(value_info):
    """The input onnx's backend runner feeds light/ models: arange(n)/n in float32,
    unknown dims taken as 1."""
    import numpy as np  # noqa: PLC0415

    dims = tuple(d.dim_value if d.HasField("dim_value") else 1 for d in value_info.type.tensor_type.shape.dim)
    n = int(np.prod(dims))
    return (np.arange(n).reshape(dims) / n).astype(np.float32)


def read_pb_value(path: pathlib.Path, value_info):
    """Decode an input_/output_*.pb with the onnx oracle.

    `value_info` is the onnx ValueInfoProto of the matching graph input or
    output: the file does not say which message it holds, its type does.
    Returns an ndarray, a list (sequence), a dict (map) or None (empty optional).
    """
    import onnx  # noqa: PLC0415
    from onnx import numpy_helper  # noqa: PLC0415

    data = path.read_bytes()
    t = value_info.type
    if t.HasField("sequence_type"):
        msg = onnx.SequenceProto()
        msg.ParseFromString(data)
        return numpy_helper.to_list(msg)
    if t.HasField("map_type"):
        msg = onnx.MapProto()
        msg.ParseFromString(data)
        return numpy_helper.to_dict(msg)
    if t.HasField("optional_type"):
        msg = onnx.OptionalProto()
        msg.ParseFromString(data)
        return numpy_helper.to_optional(msg)
    msg = onnx.TensorProto()
    msg.ParseFromString(data)
    return numpy_helper.to_array(msg)
