"""`onnxstudio FILE` starts the app without importing what its first picture
does not need: no headless command, not the executor, not the checker, not
the Properties panel's forms, not the onnx or onnxruntime packages. Each of these cost the cold open time
(the commands alone, with the executor's kernels they import, 0.6 s)."""
from __future__ import annotations

import importlib
import json
import os
import pkgutil
import shutil
import subprocess
import sys

import pytest

# Run in a child process: `onnxstudio PATH` as __main__ dispatches it, the
# modules loaded when the canvas first paints the model printed as JSON.
CHILD = r"""
import json, os, sys
from onnxstudio import __main__ as entry
from onnxstudio import app as app_module
requested = app_module.open_requested

def watched(window, args):
    def painted(_seconds):
        print("MODULES " + json.dumps(sorted(sys.modules)), flush=True)
        window.shutdown()
        os._exit(0)
    window.graph.view.first_paint.connect(painted)
    requested(window, args)

app_module.open_requested = watched
sys.exit(entry.main([sys.argv[1]]))
"""

NOT_BEFORE_THE_FIRST_PAINT = (
    "onnx", "onnxruntime",
    "onnxstudio.core.exec.kernels", "onnxstudio.core.exec.session", "onnxstudio.core.exec.debug",
    "onnxstudio.core.check", "onnxstudio.core.infer.engine", "onnxstudio.core.diff",
    "onnxstudio.ui.diff",
    # Properties and its forms: built after the first paint (MainWindow.properties)
    "onnxstudio.ui.panels.properties", "onnxstudio.ui.panels.summaries", "onnxstudio.ui.panels.editor_slot",
    "onnxstudio.ui.panels.node_editor",
    # The edits themselves (the Document needs only edits.base) and the Edit
    # menu's dialogs: loaded when first used
    "onnxstudio.core.edits.values", "onnxstudio.core.edits.wiring", "onnxstudio.core.edits.compound",
    "onnxstudio.core.edits.script", "onnxstudio.ui.script_apply", "onnxstudio.ui.input_dims",
    "onnxstudio.ui.panels.op_picker", "onnxstudio.ui.panels.value_editor",
    # The Search dock is hidden at start: its panel is built when first shown
    "onnxstudio.ui.search",
    # Only the pygraphviz engine's workers need it
    "multiprocessing",
)


def modules_at_first_paint(tmp_path, model) -> list[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               ONNXSTUDIO_SETTINGS=str(tmp_path / "settings.ini"),
               ONNXSTUDIO_LAYOUT_CACHE=str(tmp_path / "layout-cache"),
               ONNXSTUDIO_RECOVERY_DIR=str(tmp_path / "recovery"))
    proc = subprocess.run([sys.executable, "-c", CHILD, str(model)], env=env, capture_output=True,
                          text=True, timeout=300)
    lines = [line for line in proc.stdout.splitlines() if line.startswith("MODULES ")]
    assert lines, f"the app never painted the model\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return json.loads(lines[0][len("MODULES "):])


@pytest.mark.slow       # a child app
def test_opening_a_file_loads_only_what_the_first_picture_needs(tmp_path):
    from onnxstudio.resources import sample_path
    model = tmp_path / "demo.onnx"
    shutil.copy(sample_path("demo.onnx"), model)
    loaded = modules_at_first_paint(tmp_path, model)
    assert "onnxstudio.ui.main_window" in loaded           # the probe saw the app itself
    early = [name for name in loaded if name in NOT_BEFORE_THE_FIRST_PAINT
             or any(name.startswith(prefix + ".") for prefix in NOT_BEFORE_THE_FIRST_PAINT)]
    commands = [name for name in loaded if name.startswith("onnxstudio.commands.")]
    assert early == [], early
    assert commands == [], commands


def test_every_command_is_named_after_its_module():
    """The app's start tells a command from a file by the commands' module
    names (cli.command_words) without importing them: each command's NAME
    must be its module's name, with - for _."""
    from onnxstudio import cli, commands
    named = {}
    for info in pkgutil.iter_modules(commands.__path__):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):      # a command, not a helper
            named[info.name] = module.NAME
    assert len(named) > 5, named
    assert {name: n for name, n in named.items() if n != name.replace("_", "-")} == {}
    assert set(named.values()) <= cli.command_words()
    assert cli.is_command(["set-shape"]) and cli.is_command(["info"])
    assert not cli.is_command(["model.onnx"])


def test_a_fresh_process_reading_a_script_knows_every_edit_kind():
    """core.edits loads its modules on first use; reading a script must still
    see every kind registered (script.py imports them), and so must a read
    of EDIT_KINDS through the package."""
    probe = ("import json; from onnxstudio.core.edits import script; k1 = sorted(script.EDIT_KINDS); "
             "import onnxstudio.core.edits as e; k2 = sorted(e.EDIT_KINDS); print(json.dumps([k1, k2]))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    through_script, through_package = json.loads(proc.stdout)
    probe_all = ("import json; from onnxstudio.core.edits import *; import onnxstudio.core.edits as e; "
                 "print(json.dumps(sorted(e.EDIT_KINDS)))")
    everything = json.loads(subprocess.run([sys.executable, "-c", probe_all], capture_output=True, text=True,
                                           timeout=120).stdout)
    assert through_script == through_package == everything
    assert {"set_attribute", "add_node", "rename_value", "set_opset_import", "sort_nodes"} <= set(everything)
