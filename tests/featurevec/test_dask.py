"""Feature Vectors grows its trees on a Dask cluster through joblib, with the numbers of n_jobs=1."""

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed", reason="dask is the optional extra interp[dask]")


def test_feature_vectors_on_a_local_dask_cluster_match_n_jobs_1(dask_client):
    import joblib

    import interp
    from interp_featurevec import FeatureVectors

    data = interp.load_dataset("breast-cancer")
    params = dict(n_paths=20_000, window=3, max_depth=3, random_state=7)
    serial = FeatureVectors(**params, n_jobs=1).fit(data.X, data.y)
    with distributed.get_task_stream(dask_client) as stream, joblib.parallel_backend("dask"):
        clustered = FeatureVectors(**params, n_jobs=-1).fit(data.X, data.y)
    assert len(stream.data) >= 2  # the tree batches really ran as tasks on the cluster
    np.testing.assert_array_equal(clustered.embedding_, serial.embedding_)
    assert (clustered.cooccurrence_ != serial.cooccurrence_).nnz == 0
