"""Dependencies follow their workload (Karmada pkg/dependenciesdistributor: Reconcile,
buildAttachedBinding, createOrUpdateAttachedBinding, policy_utils.go; pkg/util/names
GenerateBindingReferenceKey).

Aspects: attached bindings for ConfigMaps and Secrets a pod template names (requiredBy snapshot
with the requirer's clusters, depended-by label, no placement, effective conflictResolution and
preserveResourcesOnDeletion over all requirers, and a warning when they disagree); nothing
without propagateDeps, without a schedule result, or for ClusterResourceBindings; a dependency
claimed by its own policy keeps its placement; missing dependencies reported; label-selector
dependencies from a Lua customization; the dependencies annotation; recomputation from the
previous render; the reference-key hash.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from builders import (
    make_cluster_policy,
    make_configmap,
    make_deployment,
    make_object,
    make_policy,
    object_set,
    previous_map,
    selector,
)

from gitfleet import detector, interpreter
from gitfleet.detector import _dependencies, detection
from gitfleet.model import work
from gitfleet.model.template import ResourceKey

VOLUMES = [
    {"name": "conf", "configMap": {"name": "settings"}},
    {"name": "creds", "secret": {"secretName": "token"}},
]
SECRET = {**make_object("v1", "Secret", "token", "shop"), "data": {}}
DEPLOYMENTS = selector()


def app(name: str = "web", **policy_spec: Any) -> list[dict[str, Any]]:
    return [
        make_deployment(name, volumes=VOLUMES),
        make_policy(f"{name}-policy", selector(name=name), propagateDeps=True, **policy_spec),
    ]


def distribute(
    docs: list[dict[str, Any]],
    clusters: dict[str, tuple[str, ...]] | None = None,
    previous: detection.Distribution | None = None,
) -> detection.Distribution:
    """Detect, 'schedule' (requirer name -> clusters), then distribute dependencies."""
    objs = object_set(docs)
    interp = interpreter.Interpreter(customizations=objs.customizations)
    prior = previous_map(previous.bindings if previous else None)
    found = detector.detect(objs, interp, prior)
    placed = []
    for b in found.bindings:
        names = (clusters or {}).get(b.spec.resource.name, ("member1",))
        targets = tuple(work.TargetCluster(name=n, replicas=1) for n in names)
        placed.append(dataclasses.replace(b, spec=dataclasses.replace(b.spec, clusters=targets)))
    return detector.distribute_dependencies(placed, found.templates, interp, prior)


def binding(result: detection.Distribution, name: str) -> detection.Binding:
    found = [b for b in result.bindings if b.name == name]
    assert len(found) == 1, [b.name for b in result.bindings]
    return found[0]


def test_reference_key_matches_karmada() -> None:
    """names_test / dependencies_distributor_test: test/test-binding -> 5dbb6dc9c8."""
    assert _dependencies.reference_key("test", "test-binding") == "5dbb6dc9c8"


def test_pod_template_dependencies_are_attached() -> None:
    result = distribute([*app(), make_configmap(), SECRET], {"web": ("a", "b")})
    web = binding(result, "web-deployment")
    for name in ("settings-configmap", "token-secret"):
        attached = binding(result, name)
        assert attached.namespace == "shop"
        assert attached.spec.placement is None
        assert attached.spec.clusters == ()
        (snapshot,) = attached.spec.required_by
        assert (snapshot.namespace, snapshot.name) == ("shop", "web-deployment")
        assert [c.name for c in snapshot.clusters] == ["a", "b"]
        key = "resourcebinding.karmada.io/depended-by-" + _dependencies.reference_key(
            "shop", "web-deployment"
        )
        labels = attached.metadata.labels or {}
        assert labels[key] == (web.metadata.labels or {})["resourcebinding.karmada.io/permanent-id"]
        assert attached.spec.conflict_resolution == "Abort"
        assert attached.spec.preserve_resources_on_deletion is False
    (report,) = result.dependencies
    assert report.attached == (
        ResourceKey("v1", "ConfigMap", "shop", "settings"),
        ResourceKey("v1", "Secret", "shop", "token"),
    )


def test_dependencies_annotation_records_what_the_interpreter_said() -> None:
    result = distribute([*app(), make_configmap(), SECRET])
    annotations = binding(result, "web-deployment").metadata.annotations or {}
    recorded = json.loads(annotations["resourcebinding.karmada.io/dependencies"])
    assert recorded == [
        {"apiVersion": "v1", "kind": "ConfigMap", "namespace": "shop", "name": "settings"},
        {"apiVersion": "v1", "kind": "Secret", "namespace": "shop", "name": "token"},
    ]


def _dependencies_script(
    script: str, api_version: str = "apps/v1", kind: str = "Deployment"
) -> dict[str, Any]:
    """A customization whose dependencyInterpretation is `script`, for one kind."""
    return {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "web-deps"},
        "spec": {
            "target": {"apiVersion": api_version, "kind": kind},
            "customizations": {"dependencyInterpretation": {"luaScript": script}},
        },
    }


@pytest.mark.parametrize(
    ("customizations", "recorded"),
    [
        pytest.param([], "null", id="native rules: Go's nil slice"),
        pytest.param(
            [_dependencies_script("function GetDependencies(obj)\n  return {}\nend")],
            "[]",
            id="Lua: the set of a script's answers, empty",
        ),
    ],
)
def test_no_dependencies_are_recorded_as_go_writes_them(
    customizations: list[dict[str, Any]], recorded: str
) -> None:
    """recordDependencies writes json.Marshal of GetDependencies' answer even when empty."""
    docs = [make_deployment("web"), *app()[1:], *customizations]
    annotations = binding(distribute(docs), "web-deployment").metadata.annotations or {}
    assert annotations["resourcebinding.karmada.io/dependencies"] == recorded


