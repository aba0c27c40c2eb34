"""How long the app's event loop goes without running while a model runs in
the run worker (the UI must never block for more than 100 ms).

    python benchmarks/run_responsiveness.py [--model bert_12layer_narrow] [--seq 128] [--repeat 3] [--load 2]

Opens the model in the main window (offscreen), runs it with the Run
command (progress bar, values on edges afterwards) and records the gaps
between the ticks of a 5 ms timer during each run (tests/ui/event_loop_probe.py).
Prints the run time and the longest gap, also for stepping 50 nodes.
--why also times the UI thread's main handlers (the canvas's paint, the
run overlay, the Properties form, the run dock) and the collector's
collections (in any thread) and prints, for the
longest gap of each measurement, which of them ran inside it and for how long.
--why also splits each longest gap into the UI thread's time on a core,
time ready to run but waiting for a core, and time blocked (mostly waiting
for the interpreter lock), from Linux's /proc/thread-self/schedstat.
--load N keeps N other processes spinning meanwhile (a machine whose cores
are busy with something else, where the pauses are longest).
"""
from __future__ import annotations

import argparse
import atexit
import gc
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
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
    ap.add_argument("--load-apart", action="store_true",
                    help="the spinning processes in a session of their own, as programs started elsewhere on a "
                         "desktop are (Linux's autogroup shares the cores between sessions first; by default "
                         "they are this process's children and share the app's part)")
    ap.add_argument("--why", action="store_true", help="name the handlers that ran inside each longest gap")
    ap.add_argument("--entries", action="store_true",
                    help="with --why: also every Python function the event loop called (slower: a profile hook)")
    ap.add_argument("--as-before", action="store_true",
                    help="to compare: the interpreter's usual 5 ms switch interval while a run works "
                         "(ui/run/worker_yields.py makes it 1 ms) and no waiting of the worker for the UI thread "
                         "(worker_yields.UIFirst), numpy's BLAS on all its threads, "
                         "the kernel's usual time slices for the UI thread "
                         "(ui/run/ui_thread_slice.py), every due deferred slice in one turn "
                         "(ui/turns.py spreads them) and a job asked for while the last one's result is "
                         "shown started at once (RunController._start waits a turn)")
    args = ap.parse_args()
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=args.load_apart)
                for _ in range(args.load)]
    try:
        measure_all(args)
    finally:
        for p in spinners:
            p.kill()
            p.wait()


