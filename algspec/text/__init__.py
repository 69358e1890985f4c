"""Text traces for language models: one sample as a prompt and its answer (CLRS-Text's form).

`format_sample` writes one sample; `text_records` draws a file's samples and
writes each as a CLRS-Text record; `parse_record` reads a record back into
arrays; `score_answer` grades a model's answer; `algspec text` is the
command. The rules are in docs/text.md.
"""

from algspec.text.format import format_sample
from algspec.text.parse import ParsedRecord, TextFormatError, parse_record, score_answer
from algspec.text.records import text_records

__all__ = ["ParsedRecord", "TextFormatError", "format_sample", "parse_record", "score_answer",
           "text_records"]