@pytest.mark.parametrize(
    ("docs", "clusters"),
    [
        pytest.param(
            [
                make_deployment("web", volumes=VOLUMES),
                make_policy("p", DEPLOYMENTS),
                make_configmap(),
            ],
            None,
            id="dependencies_distributor Reconcile: nothing without propagateDeps",
        ),
        pytest.param(
            [*app(), make_configmap()],
            {"web": ()},
            id="SetupWithManager CreateFunc: nothing before the requirer is scheduled",
        ),
    ],
)
def test_no_attachment(
    docs: list[dict[str, Any]], clusters: dict[str, tuple[str, ...]] | None
) -> None:
    result = distribute(docs, clusters)
    assert [b.name for b in result.bindings] == ["web-deployment"]


def test_cluster_resource_bindings_require_nothing() -> None:
    """The distributor watches ResourceBindings only."""
    customization = {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "role-deps"},
        "spec": {
            "target": {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole"},
            "customizations": {
                "dependencyInterpretation": {
                    "luaScript": "function GetDependencies(obj)\n"
                    "  return {{apiVersion='v1', kind='ConfigMap', namespace='shop',"
                    " name='settings'}}\nend"
                }
            },
        },
    }
    role = make_object("rbac.authorization.k8s.io/v1", "ClusterRole", "reader")
    sel = selector("ClusterRole", "rbac.authorization.k8s.io/v1")
    policy = make_cluster_policy("c", sel, propagateDeps=True)
    result = distribute([role, policy, make_configmap(), customization], {"reader": ("a",)})
    assert [b.name for b in result.bindings] == ["reader-clusterrole"]


