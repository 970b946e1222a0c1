"""The deployment manifests' tests apply them to a simulated cluster."""

from simfixture import make_sim_cluster_fixture, sim_cluster_fixture

__all__ = ["make_sim_cluster_fixture", "sim_cluster_fixture"]
