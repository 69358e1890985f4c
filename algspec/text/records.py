"""A file's samples as CLRS-Text records, and the JSON Lines file that holds them.

Record i is sample i of `alg.sampler(length=L, num_samples=-1, seed=S).next(K)`:
K fresh samples, as CLRS-Text's generator draws them (a sampler holding K
stored samples draws a batch from them with replacement, so samples repeat),
in the form CLRS-Text's generator writes: `{"prompt", "references": [answer],
"auxiliary": {"length", "seed", "use_hints"}}` (plus the algorithm's name).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from algspec.edge_lists import EdgeLists
from algspec.feedback import Features, Feedback
from algspec.process import output_files
from algspec.process.memory_budget import check_samples_fit, gigabytes
from algspec.text.format import format_sample
from algspec.text.request import check_request

DATA_FILE = "data.jsonl"
HF_FOLDER = "hf"  # a Hugging Face `datasets` dataset (`datasets.load_from_disk`)
FORMATS = ("jsonl", "hf")


def one_sample(feedback: Any, i: int) -> Feedback:
    """Sample i of a batch as a batch of one, its hints cut to its own length."""
    steps = int(np.asarray(feedback.features.lengths)[i])

    def take(dp: Any, hint: bool = False) -> Any:
        data = dp.data  # edge lists: sample i's edges made dense, N x N as CLRS-Text prints
        data = data.take([i]).dense() if isinstance(data, EdgeLists) else \
            np.asarray(data)[:, i:i + 1] if hint else np.asarray(data)[i:i + 1]
        return dp.replace(data=data[:steps] if hint else data)

    f = feedback.features
    features = Features(tuple(take(dp) for dp in f.inputs),
                        tuple(take(dp, hint=True) for dp in f.hints),
                        np.asarray(f.lengths)[i:i + 1])
    return Feedback(features, tuple(take(dp) for dp in feedback.outputs))


def text_records(alg: Any, length: int, num: int, seed: int, *, hints: bool = False,
                 decimals: int | None = None, progress: Callable[[int], None] | None = None,
                 **params: Any) -> Iterator[dict[str, Any]]:
    """CLRS-Text records of `num` samples of `alg` at size `length` (see the module).

    Drawn a chunk at a time: `next(k)` draws its samples chunk by chunk from one stream,
    so successive `next(chunk)` calls give the very samples one `next(num)` would, while
    only one chunk is held in memory."""
    from algspec.sampling import BatchSampler  # alg.sampler's batches, without dm-clrs
    from algspec.sampling.dataset import fitting_chunk

    decimals = check_request(alg, hints=hints, decimals=decimals)  # a TextError here
    alg.generator_params(**params)  # unknown parameters fail here
    chunk = fitting_chunk(length)
    sampler = BatchSampler(alg, alg.spec, -1, seed=seed, length=length,
                           truncate_decimals=decimals, chunk_size=chunk, **params)
    optional = frozenset(d.spec_name for d in alg.ir.decls if d.optional)  # `mask_one?`
    done = 0
    while done < num:
        size = min(chunk, num - done)
        batch = sampler.next(size)
        for i in range(size):
            prompt, answer = format_sample(alg.name, alg.spec, one_sample(batch, i), hints,
                                           optional)
            done += 1
            if progress is not None:
                progress(done)
            yield {"prompt": prompt, "references": [answer],
                   "auxiliary": {"length": length, "seed": seed, "use_hints": hints,
                                 "algorithm": alg.name}}


# Records written before the whole file's size is estimated against the free disk space.
PROBE_RECORDS = 256


def write_jsonl(records: Iterator[dict[str, Any]], out: Path, total: int | None = None,
                overwrite: bool = True) -> Path:
    """`out/data.jsonl`, written whole or not at all (`algspec.process.output_files`). With `total`,
    a file that cannot fit on its disk is refused after the first records (`OutputError`)."""
    path = out / DATA_FILE
    with output_files.atomic_file(path, "w", overwrite=overwrite) as f:
        for k, record in enumerate(records, 1):
            f.write(json.dumps(record, ensure_ascii=False) + "\n")
            if total is not None and k == min(PROBE_RECORDS, total) < total:
                _check_disk(f, path, k, total)
    return path


def _check_disk(f: Any, path: Path, written: int, total: int) -> None:
    f.flush()
    need = f.tell() / written * total
    free = shutil.disk_usage(path.parent).free + f.tell()
    if need > free:
        raise output_files.OutputError(
            f"cannot write {path}: {total} records need about {gigabytes(need)}, and its disk "
            f"has {gigabytes(free)} free; ask for fewer records")


def write_hf(records: Iterator[dict[str, Any]], out: Path, total: int | None = None,
             overwrite: bool = True) -> Path:
    """`out/hf`: the records as a Hugging Face dataset (`datasets.load_from_disk`), saved
    to a temporary folder first and renamed, so a stopped run leaves nothing half-written.
    The records are held in memory: with `total`, what cannot fit is refused early."""
    import datasets
    from datasets import Dataset

    datasets.disable_progress_bars()  # the command shows its own progress

    path = out / HF_FOLDER
    rows: list[dict[str, Any]] = []
    for k, record in enumerate(records, 1):
        rows.append(record)
        if total is not None and k == min(PROBE_RECORDS, total) < total:
            per = sum(len(json.dumps(r)) for r in rows) / k * HF_BYTES_PER_JSON_BYTE
            check_samples_fit(per, total, int(record["auxiliary"]["length"]), copies=1)
    with output_files.temp_dir_for(path) as tmp:
        Dataset.from_list(rows).save_to_disk(str(tmp))
        output_files.publish_dir(tmp, path, overwrite)
    return path


# Memory a record takes as Python objects plus its Arrow copy, per byte of its JSON.
HF_BYTES_PER_JSON_BYTE = 6
