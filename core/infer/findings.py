"""Contradictions a rule can prove from known numbers, reported with
`ctx.error` (see context.py). Each helper returns what the rule needs next
(a normalised axis, whether a rank fits) so the rule reads as before.

Only known dims (non-negative ints) take part: a symbol, a fresh `?N` or an
unknown dim may be anything, so it never contradicts.
"""
from __future__ import annotations

from .fresh import mentions_fresh
from .symexpr import poly_of

BROADCAST = "shape.broadcast-conflict"
RANK = "shape.rank-mismatch"
DIM = "shape.dim-mismatch"
RESHAPE = "shape.reshape-mismatch"
FIXED = "shape.dim-fixed"          # a warning: a symbolic dim the numbers allow one size of
INDEX = "shape.index-out-of-range"
AXIS = "attr.axis-out-of-range"
PERM = "attr.perm-invalid"
LENGTH = "attr.length-mismatch"


def known(d) -> bool:
    return type(d) is int and d >= 0


def int_list(values) -> bool:
    """Whether `values` is a list of ints: an attribute of the wrong type
    (the checker's finding) decodes to something else and is not judged."""
    return isinstance(values, (list, tuple)) and all(type(v) is int for v in values)


_SHOWN_DIMS = 8


def show(shape) -> str:
    """A shape as messages write it: [1, 64, batch, ?]. Fresh names (`?3`)
    are numbered per run, so a message shows them as `?`: the same finding
    reads the same after an edit as after a fresh load."""
    if shape is None:
        return "(rank unknown)"
    dims = ["?" if d is None or mentions_fresh(d) else str(d) for d in shape[:_SHOWN_DIMS]]
    if len(shape) > _SHOWN_DIMS:
        dims.append(f"... ({len(shape)} dims)")
    return "[" + ", ".join(dims) + "]"


def input_label(ctx, i: int) -> str:
    v = ctx.inputs[i] if ctx.inputs is not None and i < len(ctx.inputs) else None
    name = getattr(v, "name", "")
    return f"input {i} {name!r}" if name else f"input {i}"


# --- broadcasting -------------------------------------------------------------------

def broadcast_conflict(ctx, indices, shapes=None) -> bool:
    """Report the first output axis where two of the inputs `indices` have
    known dims that differ and are both != 1 (numpy's rule, right-aligned).
    `shapes` replaces the inputs' own shapes (e.g. MatMul's batch dims)."""
    if shapes is None:
        shapes = [ctx.shape(i) for i in indices]
    ranked = [(i, s) for i, s in zip(indices, shapes) if s is not None]
    if len(ranked) < 2:
        return False
    rank = max(len(s) for _, s in ranked)
    for back in range(1, rank + 1):
        first = None
        for i, s in ranked:
            if back > len(s):
                continue
            d = s[-back]
            if not known(d) or d == 1:
                continue
            if first is None:
                first = (i, s, d)
            elif d != first[2]:
                j, sj, dj = first
                ctx.error(BROADCAST,
                          f"{input_label(ctx, j)} of shape {show(sj)} and {input_label(ctx, i)} of shape "
                          f"{show(s)} cannot broadcast: dims {dj} and {d} meet at axis {rank - back} "
                          "and neither is 1")
                return True
    return False


# --- ranks and dims --------------------------------------------------------------------

def require_rank(ctx, i: int, rank: int, why: str) -> bool:
    """False (and an error) when input i has a known rank other than `rank`."""
    s = ctx.shape(i)
    if s is None or len(s) == rank:
        return True
    ctx.error(RANK, f"{input_label(ctx, i)} has rank {len(s)} {show(s)} but {ctx.op_type} needs rank {rank} ({why})")
    return False


def require_min_rank(ctx, i: int, rank: int, why: str) -> bool:
    s = ctx.shape(i)
    if s is None or len(s) >= rank:
        return True
    ctx.error(RANK, f"{input_label(ctx, i)} has rank {len(s)} {show(s)} but {ctx.op_type} needs rank "
                    f"{rank} or more ({why})")
    return False


def dims_differ(a, b) -> bool:
    return known(a) and known(b) and a != b