def test_shared_dependency_merges_requirers() -> None:
    """createOrUpdateAttachedBinding: snapshots merged; Overwrite and preserve win if any."""
    docs = [
        *app("web"),
        *app("api", conflictResolution="Overwrite", preserveResourcesOnDeletion=True),
        make_configmap(),
    ]
    result = distribute(docs, {"web": ("a",), "api": ("b", "c")})
    attached = binding(result, "settings-configmap")
    assert [(s.name, [c.name for c in s.clusters]) for s in attached.spec.required_by] == [
        ("api-deployment", ["b", "c"]),
        ("web-deployment", ["a"]),
    ]
    assert attached.spec.conflict_resolution == "Overwrite"
    assert attached.spec.preserve_resources_on_deletion is True
    depended = [k for k in attached.metadata.labels or {} if "depended-by" in k]
    assert len(depended) == 2
    (warning,) = [d for d in result.diagnostics if "conflict" in d.message]
    assert warning.severity == "warning"
    assert warning.message == (
        "ConfigMap shop/settings: dependency policy conflict detected: ConflictResolution "
        "conflicted (Overwrite vs Abort); PreserveResourcesOnDeletion conflicted (true vs "
        "false), between the policies of Deployment shop/api, Deployment shop/web, which need "
        "it; Overwrite and true win, as in Karmada (DependencyPolicyConflict)"
    )


@pytest.mark.parametrize(
    ("web", "api", "conflicts"),
    [
        pytest.param({}, {}, [], id="both defaults: no conflict"),
        pytest.param(
            {"conflictResolution": "Overwrite"}, {"conflictResolution": "Overwrite"}, [],
            id="both Overwrite",
        ),
        pytest.param(
            {"conflictResolution": "Abort"}, {}, [], id="Abort written and Abort by default"
        ),
        pytest.param(
            {"preserveResourcesOnDeletion": False}, {}, [], id="false written and by default"
        ),
        pytest.param(
            {"preserveResourcesOnDeletion": True}, {},
            ["PreserveResourcesOnDeletion conflicted (true vs false)"], id="preserve only",
        ),
    ],
)  # fmt: skip
def test_dependency_policy_conflicts(
    web: dict[str, Any], api: dict[str, Any], conflicts: list[str]
) -> None:
    """policy_utils.go detectAndResolve*: nil counts as the default; recordEventIfPolicyConflict
    names each field the requirers disagree on."""
    result = distribute([*app("web", **web), *app("api", **api), make_configmap()])
    found = [d.message for d in result.diagnostics if "conflict" in d.message]
    assert [c for c in conflicts if not any(c in m for m in found)] == []
    assert len(found) == (1 if conflicts else 0)


def test_dependency_claimed_by_its_own_policy_keeps_its_placement() -> None:
    """createOrUpdateAttachedBinding: a binding with a placement only gains snapshots."""
    own = make_policy(
        "cm",
        selector("ConfigMap", "v1"),
        conflictResolution="Abort",
        placement={"clusterAffinity": {"clusterNames": ["z"]}},
    )
    docs = [*app(conflictResolution="Overwrite"), make_configmap(), own]
    result = distribute(docs, {"web": ("a",), "settings": ("z",)})
    cm = binding(result, "settings-configmap")
    assert cm.spec.placement is not None
    assert [c.name for c in cm.spec.clusters] == ["z"]
    assert [s.name for s in cm.spec.required_by] == ["web-deployment"]
    assert cm.spec.conflict_resolution == "Abort"
    assert (cm.metadata.annotations or {})["propagationpolicy.karmada.io/name"] == "cm"


def test_a_binding_there_is_kept_by_the_dependency_owning_it() -> None:
    """Two dependencies share one binding name (ConfigMaps `settings` of two namespaces): the
    one whose own policy's binding is there keeps it, whichever the requirer names first, as
    createOrUpdateAttachedBinding updates a binding only for the template owning it; the
    other is reported and not propagated."""
    script = (
        "function GetDependencies(obj)\n"
        "  return {{apiVersion='v1', kind='ConfigMap', namespace='other', name='settings'},\n"
        "          {apiVersion='v1', kind='ConfigMap', namespace='shop', name='settings'}}\n"
        "end"
    )
    widget = make_object("example.io/v1", "Widget", "web", "shop")
    policy = make_policy("web-policy", selector("Widget", "example.io/v1"), propagateDeps=True)
    own = make_policy("cm", selector("ConfigMap", "v1"))
    customization = _dependencies_script(script, "example.io/v1", "Widget")
    docs = [widget, policy, customization, make_configmap(), make_configmap(namespace="other")]
    result = distribute([*docs, own], {"web": ("a",), "settings": ("z",)})
    cm = binding(result, "settings-configmap")
    assert cm.spec.resource.namespace == "shop"
    assert [s.name for s in cm.spec.required_by] == ["web-widget"]
    (refused,) = [d for d in result.diagnostics if "not propagated" in d.message]
    assert refused.message.startswith("ConfigMap/other/settings: attached binding")


