"""`argmin(KEY for x in nodes if F unstable)`: numpy's default argsort order, row by row."""

from __future__ import annotations

import numpy as np

import algspec

SRC = """algorithm pick
nodes n
graph complete
input  node k: scalar ~ uniform()
input  node q: scalar ~ uniform()
output node u: mask_one = onehot(cur)
state  graph cur: int
cur = argmin(k[x] + (0.0 if q[x] > 0.5 else 1e9) for x in nodes if q[x] > 0.5 unstable, default = 0)
"""


def _load(tmp_path, src: str):
    p = tmp_path / "pick.alg"
    p.write_text(src)
    return algspec.load(str(p))


def test_first_selected_in_numpy_order(tmp_path) -> None:
    """Tied keys (few levels, n up to 40): the node np.argsort(row)[0] picks, per sample and batched."""
    alg = _load(tmp_path, SRC)
    rng = np.random.default_rng(3)
    for n in (5, 17, 40):
        ks = rng.integers(0, 3, (6, n)) / 2.0
        qs = (rng.random((6, n)) < 0.6).astype(float)
        qs[:, 0] = 1.0
        want = [int(np.argsort(k + (1.0 - q) * 1e9)[0]) for k, q in zip(ks, qs)]
        for k, q, w in zip(ks, qs, want):
            assert alg.trace(k=k, q=q)[0] == w
        batched = alg.run({"k": ks, "q": qs}, n, dtype=np.float64)
        assert list(np.argmax(batched.outputs["u"], axis=-1)) == want


def test_unstable_needs_argmin_over_nodes(tmp_path) -> None:
    bad = SRC.replace("argmin(k[x]", "argmax(k[x]")
    try:
        _load(tmp_path, bad)
    except Exception as err:  # noqa: BLE001 - the loader's diagnostic error
        assert "E207" in str(err)
    else:
        raise AssertionError("argmax ... unstable was accepted")
