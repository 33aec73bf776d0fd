"""Joining a running Ray cluster (run_example_cluster).

    connect(address)                  ray.init on the cluster, or one clear
                                      error within seconds
    check_storage_reachable(root)     results root visible to every node
"""

import os
import socket
import uuid

from softlearning.experiments.errors import ExperimentError
from softlearning.utils import storage

CONNECT_TIMEOUT_S = 5


def _host_port(address):
    host, _, port = address.rpartition(':')
    try:
        return host, int(port)
    except ValueError:
        raise ExperimentError(
            f"--address '{address}' is not HOST:PORT (e.g. "
            "127.0.0.1:6379).") from None


def _token_available():
    """A Ray token this machine can authenticate with."""
    if os.environ.get('RAY_AUTH_TOKEN'):
        return True
    path = os.environ.get('RAY_AUTH_TOKEN_PATH') or os.path.join(
        os.path.expanduser('~'), '.ray', 'auth_token')
    return os.path.isfile(path)


def _use_token():
    """Token authentication for this driver (and the processes it starts),
    as Ray's own ``ray.init('auto')`` turns it on: the mode is read when
    Ray's configuration initializes, so through Ray's helper."""
    from softlearning.utils import ray_compat
    ray_compat.enable_token_auth_if_available()


def _find_local_cluster():
    """The address of the cluster this machine belongs to: the one the last
    ``ray start`` here wrote down (where Ray's ``address='auto'`` looks
    first), or one clear error at once."""
    from softlearning.utils import ray_compat
    address = ray_compat.read_ray_address()
    if not address:
        raise ExperimentError(
            "No running Ray cluster found on this machine (no `ray start` "
            "here): start one with `ray start --head`, or pass --address "
            "HOST:PORT (or set RAY_ADDRESS).")
    return address


def _check_listening(address, given):
    """Fails within CONNECT_TIMEOUT_S when nothing listens at ``address``
    (``ray.init`` itself would retry for long)."""
    host, port = _host_port(address)
    try:
        socket.create_connection((host, port),
                                 timeout=CONNECT_TIMEOUT_S).close()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        where = (f"at {address}" if given
                 else f"at {address}, where this machine's last `ray start` "
                      "left it,")
        raise ExperimentError(
            f"No Ray cluster answers {where} ({reason}): start one with `ray "
            f"start --head --port {port}`, or pass the head's --address."
        ) from None
    return host


def connect(address=None):
    """``ray.init`` on a running cluster: ``address`` (HOST:PORT), else
    RAY_ADDRESS, else the cluster this machine belongs to; a cluster that is
    not there is one clear error within seconds.

    With a token at hand (~/.ray/auth_token, RAY_AUTH_TOKEN) and
    RAY_AUTH_MODE unset, the driver authenticates with it: Ray's driver
    does that by itself only for ``address='auto'``.
    """
    import ray
    given = address or os.environ.get('RAY_ADDRESS')
    if given and given.startswith('ray://'):
        ray.init(address=given, logging_level='WARNING')
        return
    address = given if given and given != 'auto' else _find_local_cluster()
    host = _check_listening(address, given=bool(given))
    options = {}
    if 'RAY_AUTH_MODE' not in os.environ and _token_available():
        _use_token()
    if host in ('127.0.0.1', 'localhost'):
        # A cluster on loopback: this machine, reached on loopback too (Ray
        # would otherwise look for its raylet at the machine's outward
        # address).
        options['_node_ip_address'] = '127.0.0.1'
    try:
        ray.init(address=address, logging_level='WARNING', **options)
    except ConnectionError as error:
        raise ExperimentError(
            f"Cannot join the Ray cluster at {address}: "
            f"{str(error).splitlines()[0]}") from None


def check_storage_reachable(root):
    """On a multi-node cluster, a results folder must be one that every node
    sees (a shared file system), or a URI. Writes a marker here and asks a
    task on every node whether it sees it."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    if storage.is_uri(root):
        return  # checked for writing before Ray started
    nodes = [node for node in ray.nodes() if node['Alive']]
    if len(nodes) < 2:
        return
    root = storage.normalize(root)
    os.makedirs(root, exist_ok=True)
    marker = os.path.join(root, f'.softlearning-shared-{uuid.uuid4().hex}')
    with open(marker, 'w') as f:
        f.write('ok')

    @ray.remote(num_cpus=0)
    def sees(path):
        return os.path.exists(path)

    try:
        checks = {node['NodeManagerAddress'] + ' ' + node['NodeID'][:8]:
                  sees.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                      node['NodeID'], soft=False)).remote(marker)
                  for node in nodes}
        ready, _ = ray.wait(list(checks.values()), num_returns=len(checks),
                            timeout=60)
        blind = [name for name, reference in checks.items()
                 if reference not in ready or not ray.get(reference)]
    finally:
        os.remove(marker)
    if blind:
        raise ExperimentError(
            f"The results folder '{root}' is not visible from the cluster's "
            f"node(s) {', '.join(blind)}: use a folder on a file system "
            "every node shares, or a URI (--upload-dir s3://... or "
            "gs://...).")