def test_missing_dependencies_are_reported() -> None:
    """handleDependentResource: a dependency that does not exist is skipped."""
    result = distribute([*app(), make_configmap()])
    (report,) = result.dependencies
    assert report.missing == ("Secret shop/token",)
    assert [b.name for b in result.bindings] == ["settings-configmap", "web-deployment"]


def test_a_dependency_whose_binding_name_is_too_long_is_not_propagated() -> None:
    """Karmada's create of the attached binding `<name>-configmap` (254 characters) is refused
    by the API server: the dependency never gets one; said once however many need it."""
    long = "c" * 244
    volumes = [{"name": "conf", "configMap": {"name": long}}]
    docs = [
        make_deployment("web", volumes=volumes),
        make_deployment("api", volumes=volumes),
        make_policy("all", selector(), propagateDeps=True),
        make_configmap(long),
    ]
    result = distribute(docs)
    assert [b.name for b in result.bindings] == ["api-deployment", "web-deployment"]
    assert [r.attached for r in result.dependencies] == [(), ()]
    (error,) = result.diagnostics
    assert error.origin.keys[-2:] == ("metadata", "name")
    assert "its binding's name (254 characters" in error.message
    assert error.message.endswith("; the dependency is not propagated")


def test_label_selector_dependencies() -> None:
    """handleDependentResource: a label selector attaches every template it matches."""
    customization = {
        "apiVersion": "config.karmada.io/v1alpha1",
        "kind": "ResourceInterpreterCustomization",
        "metadata": {"name": "web-deps"},
        "spec": {
            "target": {"apiVersion": "apps/v1", "kind": "Deployment"},
            "customizations": {
                "dependencyInterpretation": {
                    "luaScript": "function GetDependencies(obj)\n"
                    "  return {{apiVersion='v1', kind='ConfigMap', namespace='shop',"
                    " labelSelector={matchLabels={app='web'}}}}\nend"
                }
            },
        },
    }
    docs = [
        *app(),
        customization,
        make_configmap("one", labels={"app": "web"}),
        make_configmap("two", labels={"app": "web"}),
        make_configmap("other", labels={"app": "db"}),
    ]
    result = distribute(docs)
    assert sorted(b.name for b in result.bindings) == [
        "one-configmap",
        "two-configmap",
        "web-deployment",
    ]


def test_recomputed_from_the_previous_render() -> None:
    """A requirer that stops needing a dependency releases it: no stale snapshot, no label."""
    own = make_policy("cm", selector("ConfigMap", "v1"))
    first = distribute([*app(), make_configmap(), SECRET, own])
    assert binding(first, "settings-configmap").spec.required_by
    no_deps = [make_deployment("web"), *app()[1:], make_configmap(), SECRET, own]
    second = distribute(no_deps, previous=first)
    cm = binding(second, "settings-configmap")
    assert cm.spec.required_by == ()
    assert not any("depended-by" in k for k in cm.metadata.labels or {})
    assert "token-secret" not in [b.name for b in second.bindings]
    recorded = binding(second, "web-deployment").metadata.annotations or {}
    assert recorded["resourcebinding.karmada.io/dependencies"] == "null"
    assert cm.metadata.generation == 2
    again = distribute(no_deps, previous=second)
    assert binding(again, "settings-configmap").metadata.generation == 2


