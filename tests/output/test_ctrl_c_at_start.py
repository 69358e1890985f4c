"""Ctrl-C while `algspec` starts: from the console script's first line on, one
`interrupted:` line and exit 130, never a traceback. A Ctrl-C inside Python's own start-up
(`site`, before any algspec code runs) is Python's to report; those tries are skipped."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.output.helpers import ROOT

SCRIPT = Path(sys.executable).parent / "algspec"
PYTHON_STARTUP = ("<frozen site>", "init_import_site")  # before algspec.console runs


def test_ctrl_c_right_after_the_console_module_loads_is_one_line(tmp_path: Path) -> None:
    """Deterministic: the signal lands between the console module and the command."""
    wrapper = tmp_path / "algspec"  # named as the console script is
    wrapper.write_text("import os, signal, sys\nfrom algspec.console import main\n"
                       "os.kill(os.getpid(), signal.SIGINT)\nsys.exit(main())\n")
    r = subprocess.run([sys.executable, str(wrapper), "lint", "--no-sample", "x.alg"],
                       capture_output=True, text=True, timeout=60, cwd=ROOT,
                       check=False)
    assert r.returncode == 130, r.stderr
    assert r.stderr == "interrupted: algspec was starting; nothing was done\n"


def test_ctrl_c_at_any_moment_of_start_up_is_never_an_algspec_traceback() -> None:
    alg = ROOT / "algorithms" / "parallel_search.alg"
    landed = 0
    for delay in (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.45, 0.6):
        p = subprocess.Popen([str(SCRIPT), "lint", "--no-sample", str(alg)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(delay)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=60)
        if any(m in err for m in PYTHON_STARTUP) or p.returncode == -signal.SIGINT:
            continue  # Python itself was still starting: not ours to catch
        assert "Traceback" not in err, (delay, err)
        assert p.returncode in (0, 130), (delay, p.returncode, err)
        if p.returncode == 130:
            assert len(err.strip().splitlines()) == 1 and err.startswith("interrupted:"), err
            landed += 1
    assert landed, "no Ctrl-C landed while algspec ran"