def measure_all(args) -> None:
    # Settings, recovery files and the layout cache stay in a temporary
    # folder: nothing of the user's is read or written.
    folder = pathlib.Path(tempfile.mkdtemp())
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    os.environ["ONNXSTUDIO_SETTINGS"] = str(folder / "settings.ini")
    os.environ["ONNXSTUDIO_RECOVERY_DIR"] = str(folder / "recovery")
    os.environ["ONNXSTUDIO_LAYOUT_CACHE"] = str(folder / "layout-cache")
    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from event_loop_probe import EventLoopProbe
    from shared_models import SHARED_MODELS
    from onnxstudio.ui.main_window import MainWindow

    _app = QApplication.instance() or QApplication([])      # held for the whole run
    if args.as_before:
        from onnxstudio.ui import turns
        from onnxstudio.ui.run import ui_thread_slice, worker_yields
        from onnxstudio.ui.run.controller import RunController
        worker_yields.hand_over_quickly = lambda: None
        worker_yields.watch_the_ui_thread = lambda: None
        worker_yields.leave_a_core_to_the_ui = lambda: None
        ui_thread_slice.ask_short_slices = lambda: False
        turns.take = lambda: True
        RunController._delivering = property(lambda self: False, lambda self, value: None)
    calls = _time_handlers() if args.why else None
    entries = _record_entries() if args.why and args.entries else None
    win = MainWindow()
    win.resize(1400, 900)
    win.show()
    win.open_path(SHARED_MODELS / args.model / "model.onnx", remember=False)

    def spin(until, timeout=600):
        """Run the event loop as the app does (it sleeps until an event comes;
        ui/run/worker_yields.py watches for that) until `until()` holds."""
        end = time.monotonic() + timeout
        loop = QEventLoop()
        check = QTimer()
        check.setInterval(20)
        check.timeout.connect(lambda: (until() or time.monotonic() >= end) and loop.quit())
        check.start()
        if not until():
            loop.exec()
        check.stop()
    spin(lambda: win.qdoc is not None and not win.busy)
    spin(lambda: False, timeout=1.0)       # the repaints after the analysis: opening's, not the run's
    r = win.run_ui
    for name, spin_box in r.inputs.dim_spins.items():
        spin_box.setValue(args.seq if "seq" in name else args.batch)
    for input_name in ("attention_mask",):
        if any(v.name == input_name for v in r.inputs.inputs):
            r.inputs.set_source(input_name, "ones")

    class Probe(EventLoopProbe):
        """Also remembers when the longest gap was (start, end in perf_counter
        time) and how the UI thread spent it (see _ui_thread_times)."""
        longest_at = None
        longest_split = None
        most_cpu = 0.0             # the most time on a core the UI thread spent between two ticks
        most_cpu_at = None
        _times = None

        def __enter__(self):
            self._times = _ui_thread_times()
            return super().__enter__()

        def _tick(self):
            now, last = time.perf_counter(), self._last
            times = _ui_thread_times()
            if last is not None and (now - last) * 1000 > self.longest_ms:
                self.longest_at = (last, now)
                if times is not None and self._times is not None:
                    self.longest_split = (times[0] - self._times[0], times[1] - self._times[1])
            if times is not None and self._times is not None and times[0] - self._times[0] > self.most_cpu:
                self.most_cpu, self.most_cpu_at = times[0] - self._times[0], (last, now)
            self._times = times
            super()._tick()

    def measure(what, start):
        if calls is not None:
            calls.clear()
        if entries is not None:
            entries.clear()
        started = []
        with Probe() as probe:
            t0 = time.perf_counter()
            # Started from a handler of the running event loop, as a key press is.
            QTimer.singleShot(0, lambda: (start(), started.append(True)))
            # The event loop runs while we wait, also for the value tags placed over several turns.
            spin(lambda: started and r.controller.job is None and not r.overlay.placing)
            elapsed = time.perf_counter() - t0
        assert not r.controller.last_error, r.controller.last_error
        print(f"{what}: {elapsed * 1e3:8.1f} ms, {probe.ticks} timer ticks, longest event-loop gap "
              f"{probe.longest_ms:6.1f} ms (load average {os.getloadavg()[0]:.1f})")
        if calls is not None and probe._times is not None:
            # What our code decides, whatever else the machine runs: the longest gap
            # is this much work plus the waits for a core and for the interpreter lock.
            print(f"    the most the UI thread worked between two ticks: {probe.most_cpu:.1f} ms on a core"
                  + _handlers_inside(calls, probe.most_cpu_at))
            if entries is not None:
                print("      the event loop's calls into Python then:" + _entries_inside(entries, probe.most_cpu_at))
        if calls is not None and probe.longest_at is not None:
            print("    inside it:" + _handlers_inside(calls, probe.longest_at))
            if entries is not None:
                print("      the event loop's calls into Python then:" + _entries_inside(entries, probe.longest_at))
            if probe.longest_split is not None:
                cpu, queued = probe.longest_split
                print(f"    the UI thread: {cpu:.1f} ms on a core, {queued:.1f} ms ready but waiting for one, "
                      f"{probe.longest_ms - cpu - queued:.1f} ms blocked (the interpreter lock, mostly)")
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


