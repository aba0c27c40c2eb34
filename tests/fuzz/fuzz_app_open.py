"""Child process for the fuzz harness: the app's open, offscreen.

Reads one model path per line on stdin, opens it in a MainWindow exactly as
File > Open does, processes events until loading, layout and shape inference
are finished, and answers one JSON line: the error the window would have
shown (None when the model opened) and any traceback Python printed meanwhile
(an exception in a slot or a background job is a bug even when the window
survives it). A hang or a crash is seen by the parent as a missing answer.
"""
from __future__ import annotations

import faulthandler
import io
import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
faulthandler.enable()       # a crash writes every thread's stack to stderr, which the harness quotes


def main() -> int:
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    settings = Settings(QSettings(os.environ["ONNXSTUDIO_SETTINGS"], QSettings.IniFormat))
    win = MainWindow(settings)
    win.resize(1000, 700)
    win.show()
    answer = sys.stdout
    print("ready", file=answer, flush=True)
    for line in sys.stdin:
        path = line.rstrip("\n")
        if not path:
            continue
        captured = io.StringIO()
        sys.stderr = captured
        win.last_error = None
        win.open_path(path, remember=False)
        # busy flips to False only after the load, the layout and inference.
        settle_until = None
        while True:
            app.processEvents()
            if win.busy:
                settle_until = None
            else:
                # Inference starts on the first paint or a second after the
                # layout: stay until nothing has been pending for a moment.
                settle_until = settle_until or time.monotonic() + 0.1
                if time.monotonic() >= settle_until:
                    break
            time.sleep(0.005)
        sys.stderr = sys.__stderr__
        tracebacks = captured.getvalue() if "Traceback" in captured.getvalue() else ""
        print(json.dumps({"error": win.last_error, "tracebacks": tracebacks}), file=answer, flush=True)
    win.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
