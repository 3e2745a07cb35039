"""One BLAS thread per fit: parallelism comes from joblib over the CV grid instead.

The solvers do many small matrix-vector products, where BLAS threads only add overhead (and
thrash when the machine is busy).
"""

from __future__ import annotations

import functools

from threadpoolctl import ThreadpoolController

__all__ = ["single_threaded_blas"]


def single_threaded_blas():
    """A context manager limiting BLAS to one thread while it is open."""
    return _blas_controller().limit(limits=1, user_api="blas")


@functools.cache
def _blas_controller() -> ThreadpoolController:
    """Made once per process: it scans the loaded libraries."""
    return ThreadpoolController()
