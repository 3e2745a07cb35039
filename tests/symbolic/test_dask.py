"""Symbolic pursuit fits its (family, start) jobs on a Dask cluster through joblib, with the
numbers of n_jobs=1."""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed", reason="dask is the optional extra interp[dask]")


def test_symbolic_pursuit_on_a_local_dask_cluster_matches_n_jobs_1(dask_client):
    import joblib

    from interp_symbolic import SymbolicPursuitRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 3))
    y = np.exp(-(X[:, 0] + 2 * X[:, 1])) + np.sin(3 * X[:, 2])
    params = dict(max_terms=2, n_restarts=2, maxiter=20, random_state=4,
                  families=["meijer_0131", "meijer_2123"])
    serial = SymbolicPursuitRegressor(**params, n_jobs=1).fit(X, y)
    with distributed.get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        clustered = SymbolicPursuitRegressor(**params, n_jobs=-1).fit(X, y)
    assert len(stream.data) >= 4  # the (family, start) fits really ran as tasks on the cluster
    np.testing.assert_array_equal(clustered.predict(X), serial.predict(X))
    assert [tm.as_dict() for tm in clustered.terms_] == [tm.as_dict() for tm in serial.terms_]
    assert clustered.loss_history_ == serial.loss_history_
