"""FacetsClassifierCV runs its grid's paths on a Dask cluster through joblib, with the numbers of
n_jobs=1."""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed", reason="dask is the optional extra interp[dask]")


@pytest.mark.filterwarnings("ignore:no grid point gave")  # a small grid: the most integral point
def test_facets_cv_grid_on_a_local_dask_cluster_matches_n_jobs_1(dask_client):
    import joblib

    from interp_facets import FacetsClassifierCV

    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, size=(400, 6)).astype(float)
    y = (X @ np.array([2, 1, 1, 0, -1, 0]) + rng.normal(scale=0.4, size=400) >= 2).astype(int)
    params = dict(gammas=4, betas=10, cv=3, random_state=5)
    serial = FacetsClassifierCV(**params, n_jobs=1).fit(X, y)
    with distributed.get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        clustered = FacetsClassifierCV(**params, n_jobs=-1).fit(X, y)
    assert len(stream.data) >= 2  # the (fold, gamma) paths really ran as tasks on the cluster
    assert (clustered.best_lam_, clustered.best_gamma_) == (serial.best_lam_, serial.best_gamma_)
    np.testing.assert_array_equal(clustered.points_, [2, 1, 1, 0, -1, 0])  # the card the data came from
    np.testing.assert_array_equal(clustered.coef_, serial.coef_)
    np.testing.assert_array_equal(clustered.intercept_, serial.intercept_)
    np.testing.assert_array_equal(clustered.coefs_path_, serial.coefs_path_)
    for key in ("mean_test_score", "integrity", "n_iter"):
        np.testing.assert_array_equal(clustered.cv_results_[key], serial.cv_results_[key])
