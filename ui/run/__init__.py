"""Running and stepping through a model in the app: the inputs panel, the run
controller and its worker thread, the step toolbar, values and markers on the
canvas, the tensor inspector and the comparison views. `install_run(window)`
wires them into the main window."""
from .install import RunUI, install_run

__all__ = ["RunUI", "install_run"]
