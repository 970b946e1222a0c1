"""The pull agent's Git credential, read from a folder (a Kubernetes Secret mounted as files).

Two kinds, by the keys Kubernetes gives its own Secret types:

- `kubernetes.io/basic-auth` (HTTPS): `username` (optional, default `git`) and `password` (a
  token). A credential helper in the copy's configuration reads both files each time git asks,
  so a rotated Secret is picked up without a restart, and nothing secret is written anywhere.
- `kubernetes.io/ssh-auth` (SSH): `ssh-privatekey`, and `known_hosts` to check the server's
  key (required: without it ssh refuses every host, as `StrictHostKeyChecking=yes` says).

The result is git configuration for the agent's copy of the repository, so every git process
on it (fetches, ls-remote, the status push) authenticates the same way.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from gitfleet.errors import SourceError
from gitfleet.model.origin import Origin

PASSWORD = "password"
USERNAME = "username"
SSH_KEY = "ssh-privatekey"
KNOWN_HOSTS = "known_hosts"


def git_settings(folder: Path) -> list[tuple[str, str]]:
    """Configuration (key, value) that makes git use the credential in `folder` (named by its
    absolute path: git runs the commands in folders of its own)."""
    folder = folder.absolute()
    if (folder / SSH_KEY).is_file():
        command = [
            "ssh", "-i", str(folder / SSH_KEY), "-o", "IdentitiesOnly=yes",
            "-o", f"UserKnownHostsFile={folder / KNOWN_HOSTS}", "-o", "StrictHostKeyChecking=yes",
        ]  # fmt: skip
        return [("core.sshCommand", shlex.join(command))]
    if (folder / PASSWORD).is_file():
        user = shlex.quote(str(folder / USERNAME))
        password = shlex.quote(str(folder / PASSWORD))
        helper = (
            f'!f() {{ test "$1" = get || exit 0; '
            f"printf 'username=%s\\npassword=%s\\n' \"$(cat {user} 2>/dev/null || echo git)\" "
            f'"$(cat {password})"; }}; f'
        )
        return [("credential.helper", ""), ("credential.helper", helper)]
    raise SourceError(
        Origin(str(folder)),
        f"no Git credential: expected {PASSWORD} (HTTPS) or {SSH_KEY} (SSH) in the folder",
    )