def test_requirer_carries_the_distributor_finalizer() -> None:
    """Reconcile adds karmada.io/binding-dependencies-distributor to a requirer whose
    dependencies the interpreter gave (none named is enough), and removeFinalizer takes it off
    once propagateDeps is false; a kind without a dependency hook gets none."""
    result = distribute([make_deployment("web"), make_policy("p", selector(), propagateDeps=True)])
    assert binding(result, "web-deployment").metadata.finalizers == (
        "karmada.io/binding-controller",
        "karmada.io/binding-dependencies-distributor",
    )
    later = distribute([make_deployment("web"), make_policy("p", selector())], previous=result)
    assert binding(later, "web-deployment").metadata.finalizers == (
        "karmada.io/binding-controller",
    )
    unhooked = distribute(
        [make_configmap(), make_policy("p", selector("ConfigMap", "v1"), propagateDeps=True)]
    )
    assert binding(unhooked, "settings-configmap").metadata.finalizers == (
        "karmada.io/binding-controller",
    )


def test_a_requirer_that_stops_propagating_keeps_its_recorded_dependencies() -> None:
    """Reconcile with propagateDeps false releases the dependencies and removes the finalizer,
    but nothing removes the dependencies annotation recordDependencies wrote."""
    first = distribute([*app(), make_configmap(), SECRET])
    recorded = (binding(first, "web-deployment").metadata.annotations or {})[
        "resourcebinding.karmada.io/dependencies"
    ]
    stopped = [
        make_deployment("web", volumes=VOLUMES),
        make_policy("web-policy", selector(name="web")),
        make_configmap(),
        SECRET,
    ]
    later = distribute(stopped, previous=first)
    web = binding(later, "web-deployment")
    assert [b.name for b in later.bindings] == ["web-deployment"]
    assert "karmada.io/binding-dependencies-distributor" not in web.metadata.finalizers
    annotations = web.metadata.annotations or {}
    assert annotations["resourcebinding.karmada.io/dependencies"] == recorded


def test_a_requirer_without_clusters_propagates_once_its_spec_changed() -> None:
    """SetupWithManager's event filter: a binding made without a schedule result is not
    reconciled (CreateFunc) until its generation moves (UpdateFunc); Reconcile itself does not
    look at the clusters, so its dependencies are then attached with a snapshot naming none."""
    first = distribute([*app(), make_configmap(), SECRET], {"web": ()})
    again = distribute([*app(), make_configmap(), SECRET], {"web": ()}, previous=first)
    assert [b.name for b in again.bindings] == ["web-deployment"]
    changed = [make_deployment("web", replicas=5, volumes=VOLUMES), *app()[1:]]
    later = distribute([*changed, make_configmap(), SECRET], {"web": ()}, previous=again)
    web = binding(later, "web-deployment")
    assert "karmada.io/binding-dependencies-distributor" in web.metadata.finalizers
    for name in ("settings-configmap", "token-secret"):
        (snapshot,) = binding(later, name).spec.required_by
        assert (snapshot.name, snapshot.clusters) == ("web-deployment", ())


def test_a_binding_owned_by_an_earlier_template_is_left_alone() -> None:
    """createOrUpdateAttachedBinding refuses a binding whose controller has another uid than the
    dependency (karmada issue 6034): it gains no snapshot until it is garbage collected."""
    own = make_policy("cm", selector("ConfigMap", "v1"))
    objs = object_set([*app(), make_configmap(uid="u-now"), own])
    interp = interpreter.Interpreter()
    found = detector.detect(objs, interp)
    placed = []
    for b in found.bindings:
        owners = tuple({**ref, "uid": "u-before"} for ref in b.metadata.owner_references)
        if b.name == "settings-configmap":
            b = dataclasses.replace(
                b, metadata=dataclasses.replace(b.metadata, owner_references=owners)
            )
        targets = (work.TargetCluster(name="member1", replicas=1),)
        placed.append(dataclasses.replace(b, spec=dataclasses.replace(b.spec, clusters=targets)))
    result = detector.distribute_dependencies(placed, found.templates, interp)
    cm = binding(result, "settings-configmap")
    assert cm.spec.required_by == ()
    assert not any("depended-by" in k for k in cm.metadata.labels or {})
    assert any("owned by an earlier ConfigMap" in d.message for d in result.diagnostics)


