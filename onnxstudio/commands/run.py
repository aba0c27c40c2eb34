"""`onnxstudio run FILE ...`: run a model, or part of it, with the built-in executor."""
from __future__ import annotations

import json
import os
import pathlib
import re
import sys
import time
import warnings

import numpy as np

from ..core import load
from ..core.exec import ExecError, FeedError, Session
from ..core.exec.debug import boundary_feeds, typed_value
from ..core.exec.dim_sizes import DimSizeError, resolve_dim_sizes
from ..core.exec.feeds import RANDOM_INT_RANGE, read_array_file
from ..core.exec.input_gen import InputSet, default_input_set, default_spec, make_feeds, tensor_type, unsized_dims
from ..core.exec.run_files import load_npz, save_npz
from ..core.exec.plan import nodes_between
from ..core.exec.values import declared_mismatch, describe
from ..errors import UserError
from ._editing import names
from ._names import unknown_name
from ._compare import compare, comparison_options, configure_comparison
from .counts import counted

NAME = "run"


def configure_inputs(p) -> None:
    """The model file and the options that make its inputs (run and reduce share them)."""
    p.add_argument("file", help="the .onnx file")
    p.add_argument("--input", "-i", action="append", default=[], metavar="NAME=FILE",
                   help="an input from a .npy/.pb file (NAME=FILE), or every array of an .npz file")
    p.add_argument("--load-inputs", metavar="FILE", action="append", default=[],
                   help="inputs saved by --save-inputs or the app's Save Inputs (an .npz of arrays named like "
                        "the inputs), or an input set the app saved (.json: its sources and seed)")
    p.add_argument("--random", action="store_true",
                   help="make values for inputs not given, as the app's Run dock makes them for the same "
                        "--seed: floats standard normal, integers 0..1 (token ids below their table's size), "
                        "a sample rate its rate, a fed-back state zeros")
    p.add_argument("--seed", type=int, default=0, help="seed for --random and random operators")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=VALUE",
                   help="for --random: the size of a symbolic dimension (NAME=VALUE), in every input "
                        "that has it, or of one axis of an input (INPUT[AXIS]=VALUE; an axis that is a "
                        "symbolic dimension sizes that symbol everywhere); a name that sizes no dimension "
                        "is refused; unknown sizes default to 1")


def configure(p) -> None:
    configure_inputs(p)
    p.add_argument("--save-inputs", metavar="FILE.npz",
                   help="write every input fed to the run to one .npz (arrays by input name), before the run")
    p.add_argument("--save-values", metavar="FILE.npz",
                   help="write every value the run computed (the outputs and every intermediate of the main "
                        "graph) to one .npz, by value name")
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--nodes", metavar="NAME,NAME", help="run only these nodes (by node name)")
    sel.add_argument("--from", dest="from_", metavar="VALUE",
                     help="run the nodes from these values (comma-separated) ...")
    p.add_argument("--to", metavar="VALUE", help="... to these values (with --from)")
    p.add_argument("--output-dir", "-o", metavar="DIR", help="write each output as DIR/NAME.npy")
    p.add_argument("--keep-intermediates", action="store_true",
                   help="keep (and with --output-dir write) every intermediate value")
    p.add_argument("--keep-body-values", action="store_true",
                   help="keep the values computed inside If/Loop/Scan bodies (a loop's last iteration), up to "
                        "--body-budget; says what was kept and names what the budget left out")
    p.add_argument("--body-budget", type=int, default=512, metavar="MIB",
                   help="memory for the values kept inside bodies, by --keep-body-values and by "
                        "--compare-onnxruntime, which compares them (default 512)")
    configure_comparison(p)
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (outputs, and the comparison node by node)")


def _dim_sizes(args, model, session) -> dict:
    """The --dim options as sizes by symbol or by INPUT[AXIS] (see
    core/exec/dim_sizes.py): an axis that is a symbol sizes the symbol, so
    the inputs sharing it agree; a name that sizes no dim is refused."""
    if not args.dim:
        return {}
    requests = []
    for item in args.dim:
        key, sep, size = item.partition("=")
        if not sep or not key.strip():
            raise UserError(f"--dim {item!r}: expected NAME=SIZE or INPUT[AXIS]=SIZE")
        requests.append((key.strip(), size))
    inferred: dict = {}
    inputs = [typed_value(model, n, inferred) for n in session.input_names if n not in model.graph.initializers]
    try:
        return resolve_dim_sizes([v for v in inputs if v is not None], requests)
    except DimSizeError as e:
        raise UserError(f"--dim {e}") from None


