"""Where a script uses the operators whose PUC Lua meaning differs from Karmada's VM: the
operands of `..` and of `#`, so that `_rewrite` can route them through gopher-lua's rules.

- `..`: gopher-lua turns a number into text, for `..` as for `tostring`, with Go's shortest
  digits (`0.1 + 0.2` is `0.30000000000000004`, `2^60` is `1152921504606846976`); PUC Lua's
  `..` uses 14 significant digits (`0.3`, `1.1529215046068e+18`), and no hook can change that.
  Each operand becomes `TEXT(operand)`: a number's gopher-lua text, any other value as it is
  (`a .. b + c` is `TEXT(a) .. TEXT(b + c)`).
- `#`: gopher-lua's length of a table is its last integer key holding a value (`t = {}
  t[2] = 2` has length 2); PUC Lua's is any border (0 there). `#x` becomes `LENGTH(x)`.
- `+ - * / % ^`: gopher-lua reads a string operand with Go's parsers (`"010"` is 8, `"1_000"`
  a number), words a wrong operand as `cannot perform add operation between nil and number`,
  computes `%` as Go's math.Mod (exact) with the divisor's sign, where PUC Lua computes
  `a - floor(a/b)*b` (they differ for fractional or huge operands: `1e300 % 0.1`), and `^` as
  Go's math.Pow, which is not always C's to the last digit. `a + b` becomes `ADD(a, b)`, and
  so on (`ARITHMETIC`). Likewise the unary minus of anything but a number literal: `-x` becomes
  `NEGATE(x)` (a string read by Go's parsers, anything else `__unm undefined`).

Finding the operands needs the grammar: an operand of `..` is an expression of higher
precedence (arithmetic, unary operators, `^`), that of `#` one of unary precedence, those of
an arithmetic operator the expressions its priority takes, and where an
expression starts depends on statements. `operands` parses Lua 5.1 (statements and
expressions, with lparser.c's precedences) and returns the token spans; a script it cannot
parse gets none (Lua's compiler then reports the real error, or the script runs with PUC's
meaning).
"""

from __future__ import annotations

import dataclasses
import functools

from gitfleet.interpreter.lua import _lexer
from gitfleet.interpreter.lua._lexer import KEYWORDS, Token

TEXT = "__gitfleet_text"
LENGTH = "__gitfleet_length"
ARITHMETIC = {
    "+": "__gitfleet_add", "-": "__gitfleet_sub", "*": "__gitfleet_mul", "/": "__gitfleet_div",
    "%": "__gitfleet_modulo", "^": "__gitfleet_pow",
}  # fmt: skip
"""The function each binary arithmetic operator becomes."""
NEGATE = "__gitfleet_negate"

_BINARY = {
    "or": (1, 1), "and": (2, 2),
    "<": (3, 3), ">": (3, 3), "<=": (3, 3), ">=": (3, 3), "~=": (3, 3), "==": (3, 3),
    "..": (5, 4), "+": (6, 6), "-": (6, 6), "*": (7, 7), "/": (7, 7), "%": (7, 7),
    "^": (10, 9),
}  # fmt: skip
"""Left and right priority of each binary operator (lparser.c `priority`)."""
_UNARY = frozenset({"not", "-", "#"})
_UNARY_PRIORITY = 8
_BLOCK_END = frozenset({"end", "else", "elseif", "until"})
_MAX_DEPTH = 100
"""Nested blocks and expressions this parser follows (each costs a few Python frames); Lua's
own parser stops at 200 ("chunk has too many syntax levels"), and no script worth running
nests half as deep."""


class ParseError(Exception):
    """The tokens are no Lua 5.1 chunk this parser reads."""


