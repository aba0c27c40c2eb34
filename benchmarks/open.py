"""Time from process start to the first painted canvas, cold and warm, on
Qt's offscreen platform and on a real X server (Xvfb).

    python benchmarks/open.py MODEL... [--synthetic 10000] [--runs 3]
                              [--display offscreen|xvfb|both] [--bytecode cached|none]

Each measurement is a fresh process that starts the app as `onnxstudio
MODEL` does (onnxstudio/__main__.py: the command line, settings, language,
the window; the model is read and laid out while the window is built,
ui/early_open.py) and times the canvas's first paint. "cold" uses an empty
layout cache, "warm" reuses the cache the cold run filled. Two times are
reported for each: from process start (interpreter, imports, window, open)
to the first paint, and, in brackets, the wait of a user who opens the file
in the running app: once the window has drawn the model and is idle, the
same process opens it again as File ▸ Open does (MainWindow.open_path, no
early start; an empty layout cache again for "cold") and that request is
timed to its first paint. "window" is when the shown window asked for the
model (cold, from process start). The load average (`uptime`) is printed
before and after each model's runs: the machine may be shared.

--display xvfb starts one `Xvfb` server for the whole benchmark (the
xcb platform, as on a desktop; `apt-get install xvfb`) unless DISPLAY already
names one (e.g. under `xvfb-run -a`). --bytecode cached (the default) runs
the children with compiled bytecode, as an installed app has it (kept in a
temporary PYTHONPYCACHEPREFIX, primed by one unmeasured start);
--bytecode none compiles every module at each start, as a checkout run with
PYTHONDONTWRITEBYTECODE=1 does.

Also reported: peak resident memory of that process and, with --pan, the
paint time per frame while panning the fully expanded view.
"""
from __future__ import annotations

import json
import os
import sys
import time

# The measured child imports no more than these before the app does;
# the rest of the runner's modules are imported in main().


def child(path: str, started: float, pan: bool, fresh_cache: str | None) -> None:
    """Runs inside the measured process: start the app as `onnxstudio PATH`
    does (onnxstudio/__main__.py), wait for the first paint of the model, open
    it again as File ▸ Open does (with the layout cache `fresh_cache`, or the
    same one when None), report."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from onnxstudio import __main__ as entry
    from onnxstudio import app as app_module
    report = {}
    open_requested = app_module.open_requested

    def measured_open(window, args) -> None:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication

        def painted():
            report["boxes"] = len(window.graph.scene.node_items)
            result = window.graph.scene.layout_result
            report["engine"] = result.engine
            report["from_cache"] = result.from_cache
            if pan:
                report["pan_ms"] = pan_frames(window, QApplication.instance())
            report["peak_mb"] = peak_rss_mb()
            report["modules"] = len(sys.modules)
            reopen_when_idle()

        def reopen_when_idle():
            # As a user who opens the file in the running app: after the first
            # model is drawn and analysed, File ▸ Open of the same file.
            if window.busy:
                QTimer.singleShot(20, reopen_when_idle)
                return
            if fresh_cache:
                os.environ["ONNXSTUDIO_LAYOUT_CACHE"] = fresh_cache
            report["open_at"] = time.time()
            window.open_path(path)

        def reopened():
            print("RESULT " + json.dumps(report), flush=True)
            window.shutdown()
            os._exit(0)

        def first_paint(_seconds):
            now = time.time()
            # first_paint is emitted from inside paintEvent: leave it before doing more.
            if "first_paint" not in report:
                # CPU time of this process (every thread) and of its reaped children
                # (dot): much less sensitive than the wall time to other work on the machine.
                used = os.times()
                report["cpu"] = used.user + used.system + used.children_user + used.children_system
                report["first_paint"] = now - started
                QTimer.singleShot(0, painted)
            elif "open_at" in report and "open_to_paint" not in report:
                report["open_to_paint"] = now - report["open_at"]
                QTimer.singleShot(0, reopened)

        report["platform"] = QApplication.platformName()
        window.graph.view.first_paint.connect(first_paint)
        report["window_ready"] = time.time() - started
        open_requested(window, args)

    app_module.open_requested = measured_open
    sys.exit(entry.main([path]))


def peak_rss_mb() -> float:
    """This process's peak resident memory. VmHWM, not ru_maxrss: Linux hands
    a forked child its parent's ru_maxrss, so a runner that just built a big
    model would inflate every child's figure."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (2**20 if sys.platform == "darwin" else 1024)