def input_feeds(args, model, session) -> tuple[dict, list, list]:
    """(feeds, names of the inputs given random values, the dims of those
    inputs sized 1 for want of a --dim)."""
    feeds = {}
    for item in args.input:
        name, path = item.split("=", 1) if "=" in item and not pathlib.Path(item).exists() else (None, item)
        feeds.update(read_array_file(path, name))
    dims = _dim_sizes(args, model, session)
    graph_inputs = [v for v in model.graph.inputs if v.name not in model.graph.initializers]
    input_set = None
    for path in args.load_inputs:
        if path.lower().endswith(".json"):
            input_set = _load_set(path, graph_inputs, model.graph.outputs, dims)
        else:
            feeds.update(_loaded_arrays(path, graph_inputs, session))
    missing = [n for n in session.input_names if n not in feeds and n not in model.graph.initializers]
    if input_set is None and not args.random:
        return feeds, [], []
    if input_set is None:
        input_set = default_input_set(graph_inputs, model.graph.outputs, args.seed, dims)
    # One generator with the app (input_gen): the same seed gives the same arrays, and
    # a sample rate, a fed-back state and a window's length get the app's defaults.
    made_here = {v.name for v in graph_inputs if v.name in missing and _tensor_declared(v)}
    skip = {v.name for v in graph_inputs} - made_here
    feeds.update(make_feeds(graph_inputs, input_set, skip=skip))
    randomised = [n for n in made_here if input_set.spec(n).source == "random"]
    sized_one = unsized_dims(graph_inputs, input_set, skip)
    rest = [n for n in missing if n not in feeds]
    if rest and args.random:
        # A selection's intermediates, and inputs of no declared tensor type: random values of
        # their (inferred) type.
        made = boundary_feeds(model, rest, given={}, rng=np.random.default_rng(args.seed), dims=dims)
        feeds.update(made.feeds)
        randomised += made.randomised
        sized_one += [d for d in made.sized_one if d not in sized_one]
    return feeds, randomised, sized_one


def _tensor_declared(v) -> bool:
    """A tensor input whose element type and rank the file declares: the
    inputs input_gen makes (the app's Run dock lists the same)."""
    from ..core.ir.types import TensorType
    t = tensor_type(v)
    return isinstance(v.type, TensorType) and t is not None and t.shape is not None and bool(t.elem_type)


def _loaded_arrays(path: str, graph_inputs, session) -> dict:
    """The arrays of the .npz at `path` that the run takes (a model input, or
    a selection's boundary value); the other names are said on stderr."""
    try:
        arrays = load_npz(path)
    except FeedError as e:
        raise UserError(f"--load-inputs {e}") from None
    takes = set(session.input_names) | {v.name for v in graph_inputs}
    unused = [k for k in arrays if k not in takes]
    if unused:
        print(f"--load-inputs {path}: the run has no input {', '.join(unused)} (ignored)", file=sys.stderr)
    return {k: v for k, v in arrays.items() if k in takes}


def _load_set(path: str, graph_inputs, outputs, dims: dict) -> InputSet:
    """An input set the app saved: its sources (random with its seed, files,
    images, constants), with each input it does not name at its default
    and the --dim sizes over its own."""
    try:
        data = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
        loaded = InputSet.from_json(data)
    except FileNotFoundError:
        raise UserError(f"--load-inputs {path}: no such file") from None
    except (OSError, ValueError, FeedError) as e:
        raise UserError(f"--load-inputs {path}: not an input set the app saved ({e})") from None
    known = {v.name for v in graph_inputs}
    unknown = [n for n in loaded.inputs if n not in known]
    if unknown:
        print(f"--load-inputs {path}: the model has no input {', '.join(unknown)} (ignored)", file=sys.stderr)
    for v in graph_inputs:
        loaded.inputs.setdefault(v.name, default_spec(v, outputs))
    loaded.dims.update(dims)
    return loaded


def _random_hint(randomised: list, sized_one: list) -> str:
    """A failing run on random inputs is often the inputs' fault (an index
    out of range, a length of 0, an image of 1x1 pixels): say which ones
    were made up, and which sizes were guessed."""
    if not randomised:
        return ""
    lo, hi = RANDOM_INT_RANGE
    hint = (f"\n(random values were used for {', '.join(randomised)}; integers are {lo} or {hi} (token ids below "
            "their table's size), floats standard normal: give real inputs with --input or --load-inputs")
    if sized_one:
        shown = ", ".join(sized_one[:6]) + (f" and {len(sized_one) - 6} more" if len(sized_one) > 6 else "")
        hint += f"; dimensions of unknown size were made 1 ({shown}): give sizes with --dim"
    return hint + ")"


