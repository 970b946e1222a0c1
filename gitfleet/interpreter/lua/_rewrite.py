"""Rewrites a script so that it behaves as in Karmada's VM (gopher-lua) where PUC Lua differs:
table constructors, so that `pairs` can follow key insertion order, and the operands of `..`,
so that numbers are joined with gopher-lua's text, of `#`, so that a table's length is
gopher-lua's, and of the arithmetic operators, so that they compute as gopher-lua's
(`_operators`).

gopher-lua iterates a table's array part, then its other keys in the order they were first
inserted; PUC Lua iterates in hash order. Scripts that build a table keyed by name and turn it
into a list with `pairs` (Karmada's MPIJob status aggregation does) only give Karmada's result
with gopher-lua's order. PUC Lua cannot observe insertions into a plain table, so every
constructor is wrapped in a call that records its keys and attaches a metatable whose
`__newindex` records later insertions (see sandbox.lua):

    {a = 1, b = 2}        ->  TRACK({a = 1, b = 2}, "a", "b")
    {[k] = 1, a = 2}      ->  TRACK_DYNAMIC(FRAME(), {[KEY(k)] = 1, [KEY"a"] = 2})
    f{...}                ->  f(TRACK({...}))
    "n=" .. a + b         ->  "n=" .. TEXT(a + b)
    #t.items + 1          ->  (LENGTH(t.items)) + 1
    a % b % 2             ->  (MODULO((MODULO(a , b)) , 2))
    a + b * c             ->  (ADD(a , (MUL(b , c))))
    -x ^ 2                ->  (NEGATE((POW(x , 2))))

Only tokens are inserted, never newlines, so line numbers in error messages stay the script's.
A script the lexer (`_lexer`) cannot read is returned unchanged, and one `_operators` cannot parse
keeps its operands: Lua's compiler reports the real error.
"""

from __future__ import annotations

import dataclasses

from gitfleet.interpreter.lua import _operators
from gitfleet.interpreter.lua._lexer import BLOCK_CLOSE, BLOCK_OPEN, KEYWORDS, LexError, Token

TRACK = "__gitfleet_track"
TRACK_DYNAMIC = "__gitfleet_track_dynamic"
FRAME = "__gitfleet_frame"
KEY = "__gitfleet_key"
TEXT = _operators.TEXT
LENGTH = _operators.LENGTH
ARITHMETIC = _operators.ARITHMETIC
NEGATE = _operators.NEGATE


@dataclasses.dataclass
class _Constructor:
    open: Token
    call: bool
    static_keys: list[Token] = dataclasses.field(default_factory=list)
    dynamic: bool = False
    key_brackets: list[tuple[Token, Token]] = dataclasses.field(default_factory=list)
    at_field_start: bool = True


def _is_call_prefix(previous: Token | None) -> bool:
    """Whether `{` after this token is a call argument (`f{...}`, `o:m{...}`, `f"x"{...}`)."""
    if previous is None:
        return False
    if previous.kind == "name":
        return previous.text not in KEYWORDS
    return previous.kind == "string" or previous.text in (")", "]", "}")


def rewrite(source: str) -> str:
    """The script with every table constructor and `..` operand wrapped; unchanged if it cannot
    be lexed."""
    try:
        tokens, found = _operators.read(source)
        inserts = _plan(tokens)
    except LexError:
        return source
    if found is not None:  # else Lua's compiler will say what is wrong
        inserts += _joined(tokens, found.joined) + _lengths(tokens, found.lengths)
        inserts += _arithmetic(tokens, found.arithmetic, len(source))
        inserts += _negations(tokens, found.negations)
    out, last = [], 0
    for pos, _, _, cut, text in sorted(inserts):
        out.append(source[last:pos])
        out.append(text)
        last = max(last, pos + cut)  # an insertion after a replacement at its place
    out.append(source[last:])
    return "".join(out)


_Edit = tuple[int, int, float, int, str]
"""(position, phase, tie-break, characters replaced, inserted text). At one position, closing
insertions come first (innermost first), then replacements, then openings (outermost first):
the tie-break is twice the start of what an insertion wraps (negated for closings), and a `..`
operand's wrapper, which holds any constructor that starts or ends with it and is held by the
key brackets around it, sorts one before its openings and one after its closings."""
_CLOSING, _REPLACING, _OPENING = 0, 1, 2


