"""A new source repository as a copy of the example fleet, committed once (what `gitfleet init`
and `gitfleet demo` start from).

The example repository ships in two places: an installed wheel carries it as the package
data folder `gitfleet/_examplerepo` (copied there by the build step in setup.py), and a
source checkout or editable install reads the top-level `example-repo/` directly. Both hold
the same files; `example_repo()` picks whichever exists.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

import gitfleet
from gitfleet import errors
from gitfleet.gitstore import folder, identity

PACKAGED = "_examplerepo"
"""The example's folder inside an installed package."""

CHECKOUT = "example-repo"
"""The example's folder at the top of a source checkout."""

DEFAULT_BRANCH = "main"


def example_repo() -> Path:
    """The folder to copy: the packaged copy in a wheel install, else the checkout's."""
    package = Path(gitfleet.__file__).resolve().parent
    for candidate in (package / PACKAGED, package.parent / CHECKOUT):
        if (candidate / "gitfleet.yaml").is_file():
            return candidate
    raise errors.GitfleetError(
        f"the example repository is missing from this installation (looked in {package / PACKAGED})"
    )


def _source_branch(repo: Path) -> str:
    """The branch gitfleet.yaml names as the source branch, so the first commit lands there."""
    settings = yaml.safe_load((repo / "gitfleet.yaml").read_text(encoding="utf-8")) or {}
    branch = settings.get("sourceBranch") if isinstance(settings, dict) else None
    return branch if isinstance(branch, str) and branch else DEFAULT_BRANCH


def git(repo: Path, *args: str) -> str:
    """Run git in `repo`; its output. `CalledProcessError` when it fails."""
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def commit(repo: Path, message: str) -> None:
    """`git commit` of what is staged, under `identity`'s rule."""
    who = identity.commit_options(identity.work_tree_var(repo))
    git(repo, *who, "commit", "-q", "-m", message)


def _commit(repo: Path, branch: str) -> str:
    """`git init`, add everything, commit; returns the commit's sha."""
    git(repo, "init", "-q")
    git(repo, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    git(repo, "add", "-A")
    commit(repo, "Start a fleet from gitfleet's example")
    return git(repo, "rev-parse", "HEAD")


def _refuse_unless_empty(directory: Path) -> None:
    if not directory.exists():
        return
    if not directory.is_dir():
        raise errors.UsageError(f"{directory}: exists and is not a directory")
    if any(directory.iterdir()):
        raise errors.UsageError(f"{directory}: directory is not empty; choose a new or empty one")


def _undo(directory: Path, existed: bool) -> None:
    """Leave things as they were: remove what scaffold created."""
    if not existed:
        shutil.rmtree(directory, ignore_errors=True)
        return
    for child in directory.iterdir():
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child, ignore_errors=True)
        else:
            child.unlink(missing_ok=True)


def scaffold(directory: Path) -> tuple[str, str, list[str]]:
    """Copy the example into `directory` (new or empty) and commit it: (sha, branch, files).
    `UsageError` for a directory that is not new or empty, or cannot be made; `GitfleetError`
    when Git fails (nothing is left behind)."""
    _refuse_unless_empty(directory)
    existed = directory.exists()
    folder.make(directory)
    try:
        shutil.copytree(example_repo(), directory, dirs_exist_ok=True)
        branch = _source_branch(directory)
        sha = _commit(directory, branch)
        files = git(directory, "ls-files").splitlines()
    except BaseException as error:
        _undo(directory, existed)
        if isinstance(error, FileNotFoundError) and error.filename == "git":
            raise errors.GitfleetError("git is needed to create the repository") from error
        if isinstance(error, subprocess.CalledProcessError):
            detail = (error.stderr or "").strip() or f"exit code {error.returncode}"
            raise errors.GitfleetError(
                f"git {error.cmd[1]} failed in {directory}: {detail}"
            ) from error
        raise
    return sha, branch, files
