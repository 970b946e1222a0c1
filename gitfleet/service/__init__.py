"""The service: `gitfleet reconcile`, which renders every new commit of the source branch.

`reconciler` is the engine (one look: fetch, load, render, commit, push, status); `target`
holds where it reads and writes (a local repository, or a remote through a bare mirror);
`wakeup` is where the triggers meet it: `watcher` (a local repository's source ref), the
webhook endpoint (signed push events from GitHub, GitLab, Gitea and Bitbucket: `server` speaks HTTP
within its limits, `endpoint` decides each reply, `webhook` knows each host's headers and
signatures, `replay` remembers the deliveries accepted lately), and polling.
`events` is its one-line-per-event log; `backoff` the delays between retries of an unreachable
remote. Its status file on `refs/heads/gitfleet/status/_reconciler` is written through
`gitfleet.status.reconciler_state`, which `gitfleet status` reads too.
"""
