"""Runs one file through every command and the app's open, each in a child
process with a time and an address-space limit, and judges the outcome.

The CLI stages run in forked children of a process that has already imported
onnxstudio (a few milliseconds a stage instead of a third of a second for a
fresh interpreter). The app's open runs in a long-lived Qt child
(fuzz_app_open.py) that opens one file per request; when it dies or hangs it
is restarted and the file that did it is the finding.

Verdicts: "ok" (exit 0), "clear" (exit 1/2 with one line on stderr), and
findings: "crash" (signal, exit 3, other exit codes, a traceback), "hang"
(past the time limit), "memory" (MemoryError under the limit), "unclear"
(a failure that is not one line).
"""
from __future__ import annotations

import atexit
import json
import os
import pathlib
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

HERE = pathlib.Path(__file__).resolve().parent
STAGES = ("info", "check", "infer", "run", "render", "convert", "open")
CLI_STAGES = STAGES[:-1]
FINDINGS = ("crash", "hang", "memory", "unclear")
# A second line the CLI adds on purpose after a failed run with --random.
HINTS = ("(random values were used",)


@dataclass
class Limits:
    seconds: float = 30.0
    memory: int = 3 << 30          # bytes of address space (RLIMIT_AS)


@dataclass
class Outcome:
    stage: str
    verdict: str
    code: int | None               # exit code, or -signal
    message: str                   # the last stderr lines (or the app's error)
    seconds: float


def _argv(stage: str, model: pathlib.Path, out: pathlib.Path) -> list[str]:
    return {
        "info": ["info", str(model)],
        "check": ["check", str(model)],
        "infer": ["infer", str(model), "-o", str(out / "inferred.onnx")],
        "run": ["run", str(model), "--random", "--seed", "0"],
        "render": ["render", str(model), "-o", str(out / "graph.svg")],
        "convert": ["convert", str(model), str(out / "converted.onnx")],
    }[stage]


def prepare_parent() -> None:
    """Import everything the commands use once, before forking, so children
    start warm; keep numpy's thread pools at one thread (2 shared cores)."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")
    os.environ.pop("ONNXSTUDIO_DEBUG", None)
    if "ONNXSTUDIO_LAYOUT_CACHE" not in os.environ:
        os.environ["ONNXSTUDIO_LAYOUT_CACHE"] = _scratch("fuzz-layout-")
    import onnxstudio.cli as cli
    cli._command_modules()
    from onnxstudio.core import check, infer, layout  # noqa: F401
    from onnxstudio.core.exec import kernels  # noqa: F401


def _scratch(prefix: str) -> str:
    """A temporary folder removed when this process exits (not by forked children)."""
    path = tempfile.mkdtemp(prefix=prefix)
    owner = os.getpid()
    atexit.register(lambda: os.getpid() == owner and shutil.rmtree(path, ignore_errors=True))
    return path


def run_cli_stage(stage: str, model: pathlib.Path, limits: Limits) -> Outcome:
    from onnxstudio import cli
    with tempfile.TemporaryDirectory(prefix="fuzz-out-") as out:
        out = pathlib.Path(out)
        err_path = out / "stderr.txt"
        argv = _argv(stage, model, out)
        sys.stdout.flush()
        sys.stderr.flush()
        start = time.monotonic()
        pid = os.fork()
        if pid == 0:                                   # the child: never returns
            code = 4
            try:
                os.setpgid(0, 0)                       # dot and friends die with it
                resource.setrlimit(resource.RLIMIT_AS, (limits.memory, limits.memory))
                fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(fd, 2)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                code = cli.main(argv)
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else 4
            except BaseException:                      # noqa: BLE001
                traceback.print_exc()
                code = 4
            finally:
                try:
                    sys.stdout.flush()
                    sys.stderr.flush()
                finally:
                    os._exit(code)
        status = _wait(pid, start + limits.seconds)
        seconds = time.monotonic() - start
        stderr = err_path.read_text(errors="replace") if err_path.exists() else ""
    if status is None:
        return Outcome(stage, "hang", None, f"still running after {limits.seconds:g} s", seconds)
    code = os.waitstatus_to_exitcode(status)
    return Outcome(stage, judge(code, stderr), code, _tail(stderr), seconds)


def _wait(pid: int, deadline: float):
    """The wait status, or None after killing the child's process group at the deadline."""
    delay = 0.002
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            _kill_group(pid)                           # leftovers such as a dot it started
            return status
        if time.monotonic() >= deadline:
            _kill_group(pid)
            os.waitpid(pid, 0)
            return None
        time.sleep(delay)
        delay = min(delay * 2, 0.05)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(text: str, lines: int = 3) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def judge(code: int, stderr: str) -> str:
    if code < 0 or code not in (0, 1, 2) or "Traceback (most recent call last)" in stderr:
        # A MemoryError that reached the top: nothing refused the size first.
        return "memory" if "MemoryError" in stderr else "crash"
    if code == 0:
        return "ok"
    lines = [line for line in stderr.splitlines() if line.strip() and not line.startswith(HINTS)]
    return "clear" if len(lines) == 1 else "unclear"