def _select(args, model):
    g = model.graph
    if args.nodes is not None:
        # Unknown names are bad input (exit 2), like unknown values for --from/--to.
        wanted = names(args.nodes, "--nodes")
        known = {n.name for n in g.nodes if n.name}
        for name in wanted:
            if name not in known:
                raise unknown_name("--nodes", name, "node", f"the main graph of {args.file}", known)
        return wanted
    if args.from_ is not None or args.to is not None:
        if args.from_ is None or args.to is None:
            raise UserError("--from and --to go together")
        src, dst = names(args.from_, "--from"), names(args.to, "--to")
        for option, given in (("--from", src), ("--to", dst)):
            for name in given:
                if g.lookup(name) is None:
                    raise unknown_name(option, name, "value", f"the main graph of {args.file}", g.values())
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


PREVIEW_ITEMS = 3        # elements of a sequence, and
PREVIEW_ENTRIES = 8      # entries of a map, shown after a run


def _preview(value) -> str:
    """A sequence's or a map's first elements (a classifier's probabilities
    per class: "[0] {0: 0.0974, 1: 0.21, 2: 0.236, 3: 0.457}"); "" for a
    tensor, whose statistics _stats gives."""
    if isinstance(value, dict):
        shown = [f"{_element(k)}: {_element(v)}" for k, v in list(value.items())[:PREVIEW_ENTRIES]]
        return "{" + ", ".join(shown) + (", ..." if len(value) > PREVIEW_ENTRIES else "") + "}"
    if isinstance(value, list):
        shown = [f"[{i}] {_preview(v) or describe(v)}" for i, v in enumerate(value[:PREVIEW_ITEMS])]
        return ", ".join(shown) + (", ..." if len(value) > PREVIEW_ITEMS else "")
    return ""


def _element(x) -> str:
    """One key or value of a map, short; a tensor by its type and shape."""
    if isinstance(x, (str, bytes)):
        return repr(x.decode("utf-8", "replace") if isinstance(x, bytes) else x)
    a = np.asarray(x)
    if a.size == 1 and a.dtype.kind in "biuf":
        return f"{a.reshape(()).item():.4g}" if a.dtype.kind == "f" else str(a.reshape(()).item())
    return describe(x)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "value"


def _write(out_dir: pathlib.Path, values: dict) -> list:
    """Each array as DIR/NAME.npy; the names of the values that are not
    arrays (sequences, maps, absent optionals), which no .npy holds."""
    out_dir.mkdir(parents=True, exist_ok=True)
    left_out = []
    for name, value in values.items():
        if isinstance(value, np.ndarray):
            np.save(out_dir / f"{_safe_name(name)}.npy", value, allow_pickle=value.dtype == object)
        else:
            left_out.append(name)
    return left_out


def _wrongly_declared(model, results: dict) -> dict:
    """{graph output name: why its declared type does not fit the value this
    run gave} (a file declaring [1] for an output a batch makes [9]: the
    value is what the graph computes; onnxruntime too only warns)."""
    declared = {v.name: v for v in model.graph.outputs}
    found = {}
    for name, value in results.items():
        why = declared_mismatch(declared[name], value) if name in declared else None
        if why is not None:
            found[name] = why
    return found


def _output_dir(arg: str | None) -> pathlib.Path | None:
    """The --output-dir, made (and proved writable) before the run: a typo
    should not cost a long run, and it is the user's input, not our bug."""
    if not arg:
        return None
    out = pathlib.Path(arg)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise UserError(f"--output-dir {out}: is a file, not a folder") from None
    except NotADirectoryError:
        raise UserError(f"--output-dir {out}: a part of that path is a file, not a folder") from None
    except OSError as e:
        raise UserError(f"--output-dir {out}: cannot make the folder ({e.strerror or e})") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UserError(f"--output-dir {out}: the folder is not writable")
    return out


