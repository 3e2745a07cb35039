"""Shared by the export tests: the models an older ``interp run --out`` saved, and running
exported source in a fresh interpreter where interp cannot be imported."""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import warnings
from pathlib import Path

import joblib
import numpy as np

OLD_RUNS = Path(__file__).parent / "fixtures" / "runs_1baab74"

#: what the fresh interpreter refuses to import: the exported code needs numpy (and scipy) only
BLOCKED = ("interp", "interp_symbolic", "interp_facets", "interp_featurevec", "interp_propositional", "sympy",
           "sklearn", "pandas", "joblib")

_RUNNER = """
import json, sys
for name in {blocked!r}:
    sys.modules[name] = None  # import name now raises ImportError
for name in {blocked!r}:
    try:
        __import__(name)
    except ImportError:
        continue
    raise SystemExit(f"{{name}} is importable")
import numpy
namespace = {{}}
exec(compile(open(sys.argv[1]).read(), "exported.py", "exec"), namespace)
X = json.load(open(sys.argv[2]))
if isinstance(X, list):
    X = numpy.array(X, dtype=float)
else:
    X = {{k: numpy.array(v, dtype=object) for k, v in X.items()}}
out = {{name: numpy.asarray(namespace[name](X), dtype=float).tolist() for name in sys.argv[3:]}}
print(json.dumps(out))
"""


@functools.lru_cache(maxsize=None)
def old_estimator(name: str):
    """The estimator saved as ``name``.joblib by interp at 1baab74 (tests/fixtures/runs_1baab74),
    loaded once per session: a test that changes it changes a copy."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a scikit-learn of another version warns, and still loads
        return joblib.load(OLD_RUNS / f"{name}.joblib")["estimator"]


def run_exported(source: str, X, functions, tmp_path: Path) -> dict[str, np.ndarray]:
    """Run ``source`` in a new Python process in which interp, sympy, scikit-learn, pandas and
    joblib cannot be imported, and call each of ``functions`` on ``X`` (a 2-d array, or a dict of
    columns given as lists, None for a missing value)."""
    module, data = tmp_path / "exported.py", tmp_path / "rows.json"
    module.write_text(source)
    data.write_text(json.dumps(X.tolist() if isinstance(X, np.ndarray) else X))
    done = subprocess.run([sys.executable, "-I", "-c", _RUNNER.format(blocked=BLOCKED), str(module), str(data),
                           *functions], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return {name: np.array(values) for name, values in json.loads(done.stdout).items()}
