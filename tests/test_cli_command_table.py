"""The table of commands (onnxstudio/commands/__init__.py COMMANDS) is what
`onnxstudio --help` lists and what tells a command from a file; a call of
the CLI imports only the command it runs. The table must agree with the
modules, and the imports are counted in a child process (this one has
imported commands already)."""
import importlib
import json
import pkgutil
import subprocess
import sys

from onnxstudio import cli, commands
from onnxstudio.commands import COMMANDS, module_name
from onnxstudio.resources import sample_path

PROBE = """
import contextlib, io, json, sys
from onnxstudio import cli
out = io.StringIO()
with contextlib.redirect_stdout(out):
    try:
        code = cli.main(sys.argv[1:])
    except SystemExit as e:
        code = e.code
loaded = sorted(m.rsplit(".", 1)[1] for m in sys.modules if m.startswith("onnxstudio.commands."))
print(json.dumps({"code": code, "out": out.getvalue(), "loaded": loaded}))
"""


def _call(*args):
    proc = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.splitlines()[-1])


def _command_modules_on_disk() -> dict:
    """NAME -> module of every module in commands/ that is a command (has NAME and run)."""
    found = {}
    for info in pkgutil.iter_modules(commands.__path__):
        mod = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(mod, "NAME") and hasattr(mod, "run"):
            found[mod.NAME] = mod
    return found


def test_the_table_lists_every_command_module_and_nothing_else():
    on_disk = _command_modules_on_disk()
    assert len(on_disk) > 10
    assert sorted(COMMANDS) == sorted(on_disk)
    for name, mod in on_disk.items():
        assert importlib.import_module(module_name(name)) is mod
        assert callable(mod.configure) and callable(mod.run)
        assert COMMANDS[name].strip(), f"{name} has no help line"
        # The table is the one place a help line is written.
        assert not hasattr(mod, "HELP"), f"{name} has a HELP of its own beside the table's"


def test_help_lists_every_command_with_its_help_line_without_importing_them():
    r = _call("--help")
    assert r["code"] == 0
    text = " ".join(r["out"].split())
    for name, help_line in COMMANDS.items():
        assert f"{name} {' '.join(help_line.split())}" in text, name
    assert [m for m in r["loaded"] if not m.startswith("_") and m.replace("_", "-") in COMMANDS] == []


def test_a_call_imports_only_the_command_it_runs():
    r = _call("info", sample_path(), "--json")
    assert r["code"] == 0
    assert json.loads(r["out"])["ir_version"] == 10
    assert [m for m in r["loaded"] if m.replace("_", "-") in COMMANDS] == ["info"]
    # A command's own --help still shows its options (its module is imported for it).
    r = _call("set-shape", "--help")
    assert r["code"] == 0 and "--allow-rank-change" in r["out"]
    assert [m for m in r["loaded"] if m.replace("_", "-") in COMMANDS] == ["set_shape"]


def test_a_mistyped_command_is_named_from_the_table():
    message = cli.not_a_file_or_command(["inof"])
    assert "did you mean 'info' or 'infer'?" in message and ", ".join(sorted(COMMANDS)) in message
