"""Targeted E002 messages for syntax that users bring from Python, C or pseudo-code.

lark says "unexpected X, expected Y"; next to a construct of another language
(`def`, `elif`, `&&`, a `:` opening a block, a condition broken over two
lines) that names the symptom, not the mistake. `explain` looks at the
unexpected token, the part of the statement parsed before it (the parser's
stack back to the last statement boundary) and what the grammar expected, and
returns the first entry of `HINTS` that fits: what is wrong and what to write
instead. `char_help` does the same for a character no token starts with (E001).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from lark import Token, Tree

# Keywords that open a statement with a block; `else` is `_ELSE` (it swallows the newlines before it).
_BLOCK_HEADS = {"IF": "if", "WHILE": "while", "FOR": "for", "FORALL": "forall", "ROUND": "round",
                "PROC": "proc", "_ELSE": "else"}
_HEADS = {**_BLOCK_HEADS, "LET": "let"}
# Tokens after which an expression is unfinished.
_OPERATORS = {"ADD_OP", "MINUS", "MUL_OP", "STAR", "SLASH", "COMP_OP", "AND", "OR", "NOT",
              "BAND_OP", "BOR_OP", "BXOR_OP", "SHIFT_OP", "POW_OP", "TILDE", "EQUAL", "ASSIGN_OP",
              "COMMA", "IF", "ELSE", "BOUND", "WHERE", "LESSTHAN", "MORETHAN", "BY", "IN"}
_BINARY_ONLY = {"ADD_OP", "MUL_OP", "STAR", "SLASH", "COMP_OP", "AND", "OR", "BAND_OP", "BOR_OP",
                "BXOR_OP", "SHIFT_OP", "POW_OP", "LESSTHAN", "MORETHAN"}
_BOUNDARIES = {"LBRACE", "RBRACE", "_NL", "SEMICOLON"}  # tokens that end a statement
# Words that start a statement in this language (for "did you mean" on a misspelt one).
_STATEMENT_WORDS = ("if", "while", "for", "forall", "round", "record", "break", "let", "proc",
                    "return", "include", "input", "output", "hint", "state", "private")

_DEF = ("`{word}` does not define a procedure",
        "a procedure is `proc NAME(a, b) {{ ... }}` at the top level, called as `NAME(x, y)`")
_ELIF = ("`{word}` is written `else if`",
         "e.g. `if a < b {{ ... }} else if a == b {{ ... }} else {{ ... }}`")
_END = ("`{word}` does not close a block: blocks are in braces",
        "close the block with `}}` (it opens with `{{` at the end of the `if`/`while`/`for` line)")
_CONTINUE = ("there is no `continue`",
             "put the rest of the loop body under an `if`, or leave the loop with `break`")
_PASS = ("there is no `pass`: an empty block is `{{ }}`", "e.g. `if a < b {{ }} else {{ a = b }}`")
_VAR = ("`{word}` does not declare a variable",
        ("a local value is `let x = ...`; data the algorithm keeps is declared before the body, "
         "e.g. `state graph x: int = 0`"))
# A statement that starts with a word of another language: (message, help).
_FOREIGN_WORDS = {
    "def": _DEF, "function": _DEF, "fn": _DEF, "func": _DEF, "void": _DEF,
    "elif": _ELIF, "elsif": _ELIF, "elseif": _ELIF, "end": _END, "endif": _END,
    "endwhile": _END, "endfor": _END, "done": _END, "fi": _END, "od": _END,
    "continue": _CONTINUE, "pass": _PASS, "var": _VAR, "const": _VAR, "local": _VAR,
    "int": _VAR, "float": _VAR, "bool": _VAR, "auto": _VAR,
}
_FILLER_WORDS = ("then", "do", "begin", "loop")  # `if c then`, `while c do`
# A character no token starts with (E001): the help.
_CHAR_HELP = {
    "!": "negation is `not x` (`!=` compares)",
    "?": "a conditional value is `a if c else b`",
    "'": "there are no strings; a spec name may be quoted: `as \"name\"`",
}


@dataclass(frozen=True)
class Context:
    """What the parser saw at a syntax error."""

    token: Token                     # the unexpected token
    before: tuple[Token | Tree, ...]  # the statement parsed so far (its first element first)
    expected: frozenset[str]         # terminal names the grammar would have accepted
    source: str
    literals: dict[str, str]         # terminal name -> its literal text (`..`, `bound`, ...)

    @property
    def prev(self) -> Token | None:
        """The token just before the unexpected one, if the parser has not reduced it yet."""
        last = self.before[-1] if self.before else None
        return last if isinstance(last, Token) else None

    @property
    def clause(self) -> tuple[Token | Tree, ...]:
        """The part of the statement being parsed: after `if ... { }`, its `else` part."""
        blocks = [k for k, x in enumerate(self.before) if isinstance(x, Tree) and x.data == "block"]
        seg = self.before[blocks[-1] + 1:] if blocks else self.before
        if len(seg) > 1 and isinstance(seg[0], Token) and seg[0].type == "_ELSE":
            seg = seg[1:]  # `else if ...`
        return seg

    @property
    def head(self) -> str | None:
        """The keyword that opens the clause being parsed (`if`, `while`, `else`, `let`, ...)."""
        first = self.clause[0] if self.clause else None
        return _HEADS.get(first.type) if isinstance(first, Token) else None

    @property
    def word(self) -> str | None:
        """The statement's only word so far, when it is a lone name (`def`, `elif`, ...)."""
        if len(self.before) == 1 and isinstance(self.before[0], Token) and \
                self.before[0].type == "NAME":
            return str(self.before[0])
        return None

    def has(self, *types: str) -> bool:
        """Whether the statement so far holds a token of one of `types` (`BOUND`, `WHERE`)."""
        return any(isinstance(x, Token) and x.type in types for x in self.clause)

    def text_at(self, width: int) -> str:
        """The source text from the unexpected token on, `width` characters of it."""
        pos = self.token.start_pos
        return self.source[pos:pos + width] if pos is not None else ""

    def accepts(self, literal: str) -> bool:
        """Whether the grammar expected the literal `literal` here (`..`, `{`)."""
        return any(self.literals.get(t) == literal for t in self.expected)


