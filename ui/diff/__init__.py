"""File > Compare With…: model B beside the open model A (issue 24).

compare_job.py matches in a worker; compare_window.py shows two canvases
with status colours (status_marks.py), navigation that follows from one
side to the other (sync.py), the list of differences (difference_list.py)
and A's and B's properties side by side (side_by_side.py)."""
