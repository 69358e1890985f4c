"""Static and measured efficiency of `.alg` algorithms (paper section 3; docs/efficiency.md).

`static.analyse(program)` gives the worst-case classes (T, c, eta, epsilon) from
the IR, both ends of each data-dependent one in `.ranges` (`worst_case` holds the
one definition of the worst case every rule follows, `normal_forms` the normal
forms, `selection` counts what data-independent guards select; `observed` tells
the interpreter what to report by the same rule);
`measured.ActivityRecorder` is the interpreter's activity observer and
`measured.measure` samples at several sizes and compares measured with static
as a ratio;
`lint_rules` holds W201/W202; `commands.register` adds `algspec efficiency`.
See docs/efficiency.md for the counting rules.
"""

from algspec.efficiency.asymptotic import Asymptotic, log_n, m, n, one, zero
from algspec.efficiency.static import StaticEfficiency, analyse, format_static

__all__ = ["Asymptotic", "StaticEfficiency", "analyse", "format_static", "log_n", "m", "n",
           "one", "zero"]