@dataclass(frozen=True)
class Hint:
    """One known mistake: when it applies, the message after "unexpected X: ", and the help.

    `message` and `help` are templates over `_fields(ctx)` or functions of the context; a
    `help` of None keeps the grammar's "expected ..." list.
    """

    applies: Callable[[Context], bool]
    message: str | Callable[[Context], str]
    help: str | Callable[[Context], str | None] | None


def _fields(ctx: Context) -> dict[str, str]:
    return {"word": ctx.word or "", "head": ctx.head or "", "token": str(ctx.token).strip(),
            "prev": str(ctx.prev) if ctx.prev is not None else "",
            "keyword": _misspelt(ctx) or "", "target": _target(ctx), "opening": _opening(ctx)}


def _opening(ctx: Context) -> str:
    """How the clause being parsed opens its block: `while ... {`, `else {`."""
    return f"`{ctx.head} {{`" if ctx.head in ("else", "round") else f"`{ctx.head} ... {{`"


def _render(template: str | Callable[[Context], str | None], ctx: Context) -> str | None:
    return template(ctx) if callable(template) else template.format(**_fields(ctx))


def _misspelt(ctx: Context) -> str | None:
    """The keyword a misspelt word was meant to be: a statement's first word, or the token."""
    return _misspelt_word(ctx) or _misspelt_token(ctx)


def _misspelt_word(ctx: Context) -> str | None:
    """The statement keyword a statement's lone first word is close to (`whlie` -> `while`)."""
    if ctx.word is None or ctx.word in _FOREIGN_WORDS:
        return None
    hit = difflib.get_close_matches(ctx.word, _STATEMENT_WORDS, n=1, cutoff=0.75)
    return hit[0] if hit else None


def _misspelt_token(ctx: Context) -> str | None:
    """The expected keyword the unexpected name is close to (`algoritm` -> `algorithm`)."""
    if ctx.token.type != "NAME":
        return None
    words = [w for t in ctx.expected if (w := ctx.literals.get(t, "")).isalpha()]
    hit = difflib.get_close_matches(str(ctx.token), words, n=1, cutoff=0.75)
    return hit[0] if hit else None


def _target(ctx: Context) -> str:
    """The text of the statement before the unexpected token on its line (`x[i]` of `x[i]++`)."""
    pos = ctx.token.start_pos or 0
    line = ctx.source[:pos].rsplit("\n", 1)[-1]
    return line.replace("{", ";").replace("}", ";").rsplit(";", 1)[-1].strip() or "x"


def _in_condition(ctx: Context) -> bool:
    """Whether the token is in the condition of `if`/`while` or a `forall` guard."""
    return _continued_what(ctx) != "the expression"


