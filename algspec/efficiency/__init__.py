"""Static and measured efficiency of `.alg` algorithms (paper section 3; docs/efficiency.md).

`analysis.analyse(program)` gives the worst-case classes (T, c, eta, epsilon) from
the IR, both ends of each data-dependent one in `.ranges`, as a pipeline of passes:
sizes (`size_eval`), data dependence (`dependence`), normal forms (`normal_forms`),
selection (`selection`), cost (`cost`), summary (`results`). `worst_case` holds the
one definition of the worst case every rule follows.
`measured.ActivityRecorder` is the interpreter's activity observer and
`measured.measure` samples at several sizes, running the program in the form whose
plain run reports what the rule counts (`observed`), and compares measured with
static as a ratio; `lint_rules` holds W201/W202; `commands.register` adds
`algspec efficiency`. See docs/efficiency.md for the counting rules.
"""

from algspec.efficiency.analysis import analyse
from algspec.efficiency.asymptotic import Asymptotic, log_n, m, n, one, zero
from algspec.efficiency.results import StaticEfficiency, format_static

__all__ = ["Asymptotic", "StaticEfficiency", "analyse", "format_static", "log_n", "m", "n",
           "one", "zero"]
