"""config.karmada.io/v1alpha1 ResourceInterpreterCustomization
(Karmada: pkg/apis/config/v1alpha1/resourceinterpretercustomization_types.go)."""

from __future__ import annotations

from gitfleet.model import meta
from gitfleet.model._codec import field
from gitfleet.model.origin import Origin

API_VERSION = "config.karmada.io/v1alpha1"


@meta.frozen
class CustomizationTarget:
    """The kind a customization interprets."""

    api_version: str = field(doc="apiVersion of the kind interpreted.")
    kind: str = field(doc="The kind interpreted.")


@meta.frozen
class LuaScript:
    """A Lua script defining the operation's global function."""

    lua_script: str = field(doc="Lua source defining the operation's function.")


@meta.frozen
class CustomizationRules:
    """One Lua script per operation; absent operations fall through to the built-ins."""

    retention: LuaScript | None = field(None, doc="Retain(desiredObj, observedObj)")
    replica_resource: LuaScript | None = field(None, doc="GetReplicas(desiredObj)")
    component_resource: LuaScript | None = field(None, doc="GetComponents(desiredObj)")
    replica_revision: LuaScript | None = field(
        None, doc="ReviseReplica(desiredObj, desiredReplica)"
    )
    status_reflection: LuaScript | None = field(None, doc="ReflectStatus(observedObj)")
    status_aggregation: LuaScript | None = field(
        None, doc="AggregateStatus(desiredObj, statusItems)"
    )
    health_interpretation: LuaScript | None = field(None, doc="InterpretHealth(observedObj)")
    dependency_interpretation: LuaScript | None = field(None, doc="GetDependencies(desiredObj)")


@meta.frozen
class ResourceInterpreterCustomizationSpec:
    """Target kind and its scripts."""

    target: CustomizationTarget = field(doc="The kind these scripts interpret.")
    customizations: CustomizationRules = field(doc="One script per operation.")


@meta.frozen
class ResourceInterpreterCustomization(meta.ApiObject):
    """Lua scripts that teach the interpreter a kind."""

    API_VERSION = API_VERSION
    KIND = "ResourceInterpreterCustomization"
    metadata: meta.ObjectMeta = field()
    spec: ResourceInterpreterCustomizationSpec = field()
    origin: Origin = meta.origin_field()


@meta.frozen
class DependentObjectReference:
    """A dependency a resource interpreter reports (by name, or by label selector)."""

    api_version: str = field()
    kind: str = field()
    namespace: str = field("")
    name: str = field("")
    label_selector: meta.LabelSelector | None = field(None)
