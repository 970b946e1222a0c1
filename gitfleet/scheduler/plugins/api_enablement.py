"""APIEnablement filter: the cluster must serve the resource's kind
(Karmada: pkg/scheduler/framework/plugins/apienablement/api_enablement.go,
pkg/apis/cluster/v1alpha1/cluster_helper.go Cluster.APIEnablement).

A cluster already in the result always passes, so losing an API (e.g. a CRD deleted by
accident) never removes what runs there. Otherwise the kind must be listed under its
group/version in `status.apiEnablements`; when it is not listed the answer is "disabled" if
the list is complete and "unknown" if not, and both fail.
"""

from __future__ import annotations

from collections.abc import Hashable

from gitfleet.scheduler import framework

NAME = "APIEnablement"
REASON = "cluster(s) did not have the API resource"


def group_version(api_version: str) -> str:
    """The group/version text Kubernetes derives from an apiVersion (apimachinery
    schema.ParseGroupVersion then GroupVersion.String); an unparsable one gives ""."""
    if api_version in ("", "/"):
        return ""
    if api_version.count("/") > 1:
        return ""
    group, _, version = api_version.rpartition("/")
    return f"{group}/{version}" if group else version


class APIEnablement:
    """Passes clusters that serve the binding's kind."""

    NAME = NAME

    def filter(
        self, spec: framework.Spec, status: framework.Status, info: framework.ClusterInfo
    ) -> framework.Result:
        if info.name in framework.target_names(spec):
            return framework.SUCCESS
        key = (group_version(spec.resource.api_version), spec.resource.kind)
        if key in info.enabled_apis:
            return framework.SUCCESS
        return framework.unschedulable(REASON)

    def verdict_key(self, spec: framework.Spec, status: framework.Status) -> Hashable:
        return (group_version(spec.resource.api_version), spec.resource.kind)


def new() -> APIEnablement:
    return APIEnablement()