# --- the app's open -------------------------------------------------------------------

class AppOpener:
    """A Qt child that opens files one at a time in a MainWindow, offscreen."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self.proc = None

    def _start(self) -> None:
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
        env.setdefault("ONNXSTUDIO_SETTINGS", str(pathlib.Path(_scratch("fuzz-settings-")) / "settings.ini"))
        memory = self.limits.memory

        def limit():
            os.setpgid(0, 0)
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

        # its stderr goes to a file: when the app dies, the outcome quotes its
        # last lines (fuzz_app_open.py enables faulthandler: a crash's stacks)
        self.stderr_path = pathlib.Path(_scratch("fuzz-open-")) / "stderr.txt"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, str(HERE / "fuzz_app_open.py")], env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=err, preexec_fn=limit, text=True, bufsize=1)
        self._read_line(time.monotonic() + 60)        # "ready"

    def _read_line(self, deadline: float):
        fd = self.proc.stdout.fileno()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                line = self.proc.stdout.readline()
                return line or None

    def open(self, model: pathlib.Path) -> Outcome:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        start = time.monotonic()
        try:
            self.proc.stdin.write(str(model) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = self._read_line(start + self.limits.seconds)
        seconds = time.monotonic() - start
        if line is None:
            code = self.proc.poll()
            if code is None and seconds < self.limits.seconds:
                # the answer pipe closed before the time was up: the process
                # is ending; give it time to say how (a loaded machine's Qt
                # teardown can outlast a few seconds: that is no hang)
                try:
                    code = self.proc.wait(60)
                except subprocess.TimeoutExpired:
                    code = None
            self.close()
            if code is None:
                return Outcome("open", "hang", None, f"still opening after {self.limits.seconds:g} s", seconds)
            said = _tail(self.stderr_path.read_text(errors="replace"), 12) if self.stderr_path.exists() else ""
            return Outcome("open", "crash", code, f"the app process died (exit {code})" + (f": {said}" if said else ""),
                           seconds)
        report = json.loads(line)
        if report["tracebacks"]:
            verdict = "memory" if "MemoryError" in report["tracebacks"] else "crash"
            return Outcome("open", verdict, None, _tail(report["tracebacks"], 6), seconds)
        error = report["error"]
        if error is None:
            return Outcome("open", "ok", 0, "", seconds)
        verdict = "clear" if len(error.strip().splitlines()) == 1 else "unclear"
        return Outcome("open", verdict, 2, error, seconds)

    def close(self) -> None:
        if self.proc is not None:
            _kill_group(self.proc.pid)
            self.proc.wait()
            self.proc = None


def run_all(model: pathlib.Path, limits: Limits, stages=STAGES, opener: AppOpener | None = None) -> list[Outcome]:
    outcomes = []
    for stage in stages:
        if stage == "open":
            if opener is not None:
                outcomes.append(opener.open(model))
        else:
            outcomes.append(run_cli_stage(stage, model, limits))
    return outcomes
