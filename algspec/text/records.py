"""A file's samples as CLRS-Text records, and the JSON Lines file that holds them.

Record i is sample i of `alg.sampler(length=L, num_samples=-1, seed=S).next(K)`:
K fresh samples, as CLRS-Text's generator draws them (a sampler holding K
stored samples draws a batch from them with replacement, so samples repeat),
in the form CLRS-Text's generator writes: `{"prompt", "references": [answer],
"auxiliary": {"length", "seed", "use_hints"}}` (plus the algorithm's name).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from algspec.feedback import Features, Feedback
from algspec.text.format import format_sample

DATA_FILE = "data.jsonl"
HF_FOLDER = "hf"  # a Hugging Face `datasets` dataset (`datasets.load_from_disk`)
FORMATS = ("jsonl", "hf")


def one_sample(feedback: Any, i: int) -> Feedback:
    """Sample i of a batch as a batch of one, its hints cut to its own length."""
    steps = int(np.asarray(feedback.features.lengths)[i])

    def take(dp: Any, hint: bool = False) -> Any:
        data = np.asarray(dp.data)
        return dp.replace(data=data[:steps, i:i + 1] if hint else data[i:i + 1])

    f = feedback.features
    features = Features(tuple(take(dp) for dp in f.inputs),
                        tuple(take(dp, hint=True) for dp in f.hints),
                        np.asarray(f.lengths)[i:i + 1])
    return Feedback(features, tuple(take(dp) for dp in feedback.outputs))


def text_records(alg: Any, length: int, num: int, seed: int, *, hints: bool = False,
                 decimals: int | None = None, progress: Callable[[int], None] | None = None,
                 **params: Any) -> Iterator[dict[str, Any]]:
    """CLRS-Text records of `num` samples of `alg` at size `length` (see the module)."""
    from algspec.sampling import BatchSampler  # alg.sampler's batches, without dm-clrs

    alg.generator_params(**params)  # unknown parameters fail here
    batch = BatchSampler(alg, alg.spec, -1, seed=seed, length=length,
                         truncate_decimals=decimals, **params).next(num)
    for i in range(num):
        prompt, answer = format_sample(alg.name, alg.spec, one_sample(batch, i), hints)
        if progress is not None:
            progress(i + 1)
        yield {"prompt": prompt, "references": [answer],
               "auxiliary": {"length": length, "seed": seed, "use_hints": hints,
                             "algorithm": alg.name}}


def write_jsonl(records: Iterator[dict[str, Any]], out: Path) -> Path:
    """`out/data.jsonl`, written whole or not at all (a temporary file renamed)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / DATA_FILE
    fd, tmp = tempfile.mkstemp(dir=out, prefix=".data-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for record in records:
                f.write(json.dumps(record, ensure_ascii=False) + "\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_hf(records: Iterator[dict[str, Any]], out: Path) -> Path:
    """`out/hf`: the records as a Hugging Face dataset (`datasets.load_from_disk`), saved
    to a temporary folder first and renamed, so a stopped run leaves nothing half-written."""
    import shutil

    import datasets
    from datasets import Dataset

    datasets.disable_progress_bars()  # the command shows its own progress

    out.mkdir(parents=True, exist_ok=True)
    path = out / HF_FOLDER
    tmp = Path(tempfile.mkdtemp(dir=out, prefix=".hf-"))
    try:
        Dataset.from_list(list(records)).save_to_disk(str(tmp))
        old = None
        if path.exists():  # --overwrite: the old dataset moves aside until the new is in place
            old = Path(tempfile.mkdtemp(dir=out, prefix=".hf-old-")) / HF_FOLDER
            os.replace(path, old)
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old.parent, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path
