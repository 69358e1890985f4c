"""One training run in its own process: `python -m algspec.training.worker --out DIR CONFIG`.

Several `--out DIR` with as many CONFIGs: runs that differ only in their seed,
trained as one program (`trainer.train_seeds`, the `algspec` backend); the
finished ones among them are left as they are.

`algspec experiment --jobs N` starts one of these per run so that runs side by
side share nothing (a JAX process per run, its own slice of GPU memory) and a
run that crashes or is killed takes only itself down. Exit status: 0 done
(result.json written, or found complete: then nothing is trained again),
`EXIT_RUN_FAILED` when training raised (retrying would fail the same way),
`EXIT_RUN_BUSY` when another process holds a run folder (it trains that run; the
others were trained, and the last line of output says which was skipped),
anything else means the process died and the run may be retried, unless its
result.json is complete: the launcher goes by the folder, not the status.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback

EXIT_RUN_FAILED = 3
EXIT_RUN_BUSY = 4


def _held_elsewhere(out: str) -> str | None:
    """Why another process holds `out` (it trains that run now), or None."""
    from algspec.process.output_files import OutputBusy, acquire

    try:
        acquire(out, inside=True).release()
    except OutputBusy as exc:
        return str(exc)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m algspec.training.worker")
    parser.add_argument("--out", required=True, action="append", help="run folder")
    parser.add_argument("--checkpoint-every", type=int, default=None,
                        help="steps between saved training states (default: each validation)")
    parser.add_argument("config", nargs="+", help="the TrainConfig as JSON")
    args = parser.parse_args(argv)
    if len(args.out) != len(args.config):
        parser.error("one --out per config")

    from algspec.process.output_files import OutputBusy
    from algspec.training.config import TrainConfig
    from algspec.training.metrics import score_text
    from algspec.training.runs import read_result

    todo, busy = [], []
    for out, config in zip(args.out, args.config, strict=True):
        res = read_result(out)
        if res is not None:  # finished already: a finished run is never trained over
            print(f"{out}: done (already): val {score_text(res['val'])}, "
                  f"test {score_text(res['test'])}")
        elif (why := _held_elsewhere(out)) is not None:
            busy.append(why)
        else:
            todo.append((out, config))
    if not todo:
        return _busy(busy)
    from algspec.training.trainer import train_seeds

    try:
        configs = [TrainConfig.from_dict(json.loads(config)) for _, config in todo]
        results = train_seeds(configs, [out for out, _ in todo], progress=False,
                              checkpoint_every=args.checkpoint_every)
    except OutputBusy as exc:  # taken between the check and the start
        return _busy([*busy, str(exc)])
    except Exception as exc:  # noqa: BLE001 - reported to the grid, which goes on
        traceback.print_exc()
        print(f"run failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return EXIT_RUN_FAILED
    for (out, _), res in zip(todo, results, strict=True):
        print(f"{out}: done: val {score_text(res['val'])}, test {score_text(res['test'])}",
              flush=True)
    return _busy(busy)


def _busy(reasons: list[str]) -> int:
    """0, or `EXIT_RUN_BUSY` after one line per run another process holds."""
    for why in reasons:
        print(f"busy: {why}", flush=True)
    return EXIT_RUN_BUSY if reasons else 0


if __name__ == "__main__":
    sys.exit(main())
