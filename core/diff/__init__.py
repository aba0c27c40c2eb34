"""Model diff: pair two versions of a model and say what differs (issue 24).

`diff_models(a, b)` gives a ModelDiff; `report.to_json` and
`report.summary_lines` write it out; `numeric.compare_runs` runs both
models on the same inputs and compares the paired values."""
from .match import Cancelled, Matching, match_models
from .model_diff import ADDED, CHANGED, REMOVED, REWRITTEN, SAME, IoDiff, ModelDiff, diff_models

__all__ = ["Cancelled", "Matching", "match_models", "ModelDiff", "IoDiff", "diff_models",
           "SAME", "CHANGED", "ADDED", "REMOVED", "REWRITTEN"]
