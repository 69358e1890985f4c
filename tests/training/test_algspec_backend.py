"""`--backend algspec`: a whole run (train, validate, test, eval) on an algorithm file (its
YAML form) where TensorFlow and dm-clrs cannot be imported, dense or on the file's own graph."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUN = textwrap.dedent("""
    import importlib.abc, json, sys

    class Hide(importlib.abc.MetaPathFinder):  # an install without dm-clrs and TensorFlow:
        # no finder knows them, so `import` fails and `importlib.util.find_spec` says None
        # (etils asks it before JAX opens its persistent compilation cache; an error there
        # would turn the cache off)
        def __init__(self, finders):
            self.finders = finders

        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("tensorflow", "clrs"):
                return None
            for finder in self.finders:
                spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
                if spec is not None:
                    return spec
            return None

        def invalidate_caches(self):
            for finder in self.finders:
                getattr(finder, "invalidate_caches", lambda: None)()

    sys.meta_path[:] = [Hide(list(sys.meta_path))]
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
def test_a_run_needs_neither_tensorflow_nor_dm_clrs(tmp_path: Path) -> None:
    from algspec.language.yaml_writer import to_yaml

    graph = "sparse"  # dense training runs in the seeds test below
    algorithm = tmp_path / "bfs_sync.yaml"  # the YAML form trains as the .alg file does
    source = ROOT / "algorithms" / "parallel" / "bfs_sync.alg"
    algorithm.write_text(to_yaml(source.read_text(), str(source)))
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
    # every program compiled in the run counts (initialisation, steps, validation, test)
    assert saved["compiled_programs"] >= 4 or os.environ.get("ALGSPEC_JAX_CACHE") != "off"
    assert saved["compile_seconds"] >= 0.0 and saved["first_steps_seconds"] > 0.0


def _tiny(seed: int, graph: str = "dense"):
    from algspec.training.config import TrainConfig

    return TrainConfig(algorithm=str(ROOT / "algorithms" / "parallel" / "prefix_sums.alg"),
                       processor="mpnn", hidden=8, steps=4, batch_size=4,
                       train_sizes=(4, 5), val_size=5, test_size=6, train_samples=8,
                       val_samples=8, test_samples=8, eval_every=2, seed=seed,
                       backend="algspec", graph=graph)


@pytest.mark.slow
def test_seeds_trained_as_one_program_equal_seeds_trained_alone(tmp_path: Path) -> None:
    import pickle

    import numpy as np

    from algspec.training.trainer import train, train_seeds

    together = train_seeds([_tiny(1), _tiny(2)], [tmp_path / "a1", tmp_path / "a2"],
                           progress=False)
    alone = [train(_tiny(s), tmp_path / f"b{s}", progress=False) for s in (1, 2)]
    for t, a, seed in zip(together, alone, (1, 2), strict=True):
        assert t["seed"] == seed and t["seeds_in_program"] == 2
        assert t["final_loss"] == pytest.approx(a["final_loss"], rel=1e-4)
        assert t["best_step"] == a["best_step"]
        assert t["test"]["score"] == pytest.approx(a["test"]["score"], abs=1e-6)
        lines_t = (tmp_path / f"a{seed}" / "metrics.jsonl").read_text().splitlines()
        lines_a = (tmp_path / f"b{seed}" / "metrics.jsonl").read_text().splitlines()
        for x, y in zip(lines_t, lines_a, strict=True):
            x, y = json.loads(x), json.loads(y)
            assert x["loss"] == pytest.approx(y["loss"], rel=1e-4)
            assert x["val_score"] == pytest.approx(y["val_score"], abs=1e-6)
        pt = pickle.loads((tmp_path / f"a{seed}" / "checkpoint.pkl").read_bytes())["params"]
        pa = pickle.loads((tmp_path / f"b{seed}" / "checkpoint.pkl").read_bytes())["params"]
        for module, leaves in pa.items():
            for name, value in leaves.items():
                np.testing.assert_allclose(pt[module][name], value, atol=1e-5)
    assert together[0]["final_loss"] != together[1]["final_loss"]  # its own data and key


def test_only_seeds_may_differ_in_one_program(tmp_path: Path) -> None:
    from dataclasses import replace

    from algspec.training.trainer import train_seeds

    with pytest.raises(ValueError, match="differ in hidden"):
        train_seeds([_tiny(1), replace(_tiny(2), hidden=16)], [tmp_path / "a", tmp_path / "b"])
    with pytest.raises(ValueError, match="only with backend algspec"):
        train_seeds([replace(_tiny(1), backend="clrs", graph="dense"),
                     replace(_tiny(2), backend="clrs", graph="dense")],
                    [tmp_path / "a", tmp_path / "b"])
