"""Parse `.alg` source into the AST; syntax errors become diagnostics, never tracebacks."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import lark
from lark import Token, Transformer, v_args

from algspec.diagnostics import AlgError, Diagnostic, Span
from algspec.language import ast, syntax_hints

_GRAMMAR = Path(__file__).with_name("grammar.lark")
_INT_DIGITS = 30  # longer integer literals are out of range (E205) without converting them

# Friendly names for the terminals lark reports in "expected one of".
_TERMINAL_NAMES = {
    "_NL": "newline", "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'", "NAME": "a name",
    "NUMBER": "a number", "EQUAL": "'='", "ASSIGN_OP": "'='", "COMP_OP": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/', '//' or '%'", "$END": "end of file",
    "AGG_OP": "an aggregation (min/max/sum/any/all/count/argmin/argmax)", "MINUS": "'-'", "PLUS": "'+'",
    "DOT": "'.'", "_ELSE": "`else`", "INT": "an integer", "TILDE": "'~'", "MORETHAN": "'>'",
    "LESSTHAN": "'<'", "STAR": "'*'", "SLASH": "'/'",
}


# The largest program the parser takes, in tokens: a hundred times the largest real
# algorithm, so that a hostile or generated file is refused at once (E006) instead of
# parsing and checking for minutes (every stage is linear, but about 0.1 ms a token).
MAX_TOKENS = 200_000

# The deepest nesting of the parse tree (an expression's operators and brackets,
# blocks in blocks): every stage after the parser walks the program recursively, so a
# deeper one is refused here (E004) rather than overflowing Python's stack later.
MAX_NESTING = 200


class _TooManyTokens(Exception):
    """Raised by the post-lexer past `MAX_TOKENS` tokens (the parser stops there)."""

    def __init__(self, token: Token):
        super().__init__(token)
        self.token = token


class _JoinBracketedLines:
    """Drop newlines inside (...) and [...], so long expressions can wrap as in Python;
    stop a program longer than `MAX_TOKENS` tokens."""

    always_accept = ("_NL",)

    def process(self, stream):
        depth = 0
        for count, tok in enumerate(stream):
            if count >= MAX_TOKENS:
                raise _TooManyTokens(tok)
            if tok.type in ("LPAR", "LSQB"):
                depth += 1
            elif tok.type in ("RPAR", "RSQB"):
                depth = max(0, depth - 1)
            elif tok.type == "_NL" and depth > 0:
                continue
            yield tok


@lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    return lark.Lark(_GRAMMAR.read_text(), parser="lalr", propagate_positions=True,
                     start=["start", "library"],
                     maybe_placeholders=True, postlex=_JoinBracketedLines(), cache=True)


def _span(meta_or_token) -> Span:
    m = meta_or_token
    if isinstance(m, Token):
        return Span(line=m.line or 1, column=m.column or 1, end_line=m.end_line or m.line or 1,
                    end_column=m.end_column or (m.column or 1) + 1)
    if getattr(m, "empty", True):
        return Span()
    return Span(line=m.line, column=m.column, end_line=m.end_line, end_column=m.end_column)


def _node_span(x) -> Span:
    return x.span if isinstance(x, ast.Node) else _span(x)


@v_args(meta=True)
class _ToAst(Transformer):
    """Builds AST models bottom-up from the lark tree."""

    # ---- expressions
    def number(self, meta, c):
        text = str(c[0])
        if any(ch in text for ch in ".eE"):
            return ast.Num(value=float(text), span=_span(c[0]))
        digits = text.lstrip("0")
        if len(digits) > _INT_DIGITS:  # no int64 has as many (int() refuses 4,300 and more)
            raise AlgError([Diagnostic(
                code="E205", span=_span(c[0]),
                message=f"integer literal {digits[:6]}...{digits[-3:]} ({len(digits)} digits) "
                        "is out of range",
                help="integers are 64-bit; use a float literal for huge values")])
        return ast.Num(value=int(text), span=_span(c[0]))

    def true(self, meta, c):
        return ast.Num(value=True, span=_span(meta))

    def false(self, meta, c):
        return ast.Num(value=False, span=_span(meta))

    def inf(self, meta, c):
        return ast.Num(value=float("inf"), span=_span(meta))

    def name(self, meta, c):
        return ast.Name(name=str(c[0]), span=_span(c[0]))

    def index(self, meta, c):
        return ast.IndexExpr(name=str(c[0]), indices=[x for x in c[1:] if x is not None],
                             span=_span(meta))

    def binop(self, meta, c):
        return ast.BinaryExpr(op=str(c[1]), left=c[0], right=c[2], span=_span(meta))

    def compare(self, meta, c):
        return ast.BinaryExpr(op=str(c[1]), left=c[0], right=c[2], span=_span(meta))

    def and_(self, meta, c):
        return ast.BinaryExpr(op="and", left=c[0], right=c[1], span=_span(meta))

    def or_(self, meta, c):
        return ast.BinaryExpr(op="or", left=c[0], right=c[1], span=_span(meta))

    def not_(self, meta, c):
        return ast.UnaryExpr(op="not", operand=c[0], span=_span(meta))

    def neg(self, meta, c):
        return ast.UnaryExpr(op="-", operand=c[0], span=_span(meta))

    def bnot(self, meta, c):
        return ast.UnaryExpr(op="~", operand=c[0], span=_span(meta))

    def cond(self, meta, c):
        return ast.CondExpr(then=c[0], cond=c[1], otherwise=c[2], span=_span(meta))

    def tuple_(self, meta, c):
        return ast.TupleExpr(items=list(c), span=_span(meta))

    def call(self, meta, c):
        given = [x for x in c[1:] if x is not None]  # `kwarg` gives (name, expr) pairs
        return ast.CallExpr(func=str(c[0]), args=[x for x in given if not isinstance(x, tuple)],
                            kwargs=[x for x in given if isinstance(x, tuple)], span=_span(meta))

    def aggregate(self, meta, c):
        op, body, var, (domain, of), filt, unstable, default = c
        return ast.AggExpr(op=str(op), body=body, var=str(var), domain=domain, of=of,
                           filter=filt, default=default, unstable=unstable is not None,
                           span=_span(meta))

    def dom_nodes(self, meta, c):
        return ("nodes", None)

    def dom_incoming(self, meta, c):
        return ("incoming", c[0])

    def dom_outgoing(self, meta, c):
        return ("outgoing", c[0])

    # ---- statements
    def lvalue(self, meta, c):
        return ast.LValue(name=str(c[0]), indices=[x for x in c[1:] if x is not None],
                          span=_span(meta))

    def targets(self, meta, c):
        return list(c)

    def exprs(self, meta, c):
        return list(c)

    def combiner(self, meta, c):
        return (str(c[0]), _span(c[0]), c[1])

    def assign(self, meta, c):
        targets, op, values, comb = c
        return ast.AssignStmt(targets=targets, op=str(op), values=values,
                              combiner=comb[0] if comb else None,
                              combiner_span=comb[1] if comb else None,
                              combiner_key=comb[2] if comb else None, span=_span(meta))

    def let(self, meta, c):
        return ast.LetStmt(name=str(c[0]), value=c[1], span=_span(meta))

    def record(self, meta, c):
        return ast.RecordStmt(span=_span(meta))

    def brk(self, meta, c):
        return ast.BreakStmt(span=_span(meta))

    def block(self, meta, c):
        return [x for x in c if x is not None]

    def if_stmt(self, meta, c):
        cond, then, other = c
        if isinstance(other, ast.IfStmt):
            other = [other]
        return ast.IfStmt(cond=cond, then=then, otherwise=other or [], span=_span(meta))

    def while_stmt(self, meta, c):
        return ast.WhileStmt(cond=c[0], bound=c[1], whp=c[2] is not None, total=c[3],
                             body=c[4], span=_span(meta))

    def for_range(self, meta, c):
        return ast.ForRangeStmt(var=str(c[0]), start=c[1], stop=c[2], step=c[3], bound=c[4],
                                total=c[5], body=c[6], span=_span(meta))

    def for_range_rev(self, meta, c):
        return ast.ForRangeStmt(var=str(c[0]), start=c[1], stop=c[2], step=c[3], bound=c[4],
                                total=c[5], body=c[6], reverse=True, span=_span(meta))

    def range_step(self, meta, c):
        return c[0]

    def range_bound(self, meta, c):
        return c[0]

    def total_bound(self, meta, c):
        return c[0]

    def for_edges(self, meta, c):
        u, v, func, array, order, bound, total, body = c
        key, unstable = order if order is not None else (None, False)
        return ast.ForEdgesStmt(vars=[str(u), str(v)], var_spans=[_span(u), _span(v)],
                                func=str(func), func_span=_span(func), array=str(array),
                                array_span=_span(array), key=key, unstable=unstable,
                                bound=bound, total=total, body=body, span=_span(meta))

    def edge_order(self, meta, c):
        return (c[0], c[1] is not None)

    def call_stmt(self, meta, c):
        return ast.CallStmt(name=str(c[0]), args=[x for x in c[1:] if x is not None],
                            span=_span(meta))

    def return_stmt(self, meta, c):
        return ast.ReturnStmt(value=c[0], span=_span(meta))

    def include_stmt(self, meta, c):
        return ast.IncludeStmt(path=str(c[0])[1:-1], span=_span(meta))

    def proc_def(self, meta, c):
        *names, depth, calls, body = c
        params = [x for x in names[1:] if x is not None]
        return ast.ProcDef(name=str(names[0]), params=[str(x) for x in params],
                           param_spans=[_span(x) for x in params],
                           depth=depth, calls=calls, body=body, span=_span(meta))

    def for_nodes(self, meta, c):
        return ast.ForNodesStmt(var=str(c[0]), key=c[1], unstable=c[2] is not None, body=c[3],
                                span=_span(meta))

    def round_stmt(self, meta, c):
        return ast.RoundStmt(body=c[0], span=_span(meta))

    def forall_stmt(self, meta, c):
        v1, v2, guard, body = c
        toks = [v1] + ([v2] if v2 is not None else [])
        return ast.ForallStmt(vars=[str(t) for t in toks], var_spans=[_span(t) for t in toks],
                              guard=guard, body=body, span=_span(meta))

    # ---- declarations and header
    def kwarg(self, meta, c):
        return (str(c[0]), c[1])

    def derived(self, meta, c):
        return ("derived", c[0])

    def initial(self, meta, c):
        return ("initial", c[0])

    def generated(self, meta, c):
        pairs = [x for x in c[1:] if x is not None]
        params = dict(pairs)
        seen: list[str] = [k for k, _ in pairs]
        dups = sorted({k for k in seen if seen.count(k) > 1})
        return ("generator", ast.GeneratorCall(name=str(c[0]), params=params, duplicates=dups,
                                               span=_span(meta)))

    def pad(self, meta, c):
        return c[0]

    def masked(self, meta, c):
        return c[0]

    def dtype(self, meta, c):
        return (str(c[0]), int(c[1]) if c[1] is not None else None, c[2] is not None)

    def stage(self, meta, c):
        return str(c[0])

    def location(self, meta, c):
        return str(c[0])

    def decl_index(self, meta, c):
        return ([str(x) for x in c if x is not None], _span(meta))

    def spec_name(self, meta, c):
        return (str(c[0]).strip('"'), _span(c[0]))

    def decl(self, meta, c):
        stage, loc, name, index, spec_name, (tname, targ, optional), rhs, pad, masked = c
        fields: dict = {"masked": masked} if masked is not None else {}
        if optional:
            fields["optional"] = True
        if stage == "private":  # an input that stays out of the CLRS spec
            stage, fields["private"] = "input", True
        if index is not None:
            fields["index_names"], fields["index_span"] = index
        if spec_name is not None:
            fields["spec_name"], fields["spec_name_span"] = spec_name
        if rhs is not None:
            kind, value = rhs
            if kind == "derived" and stage == "state":
                kind = "initial"
            fields[kind] = value
        return ast.Decl(stage=stage, location=loc, name=str(name), name_span=_span(name),
                        type_name=tname, type_arg=targ, pad=pad, span=_span(meta), **fields)

    def nodes_line(self, meta, c):
        return ("nodes", c[0])

    def graph_kind(self, meta, c):
        # `ring directed`: one kind of two words, spanned by its first
        return c[0] if len(c) == 1 else c[0].update(value=" ".join(str(t) for t in c))

    def graph_builtin(self, meta, c):
        return ("graph", str(c[0]), None, _span(c[0]))

    def graph_input(self, meta, c):
        return ("graph", "input", str(c[0]), _span(c[0]))

    def header(self, meta, c):
        return (str(c[0]), _span(c[0]), c[1][1], c[2])

    def library(self, meta, c):
        return [x for x in c if x is not None]

    def start(self, meta, c):
        (name, name_span, nodes, (_, kind, gin, gspan)), *rest = [x for x in c if x is not None]
        decls = [x for x in rest if isinstance(x, ast.Decl)]
        body = [x for x in rest if not isinstance(x, ast.Decl)]
        return ast.Program(name=name, name_span=name_span, nodes=nodes, graph_kind=kind,
                           graph_input=gin, graph_span=gspan, decls=decls, body=body)


@lru_cache(maxsize=1)
def _literals() -> dict[str, str]:
    """Terminal name -> its literal text, for terminals defined by a string (`..`, `bound`)."""
    return {t.name: t.pattern.value for t in _parser().terminals
            if isinstance(t.pattern, lark.lexer.PatternStr)}


def _describe_expected(expected: set[str]) -> str:
    lit = _literals()
    names = sorted({_TERMINAL_NAMES.get(t, f"`{t.lower()}`" if t.isupper() and
                                        not t.startswith("__") else f"'{lit.get(t, t)}'")
                    for t in expected if not t.startswith("__ANON") or t in lit})
    if len(names) > 8:
        names = names[:8] + ["..."]
    return ", ".join(names)


def parse(source: str, path: str = "<string>") -> ast.Program:
    """Parse source text; raise `AlgError` with `E001`/`E002` diagnostics on bad syntax.

    A path ending in `.yaml`/`.yml` holds the YAML form (`algspec.language.yaml_form`):
    its `.alg` text is parsed and every position mapped back into the YAML file."""
    from algspec.language import yaml_form
    if yaml_form.is_yaml_path(path):
        text, line_map = yaml_form.to_alg(source.removeprefix("\ufeff"), path)
        try:
            tree = _parse(text, path, "start")
        except AlgError as e:
            raise yaml_form.remap_error(e, line_map) from None
        return yaml_form.remap(tree, line_map.span)
    if is_library(source):
        raise AlgError([Diagnostic(code="E706", path=path, message="a file of procedures "
                                   "(no `algorithm` header) is a library, not an algorithm",
                                   help='include it from an algorithm: `include "lib.alg"`')])
    return _parse(source, path, "start")


def parse_library(source: str, path: str = "<string>") -> list[ast.Stmt]:
    """Parse an included file: top-level statements only (procedures and includes), no header."""
    return _parse(source, path, "library")


def is_library(source: str) -> bool:
    """Whether a file is a library to include (it starts with `proc` or `include`, no header)."""
    for line in source.split("\n"):
        words = line.split("#", 1)[0].split()
        if words:
            return words[0] in ("proc", "include")
    return False


def _parse(source: str, path: str, start: str):
    source = source.removeprefix("\ufeff")  # a UTF-8 byte-order mark (Windows editors)
    if start == "start" and not "\n".join(line.split("#", 1)[0] for line in source.split("\n")).strip():
        raise AlgError([Diagnostic(code="E003", message="empty file: expected `algorithm NAME`",
                                   path=path, help="start the file with `algorithm NAME`, "
                                   "`nodes n` and `graph complete`")])
    try:
        tree = _parser().parse(source, start=start)
    except RecursionError:
        raise _too_deep(path) from None
    except _TooManyTokens as e:
        raise AlgError([Diagnostic(
            code="E006", path=path, span=_span(e.token),
            message=f"the program is too long: more than {MAX_TOKENS:,} tokens",
            help="split it into files of procedures (`include`)")]) from None
    except lark.exceptions.UnexpectedCharacters as e:
        span = Span(line=e.line, column=e.column, end_line=e.line, end_column=e.column + 1)
        ch = source[e.pos_in_stream] if e.pos_in_stream < len(source) else "end of file"
        raise AlgError([Diagnostic(code="E001", message=f"unexpected character {ch!r}",
                                   span=span, path=path,
                                   help=syntax_hints.char_help(ch) or
                                   f"expected {_describe_expected(set(e.allowed or []))}")])
    except lark.exceptions.UnexpectedToken as e:
        tok = e.token
        if tok.type == "$END":
            lines = source.rstrip("\n").split("\n")
            span = Span(line=len(lines), column=len(lines[-1]) + 1, end_line=len(lines),
                        end_column=len(lines[-1]) + 2)
            what = "unexpected end of file"
        else:
            span = _span(tok)
            what = f"unexpected {str(tok).strip() or 'newline'!r}"
        hint = f"expected {_describe_expected(set(e.expected))}"
        known = _known_mistake(e, source)
        if known is not None:  # Python, C or pseudo-code: say what to write instead
            what, hint = f"{what}: {known[0]}", known[1] or hint
        raise AlgError([Diagnostic(code="E002", message=what, span=span, path=path,
                                   help=hint)])
    except lark.exceptions.UnexpectedEOF as e:
        lines = source.rstrip("\n").split("\n")
        span = Span(line=len(lines), column=len(lines[-1]) + 1, end_line=len(lines),
                    end_column=len(lines[-1]) + 2)
        raise AlgError([Diagnostic(code="E002", message="unexpected end of file", span=span,
                                   path=path,
                                   help=f"expected {_describe_expected(set(e.expected))}")])
    if _nests_too_deeply(tree):
        raise _too_deep(path, _deepest_span(tree, _lark_children, _lark_span))
    try:
        return _ToAst().transform(tree)
    except RecursionError:
        raise _too_deep(path, _deepest_span(tree, _lark_children, _lark_span)) from None
    except lark.exceptions.VisitError as e:
        if isinstance(e.orig_exc, RecursionError):
            raise _too_deep(path, _deepest_span(tree, _lark_children, _lark_span)) from None
        if isinstance(e.orig_exc, AlgError):  # a literal out of range (`number`)
            raise AlgError([d.model_copy(update={"path": path})
                            for d in e.orig_exc.diagnostics]) from None
        raise


def _known_mistake(e: lark.exceptions.UnexpectedToken,
                   source: str) -> tuple[str, str | None] | None:
    """A targeted (message, help) from `syntax_hints` for this error, if one fits."""
    parser = getattr(e, "interactive_parser", None)
    stack = getattr(getattr(parser, "parser_state", None), "value_stack", None)
    if e.token.type == "$END" or stack is None:
        return None
    return syntax_hints.explain(e.token, list(stack), set(e.expected), source, _literals())


def _too_deep(path: str, span: Span | None = None) -> AlgError:
    return AlgError([Diagnostic(code="E004", message="expression nested too deeply", path=path,
                                span=span or Span(),
                                help=f"split it with `let` (at most {MAX_NESTING} levels)")])


def _nests_too_deeply(tree: lark.Tree) -> bool:
    """Whether the parse tree nests deeper than `MAX_NESTING` (an iterative walk)."""
    stack: list[tuple[lark.Tree, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return True
        stack.extend((k, depth + 1) for k in node.children if isinstance(k, lark.Tree))
    return False


def _lark_children(x) -> list:
    return list(x.children) if isinstance(x, lark.Tree) else []


def _lark_span(x) -> Span | None:
    if isinstance(x, Token):
        return _span(x) if x.line else None
    if isinstance(x, lark.Tree) and not getattr(x.meta, "empty", True):
        return _span(x.meta)
    return None


def _ast_children(x) -> list:
    out = []
    for name in type(x).model_fields:
        v = getattr(x, name)
        for y in v if isinstance(v, list) else [v]:
            if isinstance(y, ast.Node):
                out.append(y)
    return out


def _ast_span(x) -> Span | None:
    sp = getattr(x, "span", None)
    return sp if sp is not None and sp != Span() else None


def _deepest_span(root, children, span_of) -> Span | None:
    """Where a tree is deepest: the outermost node on the line of its deepest node.

    Iterative (the tree is too deep to recurse over): the start of the statement or
    declaration whose expression nests too deeply, for E004.
    """
    best: tuple[int, list, object] = (-1, [], root)  # depth, first ancestors, leaf
    stack = [(root, 1, [root])]
    while stack:
        node, depth, head = stack.pop()
        kids = children(node)
        if not kids and depth > best[0]:
            best = (depth, head, node)
        for k in reversed(kids):
            stack.append((k, depth + 1, head + [k] if depth < 32 else head))
    spans = [sp for sp in (span_of(x) for x in [*best[1], best[2]]) if sp is not None]
    if not spans:
        return None
    line = spans[-1].line
    return next(sp for sp in spans if sp.line == line)


def deepest_ast_span(program) -> Span | None:
    """`_deepest_span` over a parsed program (for a nesting the checks cannot recurse over)."""
    return _deepest_span(program, _ast_children, _ast_span)
