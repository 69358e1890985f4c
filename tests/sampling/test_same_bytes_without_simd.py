"""Samples, generator draws and CLRS-Text output are the same bytes whatever SIMD kernels
numpy picks.

numpy chooses its float kernels at run time by CPU feature (AVX-512, AVX2/FMA3, or the
SSE baseline), and its transcendental kernels differ in the last bit between them.
`tests/support/cpu_digests.py` digests a seeded batch of every shipped `.alg` file,
seeded draws of every named generator (every graph family, weighted and edge-list
draws), CLRS-Text records, the trainer's preprocessed batches and a program calling
every transcendental op; here it runs once with numpy's default kernels and once per
narrower level (no AVX-512; the SSE baseline), the wider dispatch targets disabled with
`NPY_DISABLE_CPU_FEATURES`, and every digest must be equal.

The C library has CPU variants too (glibc runs FMA or non-FMA code for `exp`, `log`,
`pow`, `atan2`, `sin`, ...), which numpy's switch does not reach: one more run turns
glibc's FMA code off as well (`GLIBC_TUNABLES`, as on a CPU without FMA), and every
digest, the transcendental program's included, must still be equal: algspec computes
its transcendentals in double-double (algspec/ir/libm.py), not with the C library.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _enabled_targets() -> list[str]:
    """numpy's dispatch targets (kernels beyond its baseline) that this CPU enables."""
    from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    return [t for t in __cpu_dispatch__ if __cpu_features__.get(t)]


# glibc's code without FMA, as on a CPU without it (glibc picks it by CPU, as numpy does).
NO_FMA_LIBC = {"GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F"}


def _levels(enabled: list[str]) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Settings below the default: the dispatch targets each disables (numpy does not
    disable a target that builds on a disabled one, so each lists every target above)
    and its other environment."""
    wide = [t for t in enabled if t.startswith("AVX512") or t == "X86_V4"]
    levels = {"baseline": (list(enabled), {})}
    if wide and len(wide) < len(enabled):
        levels["no-avx512"] = (wide, {})
    if sys.platform.startswith("linux") and platform.machine().lower() in ("x86_64", "amd64"):
        levels["baseline-no-fma-libc"] = (list(enabled), NO_FMA_LIBC)
    return levels


def _run(disabled: list[str] | None, extra: dict[str, str] | None = None) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NPY_DISABLE_CPU_FEATURES", "NPY_ENABLE_CPU_FEATURES",
                        "GLIBC_TUNABLES")}
    if disabled:
        env["NPY_DISABLE_CPU_FEATURES"] = " ".join(disabled)
    env.update(extra or {})
    return subprocess.Popen([sys.executable, "-m", "tests.support.cpu_digests"], cwd=ROOT,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err[-3000:]
    return json.loads(out)


@pytest.fixture(scope="module")
def runs() -> dict[str, dict]:
    if os.environ.get("NPY_DISABLE_CPU_FEATURES") or os.environ.get("NPY_ENABLE_CPU_FEATURES"):
        pytest.skip("NPY_*_CPU_FEATURES already narrows numpy's kernels here: the default "
                    "level to compare against cannot run")
    enabled = _enabled_targets()
    if not enabled:
        pytest.skip("this CPU enables none of numpy's wide SIMD targets: nothing to disable")
    levels = _levels(enabled)
    procs = {"default": _run(None), **{name: _run(*how) for name, how in levels.items()}}
    results = {name: _result(p) for name, p in procs.items()}
    for name, (off, _) in levels.items():
        assert not set(off) & set(results[name]["dispatch_enabled"]), (name, results[name])
    return results


@pytest.mark.slow  # four processes sample every shipped file
def test_every_digest_is_of_a_real_sample(runs):
    digests = runs["default"]["digests"]
    failed = {k: v for k, v in digests.items() if v.startswith("error")}
    assert not failed, failed
    shipped = [k for k in digests if k.startswith("file:")]
    assert len(shipped) == len(list((ROOT / "algorithms").rglob("*.alg"))) - len(
        list((ROOT / "algorithms").rglob("lib/*.alg")))
    assert any(k.startswith("file:salsa/") for k in shipped)
    assert any(k.startswith("file:parallel/") for k in shipped)
    assert any(k.startswith("gen:erdos_renyi:") and "delaunay" in k for k in digests)
    for kind in ("sparse:", "sampler:", "text:", "train:", "ops:"):
        assert any(k.startswith(kind) for k in digests), kind


@pytest.mark.slow
def test_disabling_features_changes_numpys_own_kernels(runs):
    """Without this the comparison below could pass because nothing was switched. (On
    x86, numpy's AVX2 and AVX-512 exp/log/tanh kernels differ from its baseline ones.)"""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("only on x86 do numpy's own kernels differ by SIMD level, the control "
                    "this test checks")
    assert runs["baseline"]["kernels"] != runs["default"]["kernels"]


@pytest.mark.slow
@pytest.mark.parametrize("level", ["baseline", "no-avx512", "baseline-no-fma-libc"])
def test_same_bytes_with_narrower_simd(runs, level):
    if level not in runs:
        pytest.skip(f"no '{level}' level on this machine")
    if level.endswith("libc") and runs[level]["libc"] == runs["default"]["libc"]:
        pytest.skip("glibc runs the same code without FMA here: nothing switched")
    want, got = runs["default"]["digests"], runs[level]["digests"]
    assert got.keys() == want.keys()
    differ = sorted(k for k in want if got[k] != want[k])
    assert not differ, f"differ at {level} ({runs[level]['dispatch_enabled']}): {differ}"


# numpy's transcendental ufuncs, which run the SIMD kernels (`algspec.ir.libm` has
# double-double ones instead), and its linear algebra, which runs BLAS/LAPACK kernels that
# OpenBLAS picks by CPU (`OPENBLAS_CORETYPE`). The model (nn/, training/) is exempt, XLA's
# floats differ by CPU anyway, but not the trainer's data path (training/data.py).
_CPU_KERNELS = re.compile(
    r"\bnp\.(exp|exp2|expm1|log|log2|log10|log1p|sin|cos|tan|arcsin|arccos|arctan|arctan2|"
    r"sinh|cosh|tanh|arcsinh|arccosh|arctanh|power|float_power|hypot|cbrt|logaddexp|"
    r"logaddexp2|polyfit|linalg|dot|matmul|einsum|tensordot|inner|vdot)\b")


def _checked(path: Path) -> bool:
    rel = path.relative_to(ROOT / "algspec")
    return rel.parts[0] not in ("nn", "training") or rel == Path("training/data.py")


def test_no_cpu_dependent_numpy_kernel_outside_the_model():
    found = [f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
             for p in sorted((ROOT / "algspec").rglob("*.py")) if _checked(p)
             for i, line in enumerate(p.read_text().splitlines(), 1)
             if _CPU_KERNELS.search(line.split("#")[0])]
    assert not found, ("use algspec.ir.libm, or Python floats in a fixed order:\n"
                       + "\n".join(found))
