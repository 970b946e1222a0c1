"""A mistyped command name gets the closest one suggested, as git does (`gitfleet rendr`:
"No such command 'rendr'. Did you mean 'render'?"), for the top group and its subgroups; `help`
and `version`, commands of kubectl, argocd and flux, get the option that does it."""

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
            meant = self._option_named(ctx, name, args[1:])
            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            if meant is not None:
                ctx.fail(f"No such command {name!r}. Did you mean {meant!r}?")
            if close:
                ctx.fail(f"No such command {name!r}. Did you mean {close[0]!r}?")
        return super().resolve_command(ctx, args)

    def _option_named(self, ctx: click.Context, name: str, rest: list[str]) -> str | None:
        """The command line meant by `help` or `version` typed as a command, as kubectl, argocd
        and flux take them (`gitfleet help render`: `gitfleet render --help`), when the group
        has that option; None otherwise."""
        option = f"--{name}"
        if not any(option in param.opts for param in self.get_params(ctx)):
            return None
        if option == "--help" and rest and self.get_command(ctx, rest[0]) is not None:
            return f"{ctx.command_path} {rest[0]} --help"
        return f"{ctx.command_path} {option}"
