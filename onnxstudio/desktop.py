"""`onnxstudio --install-desktop` / `--uninstall-desktop`: register the app
with the desktop for the current user, no root needed.

Installs, under $XDG_DATA_HOME (default ~/.local/share): the menu entry
(applications/onnxstudio.desktop, whose Exec is the program that ran this
command: the bundle's executable, the pip-installed script, or
`python -m onnxstudio`), the `*.onnx` MIME type (mime/packages/onnxstudio.xml)
and the icons (icons/hicolor/.../apps and .../mimetypes). Then the
freedesktop caches are refreshed and onnxstudio made the default for
application/x-onnx, with whichever of update-mime-database,
update-desktop-database, gtk-update-icon-cache and xdg-mime are installed;
missing tools are skipped, as the files alone are enough for most desktops.
"""
from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

DESKTOP_ID = "onnxstudio.desktop"
MIME_TYPE = "application/x-onnx"
MIME_ICON = "application-x-onnx"
APP_ICON = "onnxstudio"
PNG_SIZES = (32, 48, 64, 128, 256)
TOOL_TIMEOUT = 60


def data_home(env=None) -> pathlib.Path:
    env = os.environ if env is None else env
    value = env.get("XDG_DATA_HOME", "")
    # The spec says relative values are invalid and must be ignored.
    if value and os.path.isabs(value):
        return pathlib.Path(value)
    return pathlib.Path(env.get("HOME") or pathlib.Path.home()) / ".local" / "share"


def config_home(env=None) -> pathlib.Path:
    env = os.environ if env is None else env
    value = env.get("XDG_CONFIG_HOME", "")
    if value and os.path.isabs(value):
        return pathlib.Path(value)
    return pathlib.Path(env.get("HOME") or pathlib.Path.home()) / ".config"


def launcher_command() -> list[str]:
    """The command the menu entry runs: this very program."""
    if getattr(sys, "frozen", False):            # the PyInstaller bundle
        return [str(pathlib.Path(sys.executable).resolve())]
    script = shutil.which("onnxstudio")
    if script:
        return [str(pathlib.Path(script).resolve())]
    return [str(pathlib.Path(sys.executable).resolve()), "-m", "onnxstudio"]


def quote_exec_arg(arg: str) -> str:
    """One argument of a desktop entry's Exec key (quoting rules of the
    Desktop Entry spec, then the string escape of its value type)."""
    arg = arg.replace("%", "%%")
    if any(c in arg for c in " \t\n\"'\\><~|&;$*?#()`"):
        arg = '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'
    return arg.replace("\\", "\\\\")


def _resources() -> pathlib.Path:
    from onnxstudio import resources
    return resources.ROOT


def desktop_entry(command: list[str]) -> str:
    template = (_resources() / "desktop" / "onnxstudio.desktop").read_text(encoding="utf-8")
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = "Exec=" + " ".join(quote_exec_arg(a) for a in command) + " %f"
        elif line.startswith("TryExec="):
            line = "TryExec=" + command[0].replace("\\", "\\\\")
        lines.append(line)
    return "\n".join(lines) + "\n"


def planned_files(data: pathlib.Path, command: list[str]) -> dict[pathlib.Path, bytes]:
    """Every file the install writes, with its content."""
    res = _resources()
    svg = (res / "icons" / "onnxstudio.svg").read_bytes()
    hicolor = data / "icons" / "hicolor"
    files = {
        data / "applications" / DESKTOP_ID: desktop_entry(command).encode("utf-8"),
        data / "mime" / "packages" / "onnxstudio.xml":
            (res / "desktop" / "onnxstudio-mime.xml").read_bytes(),
        hicolor / "scalable" / "apps" / f"{APP_ICON}.svg": svg,
        hicolor / "scalable" / "mimetypes" / f"{MIME_ICON}.svg": svg,
    }
    for size in PNG_SIZES:
        png = (res / "icons" / f"onnxstudio-{size}.png").read_bytes()
        files[hicolor / f"{size}x{size}" / "apps" / f"{APP_ICON}.png"] = png
        files[hicolor / f"{size}x{size}" / "mimetypes" / f"{MIME_ICON}.png"] = png
    return files


def _write(path: pathlib.Path, content: bytes) -> None:
    """Atomic: a desktop never sees half an entry."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        tmp.write_bytes(content)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _run_tools(data: pathlib.Path, install: bool, report: list[str]) -> None:
    steps = [
        ["update-mime-database", str(data / "mime")],
        ["update-desktop-database", "-q", str(data / "applications")],
        ["gtk-update-icon-cache", "-q", "-t", "-f", str(data / "icons" / "hicolor")],
    ]
    if install:
        steps.append(["xdg-mime", "default", DESKTOP_ID, MIME_TYPE])
    for cmd in steps:
        if shutil.which(cmd[0]) is None:
            report.append(f"{cmd[0]}: not installed, skipped")
            continue
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, timeout=TOOL_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            report.append(f"{cmd[0]}: did not run ({exc}); the files are in place")
            continue
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            report.append(f"{cmd[0]}: failed (exit {done.returncode}"
                          f"{': ' + detail[-1] if detail else ''}); the files are in place")
        else:
            report.append(f"{cmd[0]}: updated")


def install(env=None) -> list[str]:
    """Write the entry, MIME type and icons; returns what was done, line by line.
    Raises OSError naming the file that could not be written."""
    data = data_home(env)
    command = launcher_command()
    files = planned_files(data, command)
    for path, content in files.items():
        try:
            _write(path, content)
        except OSError as exc:
            raise OSError(f"cannot write {path}: {exc.strerror or exc}") from None
    report = [f"installed {DESKTOP_ID} (runs {' '.join(command)}), the {MIME_TYPE} type "
              f"for *.onnx and {len(files) - 2} icons under {data}"]
    _run_tools(data, True, report)
    return report


def _drop_default(env, report: list[str]) -> None:
    """Remove our association from mimeapps.list (xdg-mime cannot unset one)."""
    path = config_home(env) / "mimeapps.list"
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return
    out, changed = [], False
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == MIME_TYPE:
            apps = [a for a in value.split(";") if a.strip()]
            kept = [a for a in apps if a.strip() != DESKTOP_ID]
            if kept != apps:
                changed = True
                if not kept:
                    continue
                line = f"{key}={';'.join(kept)};"
        out.append(line)
    if changed:
        try:
            _write(path, ("\n".join(out) + "\n").encode("utf-8"))
            report.append(f"removed the {MIME_TYPE} default from {path}")
        except OSError as exc:
            report.append(f"cannot update {path}: {exc.strerror or exc}")


def uninstall(env=None) -> list[str]:
    data = data_home(env)
    removed = 0
    for path in planned_files(data, ["onnxstudio"]):
        try:
            path.unlink()
            removed += 1
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise OSError(f"cannot remove {path}: {exc.strerror or exc}") from None
    report = [f"removed {removed} onnxstudio files under {data}" if removed
              else f"nothing of onnxstudio was installed under {data}"]
    _drop_default(env, report)
    if removed:
        _run_tools(data, False, report)
    return report


def main(argv: list[str]) -> int:
    flag = argv[0]
    if len(argv) > 1:
        print(f"onnxstudio {flag}: takes no arguments (got {' '.join(argv[1:])})", file=sys.stderr)
        return 2
    try:
        report = install() if flag == "--install-desktop" else uninstall()
    except OSError as exc:
        print(f"onnxstudio {flag}: {exc}", file=sys.stderr)
        return 2
    for line in report:
        print(line)
    return 0
