"""Candidate kernels scored on a Dask cluster through joblib give the n_jobs=1 selection."""

import numpy as np
import pytest

from .propositional_helpers import random_binary

distributed = pytest.importorskip("dask.distributed", reason="dask is the optional extra interp[dask]")


def test_kernel_selection_on_a_local_dask_cluster_matches_n_jobs_1(dask_client):
    import joblib

    from interp_propositional import PropositionalSVC

    rng = np.random.default_rng(0)
    X = random_binary(rng, 60, 6)
    y = (((X[:, 0] > 0) & (X[:, 1] < 1)) | (X[:, 2] > 0)).astype(int)
    params = dict(n_candidates=8, random_state=3, selection="radius-margin")
    serial = PropositionalSVC(**params, n_jobs=1).fit(X, y)
    with distributed.get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        clustered = PropositionalSVC(**params, n_jobs=-1).fit(X, y)
    assert len(stream.data) >= 2  # the candidates were really scored as tasks on the cluster
    assert clustered.formula_ == serial.formula_
    assert clustered.selection_.formulas == serial.selection_.formulas
    for key in ("ratios", "radii", "margins"):
        assert getattr(clustered.selection_, key) == getattr(serial.selection_, key), key
    np.testing.assert_array_equal(clustered.decision_function(X), serial.decision_function(X))


def test_nystroem_blocks_on_a_local_dask_cluster_match_n_jobs_1(dask_client, monkeypatch):
    """The kernel blocks of the feature map (and of the decision function) are cluster tasks."""
    import joblib

    from interp_propositional import PropositionalSVC
    from interp_propositional import nystroem

    monkeypatch.setattr(nystroem, "BLOCK_ENTRIES", 40 * 100)  # 100 rows a block: 6 blocks of 600 rows
    rng = np.random.default_rng(1)
    X = random_binary(rng, 600, 8)
    y = ((X[:, 0] > 0) ^ (X[:, 3] > 0)).astype(int)
    params = dict(formula="(a & ~b) | c", approximate="always", n_landmarks=40, random_state=5)
    serial = PropositionalSVC(**params, n_jobs=1).fit(X, y)
    with distributed.get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        clustered = PropositionalSVC(**params, n_jobs=-1).fit(X, y)
        phi = clustered.feature_map_.transform(X)
        decision = clustered.decision_function(X)
    assert sum("_block" in str(task["key"]) for task in stream.data) >= 3  # joblib may batch the 3 x 6 blocks
    np.testing.assert_array_equal(phi, serial.feature_map_.transform(X))
    np.testing.assert_array_equal(clustered.landmark_coef_, serial.landmark_coef_)
    np.testing.assert_array_equal(decision, serial.decision_function(X))