def _plan(tokens: list[Token]) -> list[_Edit]:
    edits: list[_Edit] = []
    stack: list[_Constructor | str | tuple[str, Token]] = []
    previous: Token | None = None
    for i, tok in enumerate(tokens):
        top = stack[-1] if stack else None
        if isinstance(top, _Constructor) and top.at_field_start and tok.text != "}":
            top.at_field_start = False
            following = tokens[i + 1] if i + 1 < len(tokens) else None
            if tok.kind == "name" and following is not None and following.text == "=":
                top.static_keys.append(tok)
            elif tok.text == "[":
                top.dynamic = True
                stack.append(("key", tok))
                previous = tok
                continue
        if tok.kind == "op" and tok.text == "{":
            stack.append(_Constructor(tok, _is_call_prefix(previous)))
        elif tok.kind == "op" and tok.text == "}":
            if not isinstance(top, _Constructor):
                raise LexError("unbalanced braces")
            stack.pop()
            edits.extend(_close(top, tok))
        elif tok.kind == "op" and tok.text in ("(", "["):
            stack.append(tok.text)
        elif tok.kind == "op" and tok.text in (")", "]"):
            if isinstance(top, tuple) and tok.text == "]":
                stack.pop()
                if isinstance(stack[-1] if stack else None, _Constructor):
                    constructor = stack[-1]
                    assert isinstance(constructor, _Constructor)
                    constructor.key_brackets.append((top[1], tok))
            elif top == ("(" if tok.text == ")" else "["):
                stack.pop()
            else:
                raise LexError("unbalanced brackets")
        elif tok.kind == "name" and tok.text in BLOCK_OPEN:
            stack.append("block")
        elif tok.kind == "name" and tok.text in BLOCK_CLOSE:
            if top != "block":
                raise LexError("unbalanced blocks")
            stack.pop()
        elif tok.kind == "op" and tok.text in (",", ";") and isinstance(top, _Constructor):
            top.at_field_start = True
        previous = tok
    if any(isinstance(entry, _Constructor) for entry in stack):
        raise LexError("unfinished constructor")
    return edits


def _lengths(tokens: list[Token], spans: list[_operators.Span]) -> list[_Edit]:
    """`#x` as `(LENGTH(x))`: the `#` goes, the call holds what a `..` operand's wrapper
    starting at the same place holds (it sorts one after that wrapper's opening, one before its
    closing), and the parentheses keep it from being a tail call, so that an error it raises
    (`#nil`) names the script's line."""
    edits: list[_Edit] = []
    for first, after in spans:
        start = tokens[first].start
        edits.append((start, _REPLACING, 0, 1, ""))
        edits.append((start, _OPENING, 2 * start, 0, f"({LENGTH}("))
        edits.append((tokens[after - 1].end, _CLOSING, -2 * start, 0, "))"))
    return edits


def _arithmetic(tokens: list[Token], found: list[tuple[int, int, int]], size: int) -> list[_Edit]:
    """`a % b` as `(MODULO(a , b))`, and each arithmetic operator so: the operator becomes a
    comma. A call holds what starts or ends with it but a `..` operand's wrapper (sorting
    between that wrapper's opening and the other openings at its place, and between the inner
    closings and that wrapper's closing), and of two calls opening at one place (`a % b % c`)
    the longer holds the shorter."""
    edits: list[_Edit] = []
    for first, operator, after in found:
        start, end = tokens[first].start, tokens[after - 1].end
        inside = (end - start) / (size + 1)  # in (0, 1): longer spans open first
        edits.append((tokens[operator].start, _REPLACING, 0, 1, ","))
        name = ARITHMETIC[tokens[operator].text]
        edits.append((start, _OPENING, 2 * start - inside, 0, f"({name}("))
        edits.append((end, _CLOSING, -2 * start + 0.5, 0, "))"))
    return edits


def _negations(tokens: list[Token], found: list[_operators.Span]) -> list[_Edit]:
    """`-x` as `(NEGATE(x))`: the `-` goes, and the call opens inside every other call opening
    there (a binary operator's, a `..` operand's) and closes before every one closing with it."""
    edits: list[_Edit] = []
    for first, after in found:
        start = tokens[first].start
        edits.append((start, _REPLACING, 0, 1, ""))
        edits.append((start, _OPENING, 2 * start + 0.5, 0, f"({NEGATE}("))
        edits.append((tokens[after - 1].end, _CLOSING, -2 * start + 0.25, 0, "))"))
    return edits


def _joined(tokens: list[Token], spans: list[_operators.Span]) -> list[_Edit]:
    """The wrappers of the operands of `..` (a string literal needs none)."""
    edits: list[_Edit] = []
    for first, after in spans:
        if after - first == 1 and tokens[first].kind == "string":
            continue
        start = tokens[first].start
        edits.append((start, _OPENING, 2 * start - 1, 0, f"{TEXT}("))
        edits.append((tokens[after - 1].end, _CLOSING, -2 * start + 1, 0, ")"))
    return edits


def _opening(owner: Token, pos: int, text: str) -> _Edit:
    return (pos, _OPENING, 2 * owner.start, 0, text)


def _closing(owner: Token, pos: int, text: str) -> _Edit:
    return (pos, _CLOSING, -2 * owner.start, 0, text)


def _close(c: _Constructor, close: Token) -> list[_Edit]:
    lead = "(" if c.call else ""
    tail = ")" if c.call else ""
    if not c.dynamic:
        names = "".join(f', "{t.text}"' for t in c.static_keys)
        return [
            _opening(c.open, c.open.start, f"{lead}{TRACK}("),
            _closing(c.open, close.end, f"{names}){tail}"),
        ]
    edits = [
        _opening(c.open, c.open.start, f"{lead}{TRACK_DYNAMIC}({FRAME}(),"),
        _closing(c.open, close.end, f"){tail}"),
    ]
    for t in c.static_keys:
        edits.append((t.start, _REPLACING, 0, len(t.text), f'[{KEY}"{t.text}"]'))
    for opening, closing in c.key_brackets:
        edits.append(_opening(opening, opening.end, f"{KEY}("))
        edits.append(_closing(opening, closing.start, ")"))
    return edits
