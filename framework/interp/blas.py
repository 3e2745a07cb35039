"""One BLAS thread while a block runs: the methods parallelise with joblib, not inside BLAS.

Their hot loops are many small or thin matrix products (solver steps, series of a few
columns), where BLAS threads only add synchronisation, and on a busy machine spin far longer
than the product takes.
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
