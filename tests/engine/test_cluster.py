"""`--cluster`: the same games on a Dask scheduler, here a LocalCluster of worker processes (the
test extra installs `distributed`), give the report a local run gives."""

import distributed
import pytest

from sheets_host.engine import play, sweep

from tests.engine.test_workers import untimed


@pytest.mark.slow(8)
def test_a_dask_cluster_gives_the_reports_a_local_run_gives():
    grid = {"rounds": ["3", "5"]}
    # Worker processes, as on a real cluster: what they run crosses to them by name.
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        remote = play.simulations("wind-guide-me", 5, 2, cluster=c.scheduler_address)
        swept = sweep.sweep("wind-guide-me", grid, 3, 1, cluster=c.scheduler_address)
    assert untimed(remote) == untimed(play.simulations("wind-guide-me", 5, 2))
    assert swept.csv() == sweep.sweep("wind-guide-me", grid, 3, 1).csv()
