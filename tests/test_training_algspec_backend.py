"""`--backend algspec`: a whole run (train, validate, test, eval) on an `.alg` file that
imports neither TensorFlow nor dm-clrs, dense or on the file's own graph."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RUN = textwrap.dedent("""
    import json, sys
    from algspec.training.config import TrainConfig
    from algspec.training.trainer import evaluate_run, train
    config = TrainConfig(algorithm=sys.argv[1], processor="mpnn", hidden=8, steps=3,
                         batch_size=4, train_sizes=(4, 5), val_size=5, test_size=7,
                         train_samples=8, val_samples=8, test_samples=8, eval_every=2,
                         seed=3, backend="algspec", graph=sys.argv[2])
    result = train(config, sys.argv[3], progress=False)
    again = evaluate_run(sys.argv[3], write=False)
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("tensorflow", "clrs"))
    print(json.dumps({"result": result, "again": again, "loaded": loaded}))
""")


@pytest.mark.slow
@pytest.mark.parametrize("graph", ["dense", "sparse"])
def test_a_run_needs_neither_tensorflow_nor_dm_clrs(graph: str, tmp_path: Path) -> None:
    algorithm = ROOT / "algorithms" / "parallel" / "bfs_sync.alg"
    out = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-c", RUN, str(algorithm), graph, str(out)],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["loaded"] == []
    saved = json.loads((out / "result.json").read_text())
    assert saved["backend"] == "algspec" and saved["graph"] == graph
    assert 0.0 <= saved["test"]["score"] <= 1.0
    assert report["again"]["score"] == pytest.approx(saved["test"]["score"], abs=1e-12)
    assert (out / "checkpoint.pkl").is_file()
