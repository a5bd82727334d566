"""The Ray engine on a local Ray (2 CPUs): the same rows as the local engine; Ray is shut down after."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from harmony_viz.cli import main
from harmony_viz.data import sample_paths
from harmony_viz.runs import load_runs, save_runs
from harmony_viz.scale import write_parquet
from harmony_viz.stats import rows_for_batch

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray():
    import shutil
    import tempfile

    # A short folder of its own: Ray's socket paths must fit in 107 bytes, and another
    # session fixture may point TMPDIR at a deep pytest folder.
    temp = tempfile.mkdtemp(prefix="hvray", dir="/tmp")
    ray.init(num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False, _temp_dir=temp)
    try:
        yield ray
    finally:
        ray.shutdown()
        shutil.rmtree(temp, ignore_errors=True)


def key(row: dict) -> tuple:
    return tuple(str(row[k]) for k in sorted(row))


def test_ray_rows_equal_the_local_engine(local_ray, tmp_path, capsys):
    runs = load_runs(sample_paths())
    shards = [save_runs(runs[i::2], tmp_path / f"shard-{i}.jsonl") for i in range(2)]
    records = tmp_path / "texts.parquet"
    pq.write_table(pa.table({"harmony": [r.text for r in runs if r.text is not None][:30]}), records, row_group_size=8)
    local = tmp_path / "local.parquet"
    write_parquet([str(p) for p in shards], local, progress=False)
    out = tmp_path / "ray-rows"
    assert main(["stats", *map(str, shards), "--engine", "ray", "--parquet", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith(f"wrote {len(runs)} runs to {out}: ")
    want = pq.read_table(local).to_pylist()
    got = pq.read_table(out).to_pylist()
    assert len(got) == len(want) and sorted(map(key, got)) == sorted(map(key, want))

    # The README's Ray Data pipeline: rows_for_batch is pure and picklable, and gives the local rows.
    assert pickle.loads(pickle.dumps(rows_for_batch)) is rows_for_batch
    dataset = ray.data.read_parquet(str(records)).map_batches(rows_for_batch, batch_format="pyarrow", fn_kwargs={"column": "harmony"})
    ray_rows = dataset.take_all()
    local_rows = []
    write_parquet([str(records)], tmp_path / "texts-rows.parquet", column="harmony", progress=False)
    local_rows = pq.read_table(tmp_path / "texts-rows.parquet").to_pylist()
    strip = ("id", "source")  # Ray's batches do not know the file or row number; ids are positional here
    assert sorted(key({k: v for k, v in r.items() if k not in strip}) for r in ray_rows) == sorted(
        key({k: v for k, v in r.items() if k not in strip}) for r in local_rows
    )
