"""Preview: what a change to the source would do to the fleet, before it is merged.

`preview(repo, base, head)` renders both revisions (`sides`: the base from the rendered branch
when it renders the base already, the head on top of the base so that only what the change
touches is rendered again), compares the trees (`diff`) and returns a `result.Preview`, which
`markdown` turns into a pull-request comment and `report` into JSON. `github_comment` posts the
comment. A head with errors (a tree that cannot be loaded included) is not rendered: the preview
then carries its located errors. A head that renders carries what its render refuses, and
which of those the base refuses too: merging it would leave those manifests unwritten, and
what it changes that no rendered file holds (`inputs`: Clusters, interpreter scripts,
ClusterTaintPolicies, FederatedHPAs and gitfleet.yaml's settings, which the agents and the
reconciler read from the source, and the change's commits whose message lifts the prune guard
or skips the rollout's waves). With a
`rollout` section, the head's waves say which clusters the change reaches in which wave. A
rendered branch that is not at a render is not read (the base is rendered from scratch).

The head comes from whoever opened the pull request, the base from the repository's owners: the
base's gitfleet.yaml names the rendered branch read, and its `maxFileSize` and
`maxSourceSize` are the most the head's files may weigh, each and together (a pull request
cannot raise the limits its own files are held to).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from gitfleet import source
from gitfleet.errors import InputError
from gitfleet.gitstore import objects, rendered, repository, store
from gitfleet.model import diagnostic, loaded, rollout
from gitfleet.preview import diff, inputs, result, sides


def _commit(repo: repository.Repository, rev: str) -> str:
    found = repo.commit_of(rev)
    if found is None:
        raise repo.fail(f"unknown revision {rev!r}")
    return found


CONTROL_TRAILERS = (rendered.ALLOW_PRUNE_TRAILER, rollout.TRAILER)
"""Trailers of a source commit's message that change what its render does on the clusters:
lifting the agents' prune guard, skipping the rollout's waves."""
MAX_COMMITS = 1000
"""Commits of the change whose messages are read for `CONTROL_TRAILERS`."""


def _control_trailers(
    repo: repository.Repository, base: str, head: str
) -> tuple[inputs.InputChange, ...]:
    """The commits of the change (those of `head` not in `base`, the newest `MAX_COMMITS`)
    whose message carries a control trailer: merged as they are (rebased, fast-forwarded),
    the newest becomes the source commit whose trailers the render and the agents obey."""
    code, out, _ = repo.run("rev-list", f"--max-count={MAX_COMMITS}", head, f"^{base}", "--")
    commits = repository.output_lines(out) if code == 0 else []
    messages = repo.read(commits, objects.COMMIT)
    found = []
    for commit in commits:
        trailers = objects.trailers_of(messages.get(commit, b""))
        said = tuple(
            f"{key}: {diff.key(trailers[key])}" for key in CONTROL_TRAILERS if key in trailers
        )
        if said:
            found.append(inputs.InputChange(f"commit {commit[:12]}", "message carries", said))
    return tuple(found)


def _waves(head: loaded.LoadedSource, changes: diff.TreeDiff) -> tuple[result.Wave, ...]:
    """The head's waves, each with the clusters the change touches (merged, the rollout
    releases them wave by wave)."""
    settings = head.config.rollout
    if settings is None:
        return ()
    touched = {c.cluster for c in changes.clusters}
    plan = rollout.assign(settings.waves, head.objects.clusters)
    return tuple(
        result.Wave(wave.name, names, tuple(n for n in names if n in touched))
        for wave, names in plan
    )


def preview(
    repo_path: str | os.PathLike[str],
    base: str,
    head: str,
    *,
    rendered_branch: str | None = None,
    step: Callable[[str], None] | None = None,
) -> result.Preview:
    """Compare the renders of revisions `base` and `head` of the repository at `repo_path`;
    `SourceError` when it is not a repository or a revision names no commit. `step` hears
    what it does now (a command's progress line)."""
    say = step or (lambda _: None)
    repo = repository.open_repository(repo_path)
    if repo is None:
        raise repository.not_a_repository(repo_path)
    try:
        base_commit, head_commit = _commit(repo, base), _commit(repo, head)
        fmt = store.object_format(repo)
        settings = source.settings(repo_path, base_commit)
        say(f"loading {head}")
        try:
            head_source = source.load(repo_path, head_commit, bounds=settings)
        except InputError as error:
            problem = diagnostic.error(error.origin, error.message)
            sides_compared = (
                result.Side(base, base_commit, "none"),
                result.Side(head, head_commit, "none"),
            )
            return result.Preview(*sides_compared, (problem,), None)
        say(f"loading {base}")
        base_source = source.load(repo_path, base_commit)
        branch = rendered_branch or settings.rendered_branch
        tip = rendered.read_tip(repo, branch)
        if tip is not None and not tip.is_render:
            tip = None
        if tip is not None and tip.source_commit == base_commit:
            base_side, obtained = sides.from_tip(tip), "rendered-branch"
        else:
            on = sides.from_tip(tip) if tip is not None else None
            say(f"rendering {base}")
            base_side, obtained = sides.render(repo, base_source, on, fmt), "render"
        say(f"rendering {head}")
        head_side = sides.render(repo, head_source, base_side, fmt)
        base_info = result.Side(base, base_commit, obtained, base_side.rendered)
        head_info = result.Side(head, head_commit, "render", head_side.rendered)
        if not head_side.ok:
            return result.Preview(
                base_info, head_info, head_side.errors, None, base_errors=base_side.errors
            )
        changed = [
            path
            for path in sorted(base_side.files.keys() | head_side.files.keys())
            if base_side.files.get(path) != head_side.files.get(path)
        ]
        say("comparing the manifests")
        changes = diff.compare(
            sides.contents(repo, base_side, changed), sides.contents(repo, head_side, changed)
        )
        return result.Preview(
            base_info,
            head_info,
            (),
            changes,
            base_errors=base_side.errors,
            refusals=sides.refusals(repo, head_side, fmt),
            base_refusals=sides.refusals(repo, base_side, fmt),
            waves=_waves(head_source, changes),
            beyond=(  # the few commits first: many objects changed cannot crowd them out
                *_control_trailers(repo, base_commit, head_commit),
                *inputs.compare(base_source, head_source),
            ),
        )
    finally:
        repo.close()
