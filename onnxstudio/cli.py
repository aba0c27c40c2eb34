"""Headless commands. Each module in onnxstudio/commands/ is one sub-command:
it defines NAME, HELP, configure(parser) and run(args) -> exit code."""
from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from . import commands
from .errors import UserError


def _command_modules() -> dict:
    mods = {}
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            mods[mod.NAME] = mod
    return mods


def command_words() -> set[str]:
    """The first words that mean a command: the modules' names in commands/,
    as written or with - for _ (a command's NAME is its module's name with -
    for _; tests/test_app_start.py holds every command to it). Read without
    importing the commands: `onnxstudio FILE` then starts the app without
    the executor's kernels and the rest they import (0.6 s of its start)."""
    names = {info.name for info in pkgutil.iter_modules(commands.__path__)}
    return names | {name.replace("_", "-") for name in names}


def is_command(argv: list[str]) -> bool:
    if not argv:
        return False
    if argv[0] in ("-h", "--help", "--version"):
        return True
    return argv[0] in command_words()


def not_a_file_or_command(argv: list[str]) -> str:
    """Why `argv` can neither run a command nor open the app, or "".

    A first word that is neither a command nor an existing file is a
    mistyped command (or a missing file): saying so beats opening a window
    the user did not ask for, or the app's usage line."""
    first = next((a for a in argv if not a.startswith("-")), None)
    if first is None or os.path.exists(first):
        return ""
    if argv[0] != first:          # `onnxstudio --demo x`: the app's own options come first
        return ""
    if os.sep in first or "/" in first or os.path.splitext(first)[1]:
        return f"onnxstudio: {first}: no such file"
    import difflib
    names = sorted(_command_modules())
    close = difflib.get_close_matches(first, names, n=3, cutoff=0.6) or \
        [n for n in names if n.startswith(first[:3])]
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (f"onnxstudio: unknown command {first!r}{hint} (commands: {', '.join(names)}; "
            f"`onnxstudio FILE` opens a model in the app)")


def build_parser(mods: dict) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="onnxstudio",
        description="Explore, edit and step through ONNX models. "
                    "Without a command, `onnxstudio [FILE]` opens the app.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, mod in mods.items():
        sp = sub.add_parser(name, help=getattr(mod, "HELP", ""), description=getattr(mod, "HELP", ""))
        mod.configure(sp)
        sp.set_defaults(_run=mod.run)
    return p


def _version() -> str:
    try:
        from importlib.metadata import version
        return f"onnxstudio {version('onnxstudio')}"
    except Exception:  # noqa: BLE001
        return "onnxstudio (development)"


def main(argv: list[str]) -> int:
    from .core.errors import CoreError

    parser = build_parser(_command_modules())
    args = parser.parse_args(argv)
    if not getattr(args, "_run", None):
        parser.print_help()
        return 0
    try:
        return int(args._run(args) or 0)
    except UserError as e:
        print(f"onnxstudio {args.command}: {e}", file=sys.stderr)
        return e.exit_code
    except CoreError as e:
        print(f"onnxstudio {args.command}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"onnxstudio {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - a bug of ours: one clear line, the traceback on request
        if os.environ.get("ONNXSTUDIO_DEBUG"):
            raise
        print(f"onnxstudio {args.command}: internal error ({type(e).__name__}: {e}). This is a bug in "
              "onnxstudio; please report it with the model (ONNXSTUDIO_DEBUG=1 shows the traceback).",
              file=sys.stderr)
        return 3
