"""Time from process start to the first painted canvas, cold and warm.

    python benchmarks/open.py MODEL... [--synthetic 10000] [--runs 3]

Each measurement is a fresh process (the app, offscreen) that opens the model
and exits on the canvas's first paint. "cold" uses an empty layout cache,
"warm" reuses the cache the cold run filled. Also reported: peak resident
memory of that process and the paint time per frame while panning the fully
expanded view (`--pan`).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent


def child(path: str, started: float, pan: bool) -> None:
    """Runs inside the measured process: open, wait for the first paint, report."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from onnxstudio.app import create_application
    app = create_application()
    from onnxstudio.ui.main_window import MainWindow
    window = MainWindow()
    window.resize(1400, 900)
    window.show()
    report = {}

    def painted(_seconds):
        report["boxes"] = len(window.graph.scene.node_items)
        result = window.graph.scene.layout_result
        report["engine"] = result.engine
        report["from_cache"] = result.from_cache
        if pan:
            report["pan_ms"] = pan_frames(window, app)
        report["peak_mb"] = peak_rss_mb()
        print("RESULT " + json.dumps(report), flush=True)
        window.shutdown()
        os._exit(0)

    # first_paint is emitted from inside paintEvent: leave it before doing more.
    from PySide6.QtCore import QTimer
    window.graph.view.first_paint.connect(lambda seconds: report.setdefault(
        "first_paint", time.time() - started))
    window.graph.view.first_paint.connect(lambda seconds: QTimer.singleShot(0, lambda: painted(seconds)))
    window.open_path(path, remember=False)
    app.exec()


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


def measure(path: str, cache_dir: str, pan: bool) -> dict:
    env = dict(os.environ, ONNXSTUDIO_LAYOUT_CACHE=cache_dir, QT_QPA_PLATFORM="offscreen",
               ONNXSTUDIO_SETTINGS=os.path.join(cache_dir, "settings.ini"))
    started = time.time()
    proc = subprocess.run([sys.executable, __file__, "--child", path, "--started", repr(started)]
                          + (["--pan"] if pan else []),
                          env=env, capture_output=True, text=True, timeout=900)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise RuntimeError(f"{path}: no result\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--synthetic", type=int, action="append", default=[],
                        help="also build a transformer-like model with about N nodes")
    parser.add_argument("--hidden", type=int, default=16,
                        help="hidden size of the synthetic models (weight bytes grow with its square)")
    parser.add_argument("--runs", type=int, default=3, help="warm runs (median reported)")
    parser.add_argument("--pan", action="store_true", help="also time panning the expanded view")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--started", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.started, args.pan)
        return 0
    models = list(args.models)
    workdir = tempfile.mkdtemp(prefix="onnxstudio-bench-")
    for nodes in args.synthetic:
        sys.path.insert(0, str(HERE))
        import onnx
        from synthetic_model import build
        target = os.path.join(workdir, f"synthetic_{nodes}_h{args.hidden}.onnx")
        onnx.save(build(nodes, hidden=args.hidden), target)
        models.append(target)
    print(f"{'model':34} {'file MB':>7} {'cold s':>7} {'warm s':>7} {'peak MB':>8} {'boxes':>6}  engine")
    for model in models:
        cache = tempfile.mkdtemp(prefix="cache-", dir=workdir)
        cold = measure(model, cache, pan=False)
        warm = [measure(model, cache, pan=False) for _ in range(args.runs)]
        warm_s = statistics.median(r["first_paint"] for r in warm)
        peak = max([cold["peak_mb"]] + [r["peak_mb"] for r in warm])
        name = pathlib.Path(model).parent.name if pathlib.Path(model).name == "model.onnx" \
            else pathlib.Path(model).stem
        size_mb = os.path.getsize(model) / 2**20
        print(f"{name:34} {size_mb:7.0f} {cold['first_paint']:7.2f} {warm_s:7.2f} {peak:8.0f} {cold['boxes']:6d}  "
              f"{cold['engine']}{' (warm from cache)' if warm[0].get('from_cache') else ''}")
        if args.pan:
            pan = measure(model, cache, pan=True)["pan_ms"]
            print(f"{'':34} pan over {pan['boxes']} expanded boxes at 100%: median {pan['median']:.1f} ms, "
                  f"p95 {pan['p95']:.1f} ms, max {pan['max']:.1f} ms per frame (first frame, "
                  f"building the index: {pan['first']:.0f} ms); fit-all frame {pan['fit_all']:.0f} ms; "
                  f"frame at 50% zoom {pan['at_0.5']:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
