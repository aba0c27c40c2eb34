import pathlib
import sys

# backend_data.py lives one folder up; test folders have no __init__.py.
_TESTS = pathlib.Path(__file__).resolve().parent.parent
if str(_TESTS) not in sys.path:
    sys.path.insert(0, str(_TESTS))
