"""`onnxstudio run FILE ...`: run a model, or part of it, with the built-in executor."""
from __future__ import annotations

import pathlib
import re
import sys
import time
import warnings

import numpy as np

from ..core import load
from ..core.exec import ExecError, FeedError, Session
from ..core.exec.feeds import RANDOM_INT_RANGE, defaulted_dims, random_value, read_array_file
from ..core.exec.plan import nodes_between
from ..core.exec.values import describe
from ..errors import UserError

NAME = "run"
HELP = "Run a model (or selected nodes) on inputs with the built-in numpy executor."


def configure(p) -> None:
    p.add_argument("file", help="the .onnx file")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE",
                   help="an input from a .npy/.pb file (NAME=FILE), or every array of an .npz file")
    p.add_argument("--random", action="store_true", help="make random values for inputs not given")
    p.add_argument("--seed", type=int, default=0, help="seed for --random and random operators")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                   help="for --random: the size of a symbolic dimension (NAME=VALUE) or of one axis "
                        "of an input (INPUT[AXIS]=VALUE); unknown sizes default to 1")
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--nodes", metavar="NAME,NAME", help="run only these nodes (by node name)")
    sel.add_argument("--from", dest="from_", metavar="VALUE", help="run the nodes from these values (comma-separated) ...")
    p.add_argument("--to", metavar="VALUE", help="... to these values (with --from)")
    p.add_argument("--output-dir", "-o", metavar="DIR", help="write each output as DIR/NAME.npy")
    p.add_argument("--keep-intermediates", action="store_true",
                   help="keep (and with --output-dir write) every intermediate value")
    p.add_argument("--compare-onnxruntime", action="store_true",
                   help="also run onnxruntime (if installed) and print the error per output")


def _parse_pairs(items, what):
    out = {}
    for item in items:
        if "=" not in item:
            raise UserError(f"{what} {item!r}: expected NAME=VALUE")
        k, v = item.split("=", 1)
        out[k] = v
    return out


def _feeds(args, model, session) -> tuple[dict, list, list]:
    """(feeds, names of the inputs given random values, the dims of those
    inputs sized 1 for want of a --dim)."""
    feeds = {}
    for item in args.input:
        name, path = item.split("=", 1) if "=" in item and not pathlib.Path(item).exists() else (None, item)
        feeds.update(read_array_file(path, name))
    dims = {}
    for k, v in _parse_pairs(args.dim, "--dim").items():
        try:
            dims[k] = int(v)
        except ValueError:
            dims[k] = -1
        if dims[k] < 0:
            raise UserError(f"--dim {k}={v}: the size must be a whole number, 0 or more")
    missing = [n for n in session.input_names if n not in feeds and n not in model.graph.initializers]
    if not args.random:
        return feeds, [], []
    rng = np.random.default_rng(args.seed)
    sized_one = []
    for n in missing:
        value = model.graph.lookup(n)
        feeds[n] = random_value(value, rng, dims)
        sized_one += [d for d in defaulted_dims(value, dims) if d not in sized_one]
    return feeds, missing, sized_one


def _random_hint(randomised: list, sized_one: list) -> str:
    """A failing run on random inputs is often the inputs' fault (an index
    out of range, a length of 0, an image of 1x1 pixels): say which ones
    were made up, and which sizes were guessed."""
    if not randomised:
        return ""
    lo, hi = RANDOM_INT_RANGE
    hint = (f"\n(random values were used for {', '.join(randomised)}; integers are {lo} or {hi}, floats standard "
            "normal: give real inputs with --input")
    if sized_one:
        shown = ", ".join(sized_one[:6]) + (f" and {len(sized_one) - 6} more" if len(sized_one) > 6 else "")
        hint += f"; dimensions of unknown size were made 1 ({shown}): give sizes with --dim"
    return hint + ")"


def _select(args, model):
    g = model.graph
    if args.nodes:
        return [n.strip() for n in args.nodes.split(",") if n.strip()]
    if args.from_ or args.to:
        if not (args.from_ and args.to):
            raise UserError("--from and --to go together")
        src = [s.strip() for s in args.from_.split(",")]
        dst = [s.strip() for s in args.to.split(",")]
        for name in src + dst:
            if g.lookup(name) is None:
                raise UserError(f"no value named {name!r} in {args.file}")
        nodes = nodes_between(g, src, dst)
        if not nodes:
            raise UserError(f"no path from {args.from_} to {args.to}")
        return nodes
    return None