def test_snapshots_keep_the_order_they_were_added_in() -> None:
    """mergeBindingSnapshot updates a known requirer's snapshot in place and appends a new one,
    so a requirer that came later stays after the earlier ones whatever its name."""
    first = distribute([*app("web"), make_configmap()])
    later = distribute([*app("web"), *app("api"), make_configmap()], previous=first)
    attached = binding(later, "settings-configmap")
    assert [s.name for s in attached.spec.required_by] == ["web-deployment", "api-deployment"]
    fresh = distribute([*app("web"), *app("api"), make_configmap()])
    attached = binding(fresh, "settings-configmap")
    assert [s.name for s in attached.spec.required_by] == ["api-deployment", "web-deployment"]


def test_a_requirer_whose_dependencies_are_refused_keeps_what_it_had() -> None:
    """Reconcile returns GetDependencies' error (VerifyDependencies: a kind is required) before
    it touches a binding: the finalizer and the snapshots stay as they were, with the clusters
    they named, until the customization answers again."""

    def customization(needs: str) -> dict[str, Any]:
        return _dependencies_script(f"function GetDependencies(obj)\n  return {{{needs}}}\nend")

    settings = "{apiVersion='v1', kind='ConfigMap', namespace='shop', name='settings'}"
    good = [*app(), make_configmap(), customization(settings)]
    first = distribute(good, {"web": ("a",)})
    refused = [*app(), make_configmap(), customization(settings + ", {apiVersion='v1', name='x'}")]
    later = distribute(refused, {"web": ("b",)}, previous=first)
    assert any("cannot interpret dependencies" in d.message for d in later.diagnostics)
    web = binding(later, "web-deployment")
    assert "karmada.io/binding-dependencies-distributor" in web.metadata.finalizers
    (snapshot,) = binding(later, "settings-configmap").spec.required_by
    assert [c.name for c in snapshot.clusters] == ["a"]


def test_a_label_selector_without_namespace_matches_every_namespace() -> None:
    """FetchResourceTemplatesByLabelSelector lists a dependency without a namespace through the
    informer's cluster-wide lister: matching templates of every namespace are attached, each
    with a binding in the requirer's namespace."""
    script = (
        "function GetDependencies(obj)\n"
        "  return {{apiVersion='v1', kind='ConfigMap', labelSelector={matchLabels={app='web'}}}}\n"
        "end"
    )
    docs = [
        *app(),
        _dependencies_script(script),
        make_configmap("one", labels={"app": "web"}),
        make_configmap("two", namespace="other", labels={"app": "web"}),
        make_configmap("three", namespace="other", labels={"app": "db"}),
    ]
    result = distribute(docs)
    attached = {b.name: b for b in result.bindings if b.spec.required_by}
    assert sorted(attached) == ["one-configmap", "two-configmap"]
    assert {b.namespace for b in attached.values()} == {"shop"}
    assert attached["two-configmap"].spec.resource.namespace == "other"


def test_an_unscheduled_requirer_wakes_when_another_requires_it() -> None:
    """A requirer made before it was scheduled is not reconciled (CreateFunc), but the snapshot
    another requirer writes on its binding gives it a new generation (UpdateFunc): its own
    dependencies then go with a snapshot naming no cluster."""
    script = (
        "function GetDependencies(obj)\n"
        "  if obj.metadata.name == 'web' then\n"
        "    return {{apiVersion='apps/v1', kind='Deployment', namespace='shop', name='db'}}\n"
        "  end\n"
        "  return {{apiVersion='v1', kind='ConfigMap', namespace='shop', name='settings'}}\n"
        "end"
    )
    docs = [*app("web"), *app("db"), _dependencies_script(script), make_configmap()]
    result = distribute(docs, {"web": ("a",), "db": ()})
    (by_web,) = binding(result, "db-deployment").spec.required_by
    assert by_web.name == "web-deployment"
    (by_db,) = binding(result, "settings-configmap").spec.required_by
    assert (by_db.name, by_db.clusters) == ("db-deployment", ())


