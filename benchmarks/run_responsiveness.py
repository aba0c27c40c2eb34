"""How long the app's event loop goes without running while a model runs in
the run worker (the UI must never block for more than 100 ms).

    python benchmarks/run_responsiveness.py [--model bert_12layer_narrow] [--seq 128] [--repeat 3] [--load 2]

Opens the model in the main window (offscreen), runs it with the Run
command (progress bar, values on edges afterwards) and records the gaps
between the ticks of a 5 ms timer during each run (tests/ui/event_loop_probe.py).
Prints the run time and the longest gap, also for stepping 50 nodes.
--load N keeps N other processes spinning meanwhile (a machine whose cores
are busy with something else, where the pauses are longest).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "tests" / "ui"))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="bert_12layer_narrow")
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--load", type=int, default=0, help="processes spinning on other cores meanwhile")
    args = ap.parse_args()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        measure_all(args)
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def measure_all(args) -> None:
    os.environ["ONNXSTUDIO_SETTINGS"] = str(pathlib.Path(tempfile.mkdtemp()) / "settings.ini")
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from event_loop_probe import EventLoopProbe
    from shared_models import SHARED_MODELS
    from onnxstudio.ui.main_window import MainWindow

    _app = QApplication.instance() or QApplication([])      # held for the whole run
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    win.open_path(SHARED_MODELS / args.model / "model.onnx", remember=False)

    def spin(until, timeout=600):
        end = time.monotonic() + timeout
        while not until() and time.monotonic() < end:
            QCoreApplication.processEvents()
            time.sleep(0.001)
    spin(lambda: win.qdoc is not None and not win.busy)
    spin(lambda: False, timeout=1.0)       # the repaints after the analysis: opening's, not the run's
    r = win.run_ui
    for name, spin_box in r.inputs.dim_spins.items():
        spin_box.setValue(args.seq if "seq" in name else args.batch)
    for input_name in ("attention_mask",):
        if any(v.name == input_name for v in r.inputs.inputs):
            r.inputs.set_source(input_name, "ones")

    def measure(what, start):
        with EventLoopProbe() as probe:
            t0 = time.perf_counter()
            start()
            spin(lambda: r.controller.job is None)     # the event loop runs while we wait
            elapsed = time.perf_counter() - t0
        assert not r.controller.last_error, r.controller.last_error
        print(f"{what}: {elapsed * 1e3:8.1f} ms, {probe.ticks} timer ticks, longest event-loop gap "
              f"{probe.longest_ms:6.1f} ms")
        return probe.longest_ms
    worst = 0.0
    for i in range(args.repeat):
        r.controller.debug.values.clear()         # a full run each time, not the cached one
        worst = max(worst, measure(f"run {i + 1} ({args.model}, batch {args.batch}, seq {args.seq})", r.run_all))

    def step50():
        n = 0

        def again():
            nonlocal n
            n += 1
            if n < 50:
                r.controller.step()
        r.controller.stopped.connect(lambda _e: again())
        r.controller.restart()
    worst = max(worst, measure("restart + 50 steps", step50))
    print(f"longest event-loop gap over all: {worst:.1f} ms (limit 100 ms)")
    win.shutdown()


if __name__ == "__main__":
    main()
