"""Headless commands. Each module in onnxstudio/commands/ is one sub-command:
it defines NAME, configure(parser) and run(args) -> exit code; commands.COMMANDS
lists them with their help lines, and a call imports only the one it runs."""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from .commands import COMMANDS, module_name
from .errors import UserError


def _command_modules() -> dict:
    """Every command's module by name: for tests and for warming a process
    up before it forks (tests/fuzz); a call of the CLI imports one."""
    return {name: importlib.import_module(module_name(name)) for name in COMMANDS}


def command_words() -> set[str]:
    """The first words that mean a command: the commands' names, as written
    or with _ for - (the module's spelling). Read from the table, without
    importing the commands: `onnxstudio FILE` then starts the app without
    the executor's kernels and the rest they import (0.6 s of its start)."""
    return set(COMMANDS) | {name.replace("-", "_") for name in COMMANDS}


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
    names = sorted(COMMANDS)
    close = difflib.get_close_matches(first, names, n=3, cutoff=0.6) or \
        [n for n in names if n.startswith(first[:3])]
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    return (f"onnxstudio: unknown command {first!r}{hint} (commands: {', '.join(names)}; "
            f"`onnxstudio FILE` opens a model in the app)")


def chosen_command(argv: list[str]) -> str | None:
    """The command `argv` runs (its first word that is not an option), or None."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(chosen: str | None) -> argparse.ArgumentParser:
    """Every command is listed with its help line; only `chosen`'s module
    is imported, to add its options (argparse never reads the others')."""
    p = argparse.ArgumentParser(
        prog="onnxstudio",
        description="Explore, edit and step through ONNX models. "
                    "Without a command, `onnxstudio [FILE]` opens the app.")
    p.add_argument("--version", action="version", version=_version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_line in COMMANDS.items():
        sp = sub.add_parser(name, help=help_line, description=help_line)
        if name == chosen:
            mod = importlib.import_module(module_name(name))
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

    parser = build_parser(chosen_command(argv))
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
