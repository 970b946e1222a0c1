"""`gitfleet sim`: start simulated member clusters on 127.0.0.1 and write a kubeconfig for
each (HTTPS, with the CA that signed the clusters' certificate), then serve until
interrupted (SIGINT or SIGTERM stop them cleanly, exit 0). Stopping removes the kubeconfigs
it wrote (unless a user wrote over them) and the folder if it made it and left it empty: the
clusters' CA, token and ports die with the process, so a kubeconfig left behind would only
name a server that is gone (kind and minikube remove a deleted cluster's entry too);
`--keep-kubeconfigs` leaves them. A port already in use is an error (exit 1) before anything
is written; a `--kubeconfig-dir` that cannot be made is a usage error (exit 2), once the
clusters it would name are stopped again.

`--clusters N` starts member1..memberN with the simulator's default nodes. `--from-repo P`
starts one cluster per Cluster defined in the source at P, named after it, whose nodes add
up to the Cluster's declared `status.resourceSummary.allocatable` (over
`status.nodeSummary.totalNum` nodes, default one) and carry its region and zone as
topology labels, and which reports the Cluster's declared `status.kubernetesVersion`.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import click

from gitfleet import errors
from gitfleet.cli import options, signals
from gitfleet.cli import output as out
from gitfleet.demo import simulated
from gitfleet.model.origin import Origin

ClusterPlan = simulated.ClusterPlan
plans_from_repo = simulated.plans_from_repo


@click.command()
@click.option("--clusters", "count", type=click.IntRange(min=1), help="Start N clusters.")
@click.option(
    "--from-repo",
    "repo",
    type=click.Path(file_okay=False),
    help="Start one cluster per Cluster defined in this source (a repository's commit, as"
    " render reads it, or a plain folder).",
)
@click.option(
    "--kubeconfig-dir",
    "kubeconfig_dir",
    required=True,
    type=click.Path(file_okay=False),
    help="Write <cluster>.yaml kubeconfigs here.",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port of the first cluster; the next ones use the following ports (0: any free).",
)
@click.option(
    "--ready-delay",
    type=options.FiniteFloatRange(min=0),
    default=0.2,
    show_default=True,
    help="Seconds before a scheduled pod runs.",
)
@click.option(
    "--keep-kubeconfigs",
    is_flag=True,
    help="Leave the kubeconfigs in place when stopping (they name servers that are gone).",
)
@options.output_option
def sim(
    count: int | None,
    repo: str | None,
    kubeconfig_dir: str,
    port: int,
    ready_delay: float,
    keep_kubeconfigs: bool,
    output: str,
) -> None:
    """Start simulated member clusters on 127.0.0.1 until interrupted."""
    if (count is None) == (repo is None):
        raise click.UsageError("give exactly one of --clusters or --from-repo")
    if repo is not None:
        try:
            plans = plans_from_repo(repo)
        except errors.UsageError as error:
            raise click.UsageError(str(error)) from error
        except errors.InputError as error:
            out.fail_input(error)
            return
        if not plans:
            out.fail_input(errors.InputError(Origin(repo), "defines no Cluster"))
    else:
        assert count is not None
        plans = [ClusterPlan(f"member{n}", {}) for n in range(1, count + 1)]
    if port and port + len(plans) - 1 > 65535:
        raise click.UsageError(f"{len(plans)} clusters from port {port} go past port 65535")
    _serve(plans, Path(kubeconfig_dir), port, ready_delay, output, keep=keep_kubeconfigs)


def _serve(
    plans: list[ClusterPlan],
    directory: Path,
    port: int,
    ready_delay: float,
    form: str,
    *,
    keep: bool,
) -> None:
    from gitfleet import sim as simulator  # the command's one library

    clusters = [
        simulator.SimCluster(
            plan.name,
            ready_delay=ready_delay,
            port=port + index if port else 0,
            **plan.options,
        )
        for index, plan in enumerate(plans)
    ]
    fleet = simulator.SimFleet(clusters)
    with signals.stop_on_signal() as stop:
        try:
            urls = fleet.start()  # stops those it started if one fails
        except simulator.ListenError as error:
            raise click.ClickException(str(error)) from error
        created = not directory.exists()
        paths: dict[str, Path] = {}
        try:
            options.made_folder(directory, "--kubeconfig-dir")
            paths = fleet.write_kubeconfigs(directory)
            rows = [
                {"name": name, "url": url, "kubeconfig": str(paths[name])}
                for name, url in urls.items()
            ]
            human = "\n".join(f"{r['name']} {r['url']} {r['kubeconfig']}" for r in rows)
            out.emit({"clusters": rows}, form, human)
            while not stop.wait(0.5):
                pass
        finally:
            fleet.stop()
            if not keep:  # their CA, token and ports die with the clusters
                fleet.remove_kubeconfigs(paths)
                if created:
                    with contextlib.suppress(OSError):  # not empty: a user's files stay
                        directory.rmdir()
