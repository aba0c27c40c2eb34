"""The run options a user sets once per model and expects back when the
model is opened again: stop at the first NaN/Inf, which nodes stepping
stops on, the values kept inside bodies and their memory budget. Kept in
the settings' per-model state (key "run_options") beside the inputs panel's
input set (seed, sizes, sources: key "run_inputs").

Anything malformed in the stored entry counts as not stored: that option
takes its default.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

STATE_KEY = "run_options"


@dataclass
class RunOptions:
    stop_at_nonfinite: bool = False
    step_on_constants: bool = False
    step_on_shapes: bool = False
    keep_body_values: bool = True
    every_iteration: bool = False
    body_budget_mib: int = 512

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data) -> "RunOptions":
        options = cls()
        if not isinstance(data, dict):
            return options
        for f in fields(cls):
            value = data.get(f.name)
            # bool is an int: a budget of True is as malformed as a flag of 3
            if type(value) is type(getattr(options, f.name)) and (f.type != "int" or value >= 0):
                setattr(options, f.name, value)
        return options


def stored_options(settings, path) -> RunOptions:
    """The options remembered for the model at `path` (defaults when none)."""
    if settings is None or path is None:
        return RunOptions()
    return RunOptions.from_json(settings.model_state(path).get(STATE_KEY))


def remember_options(settings, path, options: RunOptions) -> None:
    if settings is not None and path is not None:
        settings.update_model_state(path, **{STATE_KEY: options.to_json()})