def _continued_what(ctx: Context) -> str:
    if ctx.head in ("if", "while") and not ctx.has("BOUND"):
        return f"the `{ctx.head}` condition"
    if ctx.head == "forall" and ctx.has("WHERE"):
        return "the `where` guard"
    return "the expression"


def _continued_message(ctx: Context) -> str:
    return f"{_continued_what(ctx)} continues on the next line"


def _continued_help(ctx: Context) -> str:
    """How to continue a line: parentheses, shown on the user's own two lines when possible."""
    text = (f"a newline ends a statement; to continue {_continued_what(ctx)} on the next line, "
            "wrap it in parentheses (newlines inside `(...)` are ignored)")
    example = _wrapped(ctx)
    return f"{text}: {example}" if example else text


def _wrapped(ctx: Context) -> str | None:
    """The user's condition split over two lines inside parentheses, e.g.
    `while (a < b and` ... `c < d) bound n {`; None when the lines do not look like that."""
    if ctx.head not in ("if", "while") or ctx.has("BOUND"):
        return None
    pos = ctx.token.start_pos or 0
    first = ctx.source[:pos].rsplit("\n", 1)[-1].strip()
    rest = [ln.split("#", 1)[0].strip() for ln in ctx.source[pos:].split("\n")[1:]]
    second = next((ln for ln in rest if ln), "")
    if not first.startswith(ctx.head + " "):
        return None
    stop = next((k for k in (second.find(" bound "), second.find(" {"), second.find("{"))
                 if k >= 0), -1)
    if stop < 0:
        return None
    return (f"`{ctx.head} ({first[len(ctx.head):].strip()}` ... "
            f"`{second[:stop].rstrip()}){' ' if second[stop] != ' ' else ''}{second[stop:]}`")


def _after_total(ctx: Context) -> bool:
    """Whether the loop header so far has its `total bound` (its last part)."""
    return ctx.has("TOTAL") or any(isinstance(x, Tree) and x.data == "total_bound"
                                   for x in ctx.clause)


def _edges_call(ctx: Context) -> str | None:
    """`edges(A)` when the clause so far is `for x in edges(A)` (a loop over edges, one name)."""
    last = ctx.clause[-1] if ctx.clause else None
    if isinstance(last, Tree) and last.data == "call" and last.children and \
            str(last.children[0]) == "edges":
        args = [str(x.children[0]) for x in last.children[1:]
                if isinstance(x, Tree) and x.data == "name" and x.children]
        return f"edges({', '.join(args) or 'A'})"
    return None


def _header_help(ctx: Context) -> str:
    keep = "`bound ...` and the opening `{`" if ctx.head == "while" and \
        "BOUND" in ctx.expected else "the opening `{`"
    text = f"a newline ends a statement: keep {keep} on the `{ctx.head}` line"
    if ctx.head in ("if", "while", "forall"):
        text += (" (wrap a long condition in parentheses to break it: newlines inside `(...)` "
                 "are ignored)")
    return text