def _stats(value) -> str:
    if not isinstance(value, np.ndarray) or value.dtype == object or value.size == 0:
        return ""
    with np.errstate(all="ignore"):
        a = value.astype(np.float64) if value.dtype.kind != "c" else np.abs(value)
        nan = int(np.isnan(a).sum())
        if nan == a.size:
            return "  all NaN"
        text = f"  min {np.nanmin(a):.6g}  max {np.nanmax(a):.6g}  mean {np.nanmean(a):.6g}"
        return text + (f"  ({nan} NaN)" if nan else "")


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "value"


def _write(out_dir: pathlib.Path, values: dict) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, value in values.items():
        if isinstance(value, np.ndarray):
            np.save(out_dir / f"{_safe_name(name)}.npy", value, allow_pickle=value.dtype == object)


def _compare_ort(args, feeds, results) -> None:
    try:
        import onnxruntime as ort  # optional "compare with" backend
    except ImportError:
        print("onnxruntime is not installed; nothing to compare with", file=sys.stderr)
        return
    try:
        options = ort.SessionOptions()
        options.log_severity_level = 3      # errors only: its notes on unused initializers are not ours to show
        sess = ort.InferenceSession(str(args.file), options, providers=["CPUExecutionProvider"])
        names = [o.name for o in sess.get_outputs() if o.name in results]
        theirs = dict(zip(names, sess.run(names, {k: v for k, v in feeds.items()
                                                  if k in {i.name for i in sess.get_inputs()}})))
    except Exception as e:  # noqa: BLE001
        print(f"onnxruntime could not run the model: {str(e).splitlines()[0]}", file=sys.stderr)
        return
    print("compared with onnxruntime:")
    for name, ref in theirs.items():
        ours = results[name]
        if not isinstance(ref, np.ndarray) or ref.dtype == object:
            same = np.array_equal(np.asarray(ours, dtype=object), np.asarray(ref, dtype=object))
            print(f"  {name}: {'equal' if same else 'DIFFERENT'}")
            continue
        a = np.asarray(ours, dtype=np.float64)
        b = np.asarray(ref, dtype=np.float64)
        if a.shape != b.shape:
            print(f"  {name}: shape {list(a.shape)} vs onnxruntime {list(b.shape)}")
            continue
        with np.errstate(all="ignore"):
            both_nan = np.isnan(a) & np.isnan(b)        # NaN on both sides agrees
            err = np.where(both_nan, 0.0, np.abs(a - b))
            rel = np.where(both_nan, 0.0, err / np.maximum(np.abs(b), 1e-12))
        comparable = ~np.isnan(err)
        one_sided = err.size - int(comparable.sum())
        note = f" ({one_sided} values are NaN on one side only)" if one_sided else ""
        max_err = err[comparable].max() if one_sided < err.size else 0
        max_rel = rel[comparable].max() if one_sided < err.size else 0
        print(f"  {name}: max abs error {max_err:.3g}, max rel error {max_rel:.3g}{note}")


def run(args) -> int:
    model = load(args.file)
    nodes = _select(args, model)
    try:
        session = Session(model, nodes=nodes, keep=args.keep_intermediates, seed=args.seed)
    except ExecError as e:
        raise UserError(str(e), exit_code=1) from None
    feeds, randomised, sized_one = _feeds(args, model, session)
    try:
        missing = [n for n in session.input_names if n not in feeds and n not in model.graph.initializers]
        if nodes is not None and missing:
            # Compute the selection's boundary values from the model inputs first.
            prefix = Session(model, outputs=missing, seed=args.seed)
            feeds.update(prefix.run({k: v for k, v in feeds.items() if k in prefix.input_names}))
            feeds = {k: v for k, v in feeds.items() if k in session.input_names}
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # numpy warns of reductions over empty axes; NaN says it in the result.
            warnings.simplefilter("ignore", RuntimeWarning)
            results = session.run(feeds)
        elapsed = time.perf_counter() - t0
    except FeedError as e:
        raise UserError(str(e), exit_code=2) from None
    except ExecError as e:
        raise UserError(str(e) + _random_hint(randomised, sized_one), exit_code=1) from None
    print(f"ran {len(session.nodes)} nodes in {elapsed * 1e3:.1f} ms")
    for name, value in results.items():
        print(f"{name}: {describe(value)}{_stats(value)}")
    if args.output_dir:
        values = {**session.values, **results} if args.keep_intermediates else results
        _write(pathlib.Path(args.output_dir), values)
        print(f"wrote {len(values)} arrays to {args.output_dir}")
    if args.compare_onnxruntime:
        if nodes is not None:
            print("--compare-onnxruntime compares whole-model outputs only", file=sys.stderr)
        else:
            _compare_ort(args, feeds, results)
    return 0