def run(args) -> int:
    if args.seed < 0:
        # numpy's generators take no negative seed: say so before any work.
        raise UserError(f"--seed {args.seed}: the seed must be a whole number, 0 or more")
    compares = args.compare_onnxruntime or args.golden or args.compare_model
    if compares and (args.nodes is not None or args.from_ is not None or args.to is not None):
        # Refused before the run, not noted after it: the comparison asked for would never come.
        raise UserError("a comparison (--compare-onnxruntime, --golden, --compare-model) compares whole-model "
                        "runs only; leave out --nodes/--from/--to to compare")
    model = load(args.file)
    nodes = _select(args, model)
    out_dir = _output_dir(args.output_dir)
    save_inputs = file_target("--save-inputs", args.save_inputs)
    save_values = file_target("--save-values", args.save_values)
    compare_options = comparison_options(args, model)
    try:
        session = Session(model, nodes=nodes, keep=args.keep_intermediates or save_values is not None,
                          seed=args.seed, keep_body_values=args.keep_body_values,
                          body_budget=max(0, args.body_budget) << 20)
    except ExecError as e:
        raise UserError(str(e), exit_code=1) from None
    randomised, sized_one = [], []
    try:
        feeds, randomised, sized_one = input_feeds(args, model, session)
        missing = [n for n in session.input_names if n not in feeds and n not in model.graph.initializers]
        if nodes is not None and missing:
            # The selection's boundary values, computed from the model inputs (the policy is core's).
            feeds = boundary_feeds(model, session.input_names, given=feeds, seed=args.seed).feeds
        if save_inputs is not None:
            # Before the run: the inputs of a failing run are the ones worth keeping.
            _save("--save-inputs", save_inputs, {n: feeds[n] for n in session.input_names if n in feeds},
                  "input", args.json)
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            # numpy warns of reductions over empty axes; NaN says it in the result.
            warnings.simplefilter("ignore", RuntimeWarning)
            results = session.run(feeds)
        elapsed = time.perf_counter() - t0
    except FeedError as e:
        # The session names what is missing; the way to give it is the command line's.
        hint = ("; give them with --input or --load-inputs, or make them with --random"
                if str(e).startswith("missing input") else "")
        raise UserError(str(e) + hint, exit_code=2) from None
    except ExecError as e:
        # numpy's own words last: the line first says what is wrong in a user's words
        said = f" (numpy said: {e.detail})" if e.detail else ""
        raise UserError(str(e) + _random_hint(randomised, sized_one) + said, exit_code=1) from None
    say = (lambda *a, **k: None) if args.json else print    # --json: stdout is one JSON object
    say(f"ran {counted(len(session.nodes), 'node')} in {elapsed * 1e3:.1f} ms")
    wrongly_declared = _wrongly_declared(model, results)
    for name, value in results.items():
        preview = _preview(value)
        say(f"{name}: {describe(value)}{_stats(value)}" + (f": {preview}" if preview else ""))
        if name in wrongly_declared:
            say(f"  note: the file's declaration of {name} does not hold for this run: {wrongly_declared[name]}")
    if session.body_values is not None:
        say(session.body_values.summary())
    if out_dir is not None:
        values = {**session.values, **results} if args.keep_intermediates else results
        try:
            left_out = _write(out_dir, values)
        except OSError as e:
            raise UserError(f"--output-dir {out_dir}: cannot write ({e.strerror or e})") from None
        say(f"wrote {counted(len(values) - len(left_out), 'array')} to {out_dir}")
        if left_out:
            print(f"--output-dir {out_dir}: a .npy holds arrays only; left out {', '.join(left_out)} "
                  "(sequences, maps and absent optionals have no .npy form)", file=sys.stderr)
    if save_values is not None:
        _save("--save-values", save_values, {**session.values, **results}, "value", args.json)
    comparison, agrees = None, True
    if compare_options is not None:
        comparison, agrees = compare(args, model, feeds, compare_options)
    if args.json:
        print(json.dumps({"nodes_run": len(session.nodes), "milliseconds": round(elapsed * 1e3, 3),
                          "outputs": {name: describe(value) for name, value in results.items()},
                          "declarations_not_holding": wrongly_declared,
                          "comparison": comparison,
                          **({"body_values": session.body_values.to_json()} if session.body_values else {})},
                         indent=1))
    return 0 if agrees else 1


def file_target(option: str, arg: str | None, suffix: str = ".npz", stem: str = "FILE") -> pathlib.Path | None:
    """The file an option writes, checked before the run: its name ends in
    `suffix` (an .npz is what --load-inputs and the app read) and its folder
    exists."""
    if not arg:
        return None
    path = pathlib.Path(arg)
    if path.suffix.lower() != suffix:
        raise UserError(f"{option} {arg}: name the file {stem}{suffix}")
    if not path.parent.absolute().is_dir():
        raise UserError(f"{option} {arg}: the folder {path.parent} does not exist")
    if path.is_dir():
        raise UserError(f"{option} {arg}: is a folder; name a file")
    return path


def _save(option: str, path: pathlib.Path, values: dict, what: str, quiet: bool) -> None:
    try:
        written, left_out = save_npz(path, values)
    except OSError as e:
        raise UserError(f"{option} {path}: cannot write ({e.strerror or e})") from None
    if not quiet:
        print(f"wrote {counted(len(written), what)} to {path}")
    if left_out:
        print(f"{option} {path}: an .npz cannot hold {', '.join(left_out)} (sequences, maps, absent optionals, "
              "bfloat16/float8): left out", file=sys.stderr)
