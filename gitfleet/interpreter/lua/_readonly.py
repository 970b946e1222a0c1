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
rewritten constructors call (they set a table's metatable). The assignments are found by the
parser of `_operators`; anything it cannot read (a script the lexer or the parser refuses)
counts as changing tables: a script wrongly taken for one that cannot would see another call's
changes, one wrongly taken for one that can only costs its speed.
"""

from __future__ import annotations

from gitfleet.interpreter.lua import _lexer, _operators, _rewrite
from gitfleet.interpreter.lua._lexer import Token

_REACHES_TABLES = frozenset(
    {"table", "_G", "require", _rewrite.TRACK, _rewrite.TRACK_DYNAMIC, _rewrite.FRAME, _rewrite.KEY}
)
"""Names through which a script can reach the table library, or set a table's metatable (the
functions the rewritten constructors call, `_rewrite`)."""
_KUBE = frozenset({'"kube"', "'kube'"})


def cannot_change_tables(source: str) -> bool:
    """Whether no run of `source` can change a table (see the module)."""
    try:
        tokens, found = _operators.read(source)
    except _lexer.LexError:
        return False
    if found is None or found.assigns_fields:
        return False
    return not any(
        tok.kind == "name"
        and tok.text in _REACHES_TABLES
        and not _is_field(tokens, i)
        and not _requires_kube(tokens, i)
        for i, tok in enumerate(tokens)
    )


def _is_field(tokens: list[Token], i: int) -> bool:
    """Whether the name at `i` is a field (`x.table`, `x:table`), not a variable."""
    return i > 0 and tokens[i - 1].text in (".", ":")


def _requires_kube(tokens: list[Token], i: int) -> bool:
    """Whether the name at `i` is `require` called with the string "kube" alone."""
    following = [t.text for t in tokens[i + 1 : i + 4]]
    if tokens[i].text != "require" or not following:
        return False
    return following[0] in _KUBE or any(following == ["(", kube, ")"] for kube in _KUBE)