def pan_frames(window, app, frames: int = 40) -> dict:
    """Expand every group, zoom to reading size, pan and time each repaint."""
    import statistics
    graph = window.graph
    graph.expand_all()
    graph.wait_for_layout()
    view = graph.view
    view.reset_zoom()
    bar = view.horizontalScrollBar()
    vbar = view.verticalScrollBar()
    view.viewport().repaint()           # the first frame builds Qt's BSP index
    first = view.last_paint_seconds * 1000
    times = []
    for i in range(frames):
        bar.setValue(bar.minimum() + (bar.maximum() - bar.minimum()) * i // frames)
        vbar.setValue(vbar.minimum() + (vbar.maximum() - vbar.minimum()) * i // frames)
        view.viewport().repaint()
        times.append(view.last_paint_seconds * 1000)
    view.fit_all()
    view.viewport().repaint()           # builds the far-zoom batches once
    view.viewport().repaint()
    fit = view.last_paint_seconds * 1000
    view.zoom_by(0.5 / view.current_scale())    # zoomed out, labels still drawn
    view.viewport().repaint()
    return {"boxes": len(graph.scene.node_items), "median": statistics.median(times),
            "p95": sorted(times)[int(len(times) * 0.95)], "max": max(times), "first": first,
            "fit_all": fit, "at_0.5": view.last_paint_seconds * 1000}


def load_average() -> str:
    """The 1, 5 and 15 minute load averages, as `uptime` prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


class Xvfb:
    """One X server for the whole benchmark (or the one DISPLAY already names)."""

    def __init__(self):
        import shutil
        import subprocess
        self.proc = None
        self.display = os.environ.get("DISPLAY")
        if self.display:
            return
        if shutil.which("Xvfb") is None:
            raise SystemExit("Xvfb is not installed (apt-get install xvfb xauth), or run under xvfb-run -a; "
                             "--display offscreen measures without it")
        read, write = os.pipe()
        self.proc = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1920x1080x24",
                                      "-nolisten", "tcp"], pass_fds=(write,),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:      # Xvfb writes its display number once it accepts clients
            number = pipe.readline().strip()
        if not number:
            raise SystemExit("Xvfb did not start")
        self.display = f":{number}"

    def close(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait()


def child_env(cache_dir: str, platform: str, display: str | None, pycache: str | None) -> dict:
    env = dict(os.environ, ONNXSTUDIO_LAYOUT_CACHE=cache_dir, QT_QPA_PLATFORM=platform,
               ONNXSTUDIO_SETTINGS=os.path.join(cache_dir, "settings.ini"),
               ONNXSTUDIO_RECOVERY_DIR=os.path.join(cache_dir, "recovery"))
    if display:
        env["DISPLAY"] = display
    if pycache:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    return env


def measure(path: str, env: dict, pan: bool, fresh_cache: str | None = None) -> dict:
    import subprocess
    started = time.time()
    proc = subprocess.run([sys.executable, __file__, "--child", path, "--started", repr(started)]
                          + (["--pan"] if pan else []) + (["--fresh-cache", fresh_cache] if fresh_cache else []),
                          env=env, capture_output=True, text=True, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{path}: no result\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def main(argv=None) -> int:
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--synthetic", type=int, action="append", default=[],
                        help="also build a transformer-like model with about N nodes")
    parser.add_argument("--hidden", type=int, default=16,
                        help="hidden size of the synthetic models (weight bytes grow with its square)")
    parser.add_argument("--runs", type=int, default=3, help="warm runs (median reported)")
    parser.add_argument("--cold-runs", type=int, default=1,
                        help="cold runs, each with an empty layout cache (median reported)")
    parser.add_argument("--display", choices=("offscreen", "xvfb", "both"), default="both")
    parser.add_argument("--bytecode", choices=("cached", "none"), default="cached")
    parser.add_argument("--pan", action="store_true", help="also time panning the expanded view")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--fresh-cache", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.started, args.pan, args.fresh_cache)
        return 0
    import pathlib
    import shutil
    import statistics
    import tempfile
    here = pathlib.Path(__file__).resolve().parent
    models = list(args.models)
    workdir = tempfile.mkdtemp(prefix="onnxstudio-bench-")
    for nodes in args.synthetic:
        sys.path.insert(0, str(here))
        import onnx
        from synthetic_model import build
        target = os.path.join(workdir, f"synthetic_{nodes}_h{args.hidden}.onnx")
        onnx.save(build(nodes, hidden=args.hidden), target)
        models.append(target)
    pycache = os.path.join(workdir, "pycache") if args.bytecode == "cached" else None
    displays = ["offscreen", "xvfb"] if args.display == "both" else [args.display]
    xvfb = Xvfb() if "xvfb" in displays else None
    try:
        print(f"bytecode: {args.bytecode}; times in s, from process start (open→paint in brackets); "
              f"cold cpu: CPU seconds of the process and dot until the first paint")
        print(f"{'model':28} {'display':9} {'file MB':>7} {'window':>6} {'cold s':>14} {'warm s':>14} "
              f"{'cold cpu':>8} {'peak MB':>8} {'boxes':>6}  engine")
        for display in displays:
            platform, x_display = ("xcb", xvfb.display) if display == "xvfb" else ("offscreen", None)
            if pycache:         # compile once, unmeasured
                measure(models[0], child_env(tempfile.mkdtemp(dir=workdir), platform, x_display, pycache), False)
            for model in models:
                print(f"load average before: {load_average()}", flush=True)
                colds = []
                for _ in range(args.cold_runs):
                    cache = tempfile.mkdtemp(prefix="cache-", dir=workdir)
                    env = child_env(cache, platform, x_display, pycache)
                    colds.append(measure(model, env, pan=False,
                                         fresh_cache=tempfile.mkdtemp(prefix="cache-", dir=workdir)))
                warm = [measure(model, env, pan=False) for _ in range(args.runs)]
                cold = colds[0]

                def median(runs, key):
                    return statistics.median(r[key] for r in runs)
                peak = max(r["peak_mb"] for r in colds + warm)
                name = pathlib.Path(model).parent.name if pathlib.Path(model).name == "model.onnx" \
                    else pathlib.Path(model).stem
                size_mb = os.path.getsize(model) / 2**20
                cold_s = f"{median(colds, 'first_paint'):.2f} ({median(colds, 'open_to_paint'):.2f})"
                warm_s = f"{median(warm, 'first_paint'):.2f} ({median(warm, 'open_to_paint'):.2f})"
                cached = " (warm from cache)" if warm[0].get("from_cache") else ""
                print(f"{name:28} {cold['platform']:9} {size_mb:7.0f} {median(colds, 'window_ready'):6.2f} "
                      f"{cold_s:>14} {warm_s:>14} "
                      f"{median(colds, 'cpu'):8.2f} {peak:8.0f} "
                      f"{cold['boxes']:6d}  {cold['engine']}{cached}", flush=True)
                print(f"load average after: {load_average()}", flush=True)
                if args.pan:
                    pan = measure(model, env, pan=True)["pan_ms"]
                    print(f"{'':28} pan over {pan['boxes']} expanded boxes at 100%: median {pan['median']:.1f} ms, "
                          f"p95 {pan['p95']:.1f} ms, max {pan['max']:.1f} ms per frame (first frame, "
                          f"building the index: {pan['first']:.0f} ms); fit-all frame {pan['fit_all']:.0f} ms; "
                          f"frame at 50% zoom {pan['at_0.5']:.0f} ms")
    finally:
        if xvfb is not None:
            xvfb.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
