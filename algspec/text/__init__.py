"""Text traces for language models: one sample as a prompt and its answer (CLRS-Text's form).

`format_sample` writes one sample; `text_records` draws a file's samples and
writes each as a CLRS-Text record; `algspec text` is the command. The rules
are in docs/text.md.
"""

from algspec.text.format import format_sample
from algspec.text.records import text_records

__all__ = ["format_sample", "text_records"]
