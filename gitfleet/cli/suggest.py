"""A mistyped command name gets the closest one suggested, as git does (`gitfleet rendr`:
"No such command 'rendr'. Did you mean 'render'?"), for the top group and its subgroups."""

from __future__ import annotations

import difflib

import click


class SuggestingGroup(click.Group):
    """A group that names the closest command when the one asked for does not exist."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        unknown = name and not name.startswith("-") and self.get_command(ctx, name) is None
        if unknown and not ctx.resilient_parsing:
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            if close:
                ctx.fail(f"No such command {name!r}. Did you mean {close[0]!r}?")
        return super().resolve_command(ctx, args)
