"""Whether a script can change a table, read from its tokens before it runs.

Karmada converts a call's arguments into new tables on every call, and a script that changes
them changes only its own. A script that cannot change any table cannot tell new tables from
the ones an earlier call with the same document was given, nor a table from the text it
encoded to: the sandbox gives such a script shared tables, built once per document, and keeps
what the encoder wrote for each (`kube` arguments, results), which is most of the cost of a
call on a pod template.

In the sandbox a table changes only through an assignment to a field or an index (`a.b = v`,
`a[k] = v`, also as one of several targets, and `function a.b()` / `function a:m()`), or through
the table library (`table.insert`, `remove`, `sort`); `rawset` and `setmetatable` are not
offered, and the libraries are read-only. So a script cannot change a table when none of its
assignments has such a target and it names neither `table` nor `_G` (the globals, where the
library can be found by name) nor `require` but as `require("kube")`, nor the functions the
rewritten constructors call (they set a table's metatable). Anything this check cannot
read (a script the lexer refuses, brackets that do not balance) counts as changing tables: a
script wrongly taken for one that cannot would see another call's changes, one wrongly taken
for one that can only costs its speed.
"""

from __future__ import annotations

from gitfleet.interpreter.lua import _lexer, _rewrite
from gitfleet.interpreter.lua._lexer import BLOCK_CLOSE, BLOCK_OPEN, KEYWORDS, Token

_REACHES_TABLES = frozenset(
    {"table", "_G", "require", _rewrite.TRACK, _rewrite.TRACK_DYNAMIC, _rewrite.FRAME, _rewrite.KEY}
)
"""Names through which a script can reach the table library, or set a table's metatable (the
functions the rewritten constructors call, `_rewrite`)."""
_KUBE = frozenset({'"kube"', "'kube'"})
_CLOSING = {"}": "{", ")": "(", "]": "["}


def cannot_change_tables(source: str) -> bool:
    """Whether no run of `source` can change a table (see the module)."""
    try:
        tokens = _lexer.tokens(source)
    except _lexer.LexError:
        return False
    stack: list[str] = []
    return all(_step(tokens, i, stack) for i in range(len(tokens))) and not stack


def _step(tokens: list[Token], i: int, stack: list[str]) -> bool:
    """Take the token at `i` (`stack`: the blocks and brackets it is in); False when it may
    change a table or the nesting does not balance."""
    tok = tokens[i]
    text = tok.text
    if tok.kind == "name":
        if text in _REACHES_TABLES and not _is_field(tokens, i) and not _requires_kube(tokens, i):
            return False
        if text == "function" and _names_a_field(tokens, i):
            return False
        if text in BLOCK_OPEN:
            stack.append("block")
        elif text in BLOCK_CLOSE:
            return bool(stack) and stack.pop() == "block"
    elif tok.kind == "op":
        if text in ("{", "(", "["):
            stack.append(text)
        elif text in _CLOSING:
            return bool(stack) and stack.pop() == _CLOSING[text]
        elif text == "=":
            return _assigns_harmlessly(tokens, i, stack[-1] if stack else "block")
    return True


def _is_field(tokens: list[Token], i: int) -> bool:
    """Whether the name at `i` is a field (`x.table`, `x:table`), not a variable."""
    return i > 0 and tokens[i - 1].text in (".", ":")


def _requires_kube(tokens: list[Token], i: int) -> bool:
    """Whether the name at `i` is `require` called with the string "kube" alone."""
    following = [t.text for t in tokens[i + 1 : i + 4]]
    if tokens[i].text != "require" or not following:
        return False
    return following[0] in _KUBE or any(following == ["(", kube, ")"] for kube in _KUBE)


def _names_a_field(tokens: list[Token], i: int) -> bool:
    """Whether the `function` at `i` defines a field or a method (`function a.b()`)."""
    return i + 2 < len(tokens) and tokens[i + 1].kind == "name" and tokens[i + 2].text in (".", ":")


def _assigns_harmlessly(tokens: list[Token], i: int, within: str) -> bool:
    """Whether the `=` at `i`, met within `within` (a block or a bracket), changes no table: a
    field of a table constructor, or an assignment to plain names only (locals, or globals,
    which are the call's own): walk back over `name (, name)*`."""
    if within != "block":
        return within == "{"
    j = i - 1
    while j >= 0:
        target = tokens[j]
        if target.kind != "name" or target.text in KEYWORDS:
            return False
        before = tokens[j - 1] if j > 0 else None
        if before is not None and before.text in (".", ":"):
            return False
        if before is None or before.text != ",":
            return True
        j -= 2
    return False