def _handlers_inside(calls: list, span) -> str:
    """' name ms, ...' of the timed handlers that ran within span (start, end)."""
    if span is None:
        return ""
    inside = [(t1 - t0, name) for name, t0, t1 in calls if t0 >= span[0] and t1 <= span[1]]
    return " " + (", ".join(f"{name} {ms * 1e3:.1f} ms" for ms, name in inside)
                  or "no timed handler (Qt's own work, a collection)")


def _entries_inside(entries: list, span, most: int = 8) -> str:
    """The calls of `entries` within span, longest on a core first."""
    if span is None:
        return ""
    inside = sorted(((cpu, name) for name, t0, t1, cpu in entries if t0 >= span[0] and t1 <= span[1]), reverse=True)
    rest = sum(cpu for cpu, _name in inside[most:])
    return " " + ", ".join(f"{name} {cpu * 1e3:.1f}" for cpu, name in inside[:most]) + (
        f", {len(inside) - most} more {rest * 1e3:.1f}" if len(inside) > most else "") + " (ms on a core)"


def _record_entries() -> list:
    """Record (name, start, end, time on a core) of every Python function the
    UI thread's event loop calls (a slot, an event handler, a timer's lambda:
    a frame whose caller is spin() below, which runs the loop), by a profile
    hook on this thread only."""
    entries: list = []
    open_: dict = {}

    def hook(frame, event, _arg):
        if frame.f_back is None or frame.f_back.f_code.co_name != "spin":
            return
        if event == "call":
            open_[id(frame)] = (time.perf_counter(), time.thread_time())
        elif event == "return" and id(frame) in open_:
            t0, cpu0 = open_.pop(id(frame))
            code = frame.f_code
            entries.append((f"{pathlib.Path(code.co_filename).stem}.{code.co_qualname}:{code.co_firstlineno}",
                            t0, time.perf_counter(), time.thread_time() - cpu0))
    sys.setprofile(hook)
    return entries


def _ui_thread_times():
    """(ms on a core, ms ready to run but waiting for a core) of the calling
    thread so far, from Linux's schedstat; None elsewhere. The rest of a gap
    the thread was blocked: waiting for the interpreter lock (GIL), as the
    event loop's own idle wait is under a timer tick."""
    try:
        with open("/proc/thread-self/schedstat") as f:
            on_cpu, queued = f.read().split()[:2]
    except OSError:
        return None
    return int(on_cpu) / 1e6, int(queued) / 1e6


def _time_handlers() -> list:
    """Wrap the UI thread's main handlers to record (name, start, end) of each call (outermost calls only)."""
    from onnxstudio.ui.canvas.view import CanvasView
    from onnxstudio.ui.panels.properties import PropertiesPanel
    from onnxstudio.ui.run.controller import RunController
    from onnxstudio.ui.run.install import RunUI
    from onnxstudio.ui.run.overlay import RunOverlay
    calls: list = []
    depth = [0]

    def wrap(cls, name):
        original = getattr(cls, name)

        def timed(*a, **k):
            depth[0] += 1
            t0, cpu0 = time.perf_counter(), time.thread_time()
            try:
                return original(*a, **k)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    calls.append((f"{cls.__name__}.{name} ({(time.thread_time() - cpu0) * 1e3:.1f} on a core)",
                                  t0, time.perf_counter()))
        setattr(cls, name, timed)
    for cls, name in [(CanvasView, "paintEvent"), (RunOverlay, "refresh"), (RunOverlay, "_place_some"),
                      (PropertiesPanel, "_form_due"), (PropertiesPanel, "show_object"),
                      (RunController, "_finished"), (RunUI, "_progress"), (RunUI, "_stopped")]:
        wrap(cls, name)
    started: dict = {}

    def collecting(phase, info):         # the cyclic collector's own pauses, in whichever handler
        if phase == "start":
            started[threading.get_ident()] = time.perf_counter()
        elif threading.get_ident() in started:
            calls.append((f"gc of generation {info['generation']}", started.pop(threading.get_ident()),
                          time.perf_counter()))
    gc.callbacks.append(collecting)
    return calls


if __name__ == "__main__":
    main()