def test_a_requirer_woken_by_another_snapshots_after_it() -> None:
    """Two new requirers of one ConfigMap: `api` (unscheduled) is reconciled only once `web`,
    which requires it, has written a snapshot on its binding, so its snapshot on the ConfigMap
    comes after `web`'s although its name comes first."""
    script = (
        "function GetDependencies(obj)\n"
        "  local refs = {{apiVersion='v1', kind='ConfigMap', namespace='shop', name='settings'}}\n"
        "  if obj.metadata.name == 'web' then\n"
        "    refs[2] = {apiVersion='apps/v1', kind='Deployment', namespace='shop', name='api'}\n"
        "  end\n"
        "  return refs\n"
        "end"
    )
    docs = [*app("web"), *app("api"), _dependencies_script(script), make_configmap()]
    result = distribute(docs, {"web": ("a",), "api": ()})
    snapshots = binding(result, "settings-configmap").spec.required_by
    assert [(s.name, s.clusters) for s in snapshots] == [
        ("web-deployment", (work.TargetCluster(name="a", replicas=1),)),
        ("api-deployment", ()),
    ]


def test_a_requirer_whose_interpreter_went_keeps_what_it_had() -> None:
    """Reconcile returns before touching a binding when no interpreter answers
    InterpretDependency for the kind any more: what the requirer had stays."""
    script = (
        "function GetDependencies(obj)\n"
        "  return {{apiVersion='v1', kind='ConfigMap', namespace='shop', name='settings'}}\n"
        "end"
    )
    widget = make_object("example.io/v1", "Widget", "web", "shop")
    policy = make_policy("web-policy", selector("Widget", "example.io/v1"), propagateDeps=True)
    customization = _dependencies_script(script, "example.io/v1", "Widget")
    first = distribute([widget, policy, make_configmap(), customization])
    later = distribute([widget, policy, make_configmap()], previous=first)
    web = binding(later, "web-widget")
    assert "karmada.io/binding-dependencies-distributor" in web.metadata.finalizers
    (snapshot,) = binding(later, "settings-configmap").spec.required_by
    assert snapshot.name == "web-widget"


def test_a_requirer_that_is_its_own_dependency_lets_go_of_itself() -> None:
    """A template whose Lua GetDependencies names itself is attached to its own binding (a
    snapshot of itself and its depended-by label). When it stops propagating, Reconcile
    releases that binding, itself, and then removes the finalizer: Karmada's write of the copy
    it read first is refused as modified, and the requeued Reconcile finds nothing attached
    and lets the finalizer go."""
    script = (
        "function GetDependencies(obj)\n"
        "  return {{apiVersion='example.io/v1', kind='Widget', namespace='shop', name='web'}}\n"
        "end"
    )
    widget = make_object("example.io/v1", "Widget", "web", "shop")
    customization = _dependencies_script(script, "example.io/v1", "Widget")
    kind = selector("Widget", "example.io/v1")
    first = distribute([widget, make_policy("p", kind, propagateDeps=True), customization])
    web = binding(first, "web-widget")
    assert [s.name for s in web.spec.required_by] == ["web-widget"]
    assert any(k.startswith("resourcebinding.karmada.io/depended-by-") for k in web.metadata.labels)
    assert "karmada.io/binding-dependencies-distributor" in web.metadata.finalizers
    later = distribute([widget, make_policy("p", kind), customization], previous=first)
    web = binding(later, "web-widget")
    assert web.spec.required_by == ()
    assert not any(
        k.startswith("resourcebinding.karmada.io/depended-by-") for k in web.metadata.labels
    )
    assert web.metadata.finalizers == ("karmada.io/binding-controller",)