def one_symbol(d):
    """(symbol, k) when dim `d` is k times one symbol the user can set:
    `batch` is (batch, 1), `256*batch` is (batch, 256). None for a number,
    a sum, a product of symbols, and a dim that mentions a name made for an
    unknown size (`?3`: fixing it says nothing the user gave). Read from
    the polynomial, never from the spelling: a name from the file is one
    symbol however it is spelt (`batch-size`, `seq len`), and a rounded
    window count (`floor((H+1)/2)`) is one symbol too. The one test of "one
    symbol" for both shape.dim-fixed warnings (symbol_fixed_by, and the
    Reshape's in ops_shape)."""
    if not isinstance(d, str) or mentions_fresh(d):
        return None
    p = poly_of(d)
    if p is None or len(p) != 1:
        return None
    ((mono, coeff),) = p.items()
    return (mono[0], coeff) if len(mono) == 1 and coeff > 0 else None


def symbol_fixed_by(a, b):
    """(symbol, size) when dims `a` and `b` are equal for one size of one
    symbol only: `256*batch` against 256 holds only with batch 1 (a batch
    folded into another dim by a Reshape an export traced at one size).
    None when they are equal for any size, for none we can tell, when the
    symbol is one made for an unknown size (a name for "any size" fixed
    here would say nothing the user gave), and for a symbol on its own
    against a number: a file naming every dim (`unk__52` against a weight's
    128) only names the size the weights give."""
    for sym_side, number in ((a, b), (b, a)):
        if not known(number) or not number:
            continue
        one = one_symbol(sym_side)
        if one is not None and one[1] > 1 and number % one[1] == 0:
            return one[0], number // one[1]
    return None


def warn_symbol_fixed(ctx, a, b, what: str) -> None:
    """A warning (shape.dim-fixed) when `a` and `b`, which the operator needs
    equal, are equal for one size of a symbol only (see symbol_fixed_by)."""
    fixed = symbol_fixed_by(a, b)
    if fixed is not None:
        ctx.warn(FIXED, f"{fixed[0]} can only be {fixed[1]} here: {what} are {a} and {b}, equal for that size "
                        f"alone (any other fails at run)")


# --- axis-type attributes -------------------------------------------------------------

def axis(ctx, value, rank, name: str = "axis", *, end_ok: bool = False, what: str = "the input"):
    """`value` as an index into `rank` dims, or None with an error when it
    is outside [-rank, rank-1] ([-rank, rank] with `end_ok`, for an axis
    that may point past the last dim, like Flatten's); None without one
    when the rank or the value is not known."""
    if rank is None or type(value) is not int:
        return None
    hi = rank if end_ok else rank - 1
    if -rank <= value <= hi:
        return value + rank if value < 0 else value
    ctx.error(AXIS, f"{_what(name)} is {value} but {what} has rank {rank}: it must lie in [{-rank}, {hi}]")
    return None


def axes(ctx, values, rank, name: str = "axes", *, what: str = "the input", unique: bool = False):
    """Each of `values` checked as `axis`; with `unique` (where the spec
    forbids it, not merely leaves it undefined) an error also for an axis
    given twice. Returns the normalised list, or None after an error (or
    for values that are not a list of ints)."""
    if rank is None or type(values) not in (list, tuple):
        return None
    out = []
    for v in values:
        if type(v) is not int:
            return None
        if v < 0:
            v += rank
            if v < 0:
                break
        elif v >= rank:
            break
        out.append(v)
    else:
        if unique and len(set(out)) != len(out):
            ctx.error(AXIS, f"{_what(name)} {list(values)} names an axis twice (rank {rank})")
            return None
        return out
    bad = next(v for v in values if not -rank <= v < rank)
    ctx.error(AXIS, f"{_what(name)} holds {bad} but {what} has rank {rank}: every entry must lie "
                    f"in [{-rank}, {rank - 1}]")
    return None


def perm(ctx, values, rank) -> bool:
    """True when `values` is a permutation of range(rank) (or unknown)."""
    if rank is None or not int_list(values):
        return True
    if sorted(values) == list(range(rank)):
        return True
    ctx.error(PERM, f"attribute 'perm' is {list(values)} but the input has rank {rank}: it must be a "
                    f"permutation of 0..{rank - 1}")
    return False


def length(ctx, name: str, values, expected: int, what: str) -> bool:
    """True when attribute `name` is absent or has `expected` entries."""
    if not int_list(values) or len(values) == expected:
        return True
    ctx.error(LENGTH, f"{_what(name)} has {len(values)} entries {list(values)} but {what} needs {expected}")
    return False


def list_source(ctx, name: str, index: int) -> str:
    """How messages name a list that moved from an attribute to input `index`."""
    return name if name in ctx.attrs else f"input {index} ({name})"


def _what(name: str) -> str:
    return name if name.startswith("input") else f"attribute {name!r}"