HINTS: list[Hint] = [
    Hint(lambda c: c.token.type.lower() in ("input", "output", "hint", "state", "private")
         and "RECORD" in c.expected,
         "declarations come before the first statement",
         "move this `{token}` declaration above the body (procedures, includes and statements "
         "follow the declarations)"),
    Hint(lambda c: c.prev is not None and c.prev.type == "RETURN"
         and c.token.type in ("_NL", "RBRACE", "SEMICOLON"),
         "`return` needs a value: `return EXPR`",
         "`return EXPR` ends a procedure with its value; a procedure without one ends at the end "
         "of its body (to skip the rest, put it under an `if`; to leave a loop, `break`)"),
    Hint(lambda c: c.prev is not None and c.prev.type == "RETURN",
         "`return` starts the statement that ends a procedure with its value",
         "data named `return` (dm-clrs's name) is declared under another name with `as`, e.g. "
         "`output node ret as return: mask_one`, and written as `ret`"),
    Hint(lambda c: c.word in _FOREIGN_WORDS,
         lambda c: _FOREIGN_WORDS[c.word][0].format(**_fields(c)),
         lambda c: _FOREIGN_WORDS[c.word][1].format(**_fields(c))),
    Hint(lambda c: c.text_at(2) in ("++", "--"),
         lambda c: f"`{c.text_at(2)}` is not an operator",
         lambda c: f"write `{_target(c)} {c.text_at(1)}= 1`"),
    Hint(lambda c: c.token.type in ("BAND_OP", "BOR_OP") and c.prev is not None
         and c.prev.type == c.token.type and c.prev.end_pos == c.token.start_pos,
         lambda c: f"`{c.token}{c.token}` is written `{'and' if c.token == '&' else 'or'}`",
         lambda c: f"combine conditions with `{'and' if c.token == '&' else 'or'}` (`{c.token}` "
                   "is the bitwise operator on ints)"),
    Hint(lambda c: c.text_at(2) == ":=" and "ASSIGN_OP" in c.expected,
         "`:=` gives a declaration its initial value",
         "in the body, assign with `=`: `{target} = ...`"),
    Hint(lambda c: c.token.type == "COLON" and c.head in _BLOCK_HEADS.values(),
         "blocks are in braces, not after `:`",
         "write {opening} at the end of the line and close the block with `}}`"),
    Hint(lambda c: str(c.token) == "=" and "COMP_OP" in c.expected and _in_condition(c),
         "`=` assigns; a comparison is `==`",
         "compare with `==`, e.g. `{head} a == b ...`"),
    Hint(lambda c: c.token.type == "NAME" and str(c.token) in _FILLER_WORDS
         and c.head in _BLOCK_HEADS.values(),
         "`{token}` is not needed: the block in braces follows directly",
         "write {opening} and end the block with `}}`"),
    Hint(lambda c: c.token.type == "_NL" and c.prev is not None and c.prev.type in _OPERATORS,
         _continued_message, _continued_help),
    Hint(lambda c: c.token.type == "_NL" and c.head in _BLOCK_HEADS.values(),
         "the `{head}` statement continues on the next line", _header_help),
    Hint(lambda c: not c.before and c.token.type in _BINARY_ONLY,
         "a statement cannot start with `{token}`",
         "to continue the previous line, wrap its expression in parentheses (newlines inside "
         "`(...)` are ignored)"),
    Hint(lambda c: c.token.type in ("BOUND", "WHP", "STEP") and _after_total(c),
         "`total bound` comes last in a loop's header",
         "write the per-execution `bound E` (with `whp`, and a range's `step`) before it, e.g. "
         "`while c bound n total bound 2 * n {{ ... }}`"),
    Hint(lambda c: c.token.type in ("TOTAL", "BOUND") and c.head == "for" and c.has("NODES"),
         "`for x in nodes by KEY` takes no bound: it visits each node once",
         "a loop with a bound or `total bound` is a `while`, a range `for x in a .. b` or an "
         "edge loop `for (u, v) in edges(A)`"),
    Hint(lambda c: c.head == "for" and c.accepts("..") and _edges_call(c) is not None,
         "an edge loop names both ends of the edge",
         lambda c: f"write `for (u, v) in {_edges_call(c)} {{ ... }}`: u and v are the ends "
                   "of each edge"),
    Hint(lambda c: c.head == "for" and c.accepts(".."),
         "a range is written `a .. b`",
         "e.g. `for i in 0 .. n {{ ... }}` (the end is exclusive), or "
         "`for v in nodes by KEY {{ ... }}`"),
    Hint(lambda c: _misspelt(c) is not None,
         "did you mean `{keyword}`?",
         lambda c: f"`{c.word}` is read as a name here; write `{_misspelt_word(c)}`"
         if _misspelt_word(c) else None),
]


def explain(token: Token, stack: list, expected: set[str], source: str,
            literals: dict[str, str]) -> tuple[str, str | None] | None:
    """(message, help) of the first hint that fits this syntax error, or None.

    `stack` is the parser's value stack at the error; help None keeps "expected ...".
    """
    ctx = Context(token=token, before=_statement_so_far(stack), expected=frozenset(expected),
                  source=source, literals=literals)
    for hint in HINTS:
        if hint.applies(ctx):
            return _render(hint.message, ctx) or "", (None if hint.help is None else
                                                      _render(hint.help, ctx))
    return None


def _statement_so_far(stack: list) -> tuple[Token | Tree, ...]:
    """The top of the parser stack back to the last statement boundary.

    A boundary is a token that ends a statement (newline, `;`, a brace) or a reduced list of
    statements or declarations (lark names those `__..._star_K`), or the header.
    """
    out: list[Token | Tree] = []
    for x in reversed(stack):
        if isinstance(x, Token) and x.type in _BOUNDARIES:
            break
        if isinstance(x, Tree) and (x.data.startswith("__") or x.data in ("header", "decl")):
            break
        out.append(x)
    return tuple(reversed(out))


def char_help(ch: str) -> str | None:
    """The help for an unexpected character that another language uses (`!`, `?`)."""
    return _CHAR_HELP.get(ch)