Span = tuple[int, int]
"""An operand: the indices of its first token and of the token after its last (for `#`, the
first token is the operator)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Operands:
    """What the rewrite (`_rewrite`) and the check of what a script can change (`_readonly`)
    take from the grammar."""

    joined: list[Span]
    """The operands of every `..`."""
    lengths: list[Span]
    """Every `#` with its operand."""
    arithmetic: list[tuple[int, int, int]]
    """Every binary arithmetic operator: the first token of its left operand, the operator, and
    the token after its right operand."""
    negations: list[Span]
    """Every unary minus but of a number literal, with its operand (the first token is the
    operator)."""
    assigns_fields: bool
    """Whether a statement assigns to a field or an index (`a.b = v`, `a[k], c = ...`,
    `function a.b()`): the only statements that change a table (`_readonly`)."""


@functools.lru_cache(maxsize=64)
def read(source: str) -> tuple[list[Token], Operands | None]:
    """`source`'s tokens, and what `operands` finds in them (None when it cannot parse them),
    read once for the two passes over a script, the rewrite and `_readonly`;
    `_lexer.LexError` when the source is no sequence of tokens."""
    tokens = _lexer.tokens(source)
    try:
        return tokens, operands(tokens)
    except ParseError:
        return tokens, None


def operands(tokens: list[Token]) -> Operands:
    """The operands of every `..`, `#` and binary arithmetic operator in the chunk, in no
    particular order."""
    parser = _Parser(tokens)
    parser.block()
    if parser.i != len(tokens):
        raise ParseError(f"unexpected {tokens[parser.i].text!r}")
    return Operands(
        parser.spans, parser.lengths, parser.arithmetic, parser.negations, parser.assigns_fields
    )


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.spans: list[Span] = []
        self.lengths: list[Span] = []
        self.arithmetic: list[tuple[int, int, int]] = []
        self.negations: list[Span] = []
        self.assigns_fields = False
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise ParseError(f"nested deeper than {_MAX_DEPTH} levels")

    def peek(self, ahead: int = 0) -> str | None:
        at = self.i + ahead
        return self.tokens[at].text if at < len(self.tokens) else None

    def kind(self) -> str | None:
        return self.tokens[self.i].kind if self.i < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        found = self.peek()
        if found is None or (expected is not None and found != expected):
            raise ParseError(f"expected {expected or 'a token'}, found {found!r}")
        self.i += 1
        return found

    def accept(self, word: str) -> bool:
        """Take the next token if it is `word`."""
        if self.peek() != word:
            return False
        self.i += 1
        return True

    def name(self) -> None:
        if self.kind() != "name" or self.peek() in KEYWORDS:
            raise ParseError(f"expected a name, found {self.peek()!r}")
        self.i += 1

    def names(self) -> None:
        self.name()
        while self.accept(","):
            self.name()

    # statements (lparser.c `chunk`, `statement`)

    def block(self) -> None:
        self.enter()
        self.statements()
        self.depth -= 1  # a failure ends the whole parse, so only a success leaves

    def statements(self) -> None:
        while self.peek() is not None and self.peek() not in _BLOCK_END:
            if self.peek() == "return":
                self.take()
                if self.peek() not in (None, ";", *_BLOCK_END):
                    self.explist()
                self.accept(";")
                return
            self.statement()

    def statement(self) -> None:
        word = self.peek()
        if word == ";" or word == "break":
            self.take()
        elif word == "if":
            self.take()
            self.condition_then_block()
            while self.accept("elseif"):
                self.condition_then_block()
            if self.accept("else"):
                self.block()
            self.take("end")
        elif word == "while":
            self.take()
            self.expression()
            self.do_block()
        elif word == "do":
            self.do_block()
        elif word == "for":
            self.for_statement()
        elif word == "repeat":
            self.take()
            self.block()
            self.take("until")
            self.expression()
        elif word == "function":
            self.take()
            self.name()
            while self.peek() in (".", ":"):
                self.assigns_fields = True  # `function a.b()` sets a field of a
                method = self.take() == ":"
                self.name()
                if method:
                    break
            self.function_body()
        elif word == "local":
            self.local_statement()
        else:
            self.expression_statement()

    def condition_then_block(self) -> None:
        self.expression()
        self.take("then")
        self.block()

    def do_block(self) -> None:
        self.take("do")
        self.block()
        self.take("end")

    def for_statement(self) -> None:
        self.take("for")
        if self.peek(1) == "=":
            self.name()
            self.take("=")
        else:
            self.names()
            self.take("in")
        self.explist()
        self.do_block()

    def local_statement(self) -> None:
        self.take("local")
        if self.accept("function"):
            self.name()
            self.function_body()
            return
        self.names()
        if self.accept("="):
            self.explist()

    def expression_statement(self) -> None:
        """A call, or an assignment to a list of variables (a field or an index among them
        changes a table)."""
        start = self.i
        self.suffixed()
        targets = [(start, self.i)]
        if self.peek() in (",", "="):
            while self.accept(","):
                targets.append((self.i, self.i))
                self.suffixed()
                targets[-1] = (targets[-1][0], self.i)
            self.take("=")
            self.explist()
            if any(end - first > 1 for first, end in targets):
                self.assigns_fields = True

    def function_body(self) -> None:
        self.take("(")
        while self.peek() != ")":
            if not self.accept("..."):
                self.name()
            if not self.accept(",") and self.peek() != ")":
                raise ParseError(f"unexpected {self.peek()!r} in parameters")
        self.take(")")
        self.block()
        self.take("end")

    # expressions (lparser.c `subexpr`, `simpleexp`, `primaryexp`)

    def explist(self) -> None:
        self.expression()
        while self.accept(","):
            self.expression()

    def expression(self) -> None:
        self.subexpression(0)

    def number_literal(self, first: int) -> bool:
        """Whether the tokens from `first` to the current one are one number literal."""
        return self.i == first + 1 and self.tokens[first].kind == "number"

    def subexpression(self, limit: int) -> bool:
        """An expression whose operators bind tighter than `limit`; whether its last operator
        is `..` (its operands are then recorded already)."""
        self.enter()
        joined = self.operations(limit)
        self.depth -= 1
        return joined

    def operations(self, limit: int) -> bool:
        start = self.i
        if self.peek() in _UNARY and self.kind() in ("op", "name"):
            unary = self.take()
            self.subexpression(_UNARY_PRIORITY)
            if unary == "#":
                self.lengths.append((start, self.i))
            elif unary == "-" and not self.number_literal(start + 1):
                self.negations.append((start, self.i))
        else:
            self.simple()
        joined = False
        while True:
            op = self.peek()
            if op not in _BINARY or self.kind() not in ("op", "name"):
                break
            left, right = _BINARY[op]
            if left <= limit:
                break
            self.take()
            if op == "..":
                self.spans.append((start, self.i - 1))
                operand = self.i
                if not self.subexpression(right):
                    self.spans.append((operand, self.i))
                joined = True
            else:
                at = self.i - 1
                self.subexpression(right)
                if op in ARITHMETIC:
                    self.arithmetic.append((start, at, self.i))
                joined = False
        return joined

    def simple(self) -> None:
        kind, word = self.kind(), self.peek()
        if kind in ("number", "string") or word in ("nil", "true", "false", "..."):
            self.take()
        elif word == "{":
            self.constructor()
        elif word == "function":
            self.take()
            self.function_body()
        else:
            self.suffixed()

    def suffixed(self) -> None:
        if self.peek() == "(":
            self.take()
            self.expression()
            self.take(")")
        else:
            self.name()
        while True:
            word = self.peek()
            if word == ".":
                self.take()
                self.name()
            elif word == "[":
                self.take()
                self.expression()
                self.take("]")
            elif word == ":":
                self.take()
                self.name()
                self.arguments()
            elif word in ("(", "{") or self.kind() == "string":
                self.arguments()
            else:
                return

    def arguments(self) -> None:
        if self.kind() == "string":
            self.take()
        elif self.peek() == "{":
            self.constructor()
        else:
            self.take("(")
            if self.peek() != ")":
                self.explist()
            self.take(")")

    def constructor(self) -> None:
        self.take("{")
        while self.peek() != "}":
            if self.accept("["):
                self.expression()
                self.take("]")
                self.take("=")
            elif self.kind() == "name" and self.peek(1) == "=" and self.peek() not in KEYWORDS:
                self.take()
                self.take("=")
            self.expression()
            if not self.accept(",") and not self.accept(";") and self.peek() != "}":
                raise ParseError(f"unexpected {self.peek()!r} in a table constructor")
        self.take("}")
