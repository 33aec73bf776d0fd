"""Ends a Tune run whose trials can no longer fit the cluster.

On a cluster of fixed nodes (``ray start`` by hand, a SLURM allocation), a
trial whose trainer plus sampler actors need more than the alive nodes have
(say after a node was lost) would stay PENDING forever, Tune warning once a
minute. ``PendingTrials``, a Tune callback, names such a trial, what it
needs and what the alive nodes have, waits ``wait_s`` seconds (default 120,
or SOFTLEARNING_PENDING_TRIAL_WAIT_S) for a node to (re)join, and then ends
the run with that message (``ExperimentError``: exit code 2). Nothing is
deleted, and Tune's experiment state still shows the trial unfinished, so
``--restore EXPERIMENT_DIR`` resumes it from its last checkpoint once the
cluster has room.

Where an autoscaler may add a node (``ray up``, KubeRay), a trial waiting
for a node is normal and the run is never ended; see
``autoscaler_may_add_nodes``.
"""

import itertools
import json
import os
import sys
import time

from ray.tune import Callback

from softlearning.experiments.errors import ExperimentError

DEFAULT_WAIT_S = 120
WAIT_ENV = 'SOFTLEARNING_PENDING_TRIAL_WAIT_S'
# Ray counts resources in steps of 1/10000.
EPS = 1e-6
# Placements tried before giving up and assuming that a request fits: the
# check may let a run wait, never end one that could go on.
MAX_PLACEMENT_STEPS = 10000


# What fits (pure functions, tested in tests/test_pending_trials.py) -------

def _holds(node, bundle):
    return all(node.get(key, 0) + EPS >= amount
               for key, amount in bundle.items() if amount > 0)


def _sum(bundles):
    total = {}
    for bundle in bundles:
        for key, amount in bundle.items():
            total[key] = total.get(key, 0) + amount
    return total


def _place(bundles, free, one_per_node, steps):
    """Whether ``bundles`` go into the nodes' ``free`` resources, trying
    each bundle on each node (nodes with the same free resources once)."""
    if not bundles:
        return True
    steps[0] -= 1
    if steps[0] < 0:
        return True  # too many cases to try: assume it fits
    bundle, tried = bundles[0], set()
    for index, node in enumerate(free):
        key = tuple(sorted(node.items()))
        if key in tried or not _holds(node, bundle):
            continue
        tried.add(key)
        if one_per_node:
            rest = free[:index] + free[index + 1:]
        else:
            left = {k: v - bundle.get(k, 0) for k, v in node.items()}
            rest = free[:index] + [left] + free[index + 1:]
        if _place(bundles[1:], rest, one_per_node, steps):
            return True
    return False


def fits(bundles, strategy, nodes):
    """Whether a placement group of ``bundles`` (resource dicts) with Ray's
    placement ``strategy`` can be placed on nodes of these total resources
    (a list of resource dicts), all other trials gone: under STRICT_PACK all
    bundles on one node, under STRICT_SPREAD each on its own node, under
    PACK (Tune's default) and SPREAD anywhere (both only prefer)."""
    bundles = [{k: v for k, v in b.items() if v > 0} for b in bundles]
    bundles.sort(key=lambda b: -sum(b.values()))  # the largest fail first
    if strategy == 'STRICT_PACK':
        return any(_holds(node, _sum(bundles)) for node in nodes)
    # Every bundle on some node, and all of them within the cluster's total
    # (quick answers), then a placement of each bundle.
    if not all(any(_holds(node, b) for node in nodes) for b in bundles):
        return False
    if not _holds(_sum(nodes), _sum(bundles)):
        return False
    return _place(bundles, [dict(node) for node in nodes],
                  strategy == 'STRICT_SPREAD', [MAX_PLACEMENT_STEPS])


# Messages ----------------------------------------------------------------

def _amounts(resources, keys=None):
    keys = keys or [k for k, v in resources.items() if v > 0]
    return ', '.join(f'{resources.get(k, 0):g} {k}' for k in keys)


def _label(bundle):
    """'1 CPU' or '(1 CPU, 1 GPU)', before the name of what gets it."""
    text = _amounts(bundle)
    return f'({text})' if ',' in text else text


def describe_request(bundles, strategy='PACK'):
    """'1 CPU trainer + 2 x 0.25 CPU sampler actors (1.5 CPU in all)': the
    trial's first bundle is its trainer's, each further one a sampler
    actor's (resources.py, trial_resources)."""
    parts = [f'{_label(bundles[0])} trainer']
    for _, group in itertools.groupby(bundles[1:],
                                      key=lambda b: sorted(b.items())):
        group = list(group)
        parts.append(f'{len(group)} x {_label(group[0])} sampler actor'
                     + ('s' if len(group) > 1 else ''))
    where = {'STRICT_PACK': ', on one node',
             'STRICT_SPREAD': ', each on its own node'}.get(strategy, '')
    if len(bundles) > 1 or where:
        return (f"{' + '.join(parts)} ({_amounts(_sum(bundles))} in "
                f"all{where})")
    return parts[0]


def _names(names, separator=', ', shown=6):
    more = (f'{separator}and {len(names) - shown} more'
            if len(names) > shown else '')
    return separator.join(names[:shown]) + more


def describe_nodes(nodes, keys, lost=()):
    """'1 CPU in all: 127.0.0.1 1a2b3c4d with 1 CPU; lost: 127.0.0.1
    5e6f7a8b' for [(name, resources)] of the alive nodes, counting the
    resources ``keys``, and the names of the ``lost`` ones."""
    total = _amounts(_sum([resources for _, resources in nodes]), keys)
    each = _names([f'{name} with {_amounts(resources, keys)}'
                   for name, resources in nodes], '; ') or 'no node'
    return f"{total} in all: {each}" + (f"; lost: {_names(lost)}"
                                        if lost else '')


# The cluster ---------------------------------------------------------------

def autoscaler_report():
    """The autoscaler's part of the status Ray's monitor publishes, or None
    before the monitor has one (its first statuses, written before any
    node's load metrics arrived, have none)."""
    from softlearning.utils import ray_compat
    status = ray_compat.autoscaling_status()
    return json.loads(status).get('autoscaler_report') if status else None


def autoscaler_may_add_nodes(node_table):
    """False only where Ray's own status shows that no autoscaler can add a
    node. Every head node runs Ray's monitor, which (autoscaler v1, Ray
    2.60's default) publishes its status in the GCS key-value store
    (ray_constants.DEBUG_AUTOSCALING_STATUS, what `ray status` prints).
    Started without an autoscaling config (`ray start --head` by hand,
    ``ray.init()``), the monitor runs a read-only provider that only mirrors
    the running nodes, naming each node's type ``node_<node id>``
    (autoscaler/_private/monitor.py, readonly/node_provider.py,
    util.format_readonly_node_type); a provider that launches nodes (`ray
    up`, KubeRay, fake_multinode) reports the node types of its config.
    No report (not published yet, published before the monitor has the
    nodes' load metrics, ``--no-monitor``, or autoscaler v2, whose status
    names the head of an autoscaling cluster ``node_<node id>`` too) counts
    as "may add nodes": the run is then never ended."""
    from softlearning.utils.ray_compat import format_readonly_node_type
    report = autoscaler_report()
    if not report:
        return True
    node_types = (set((report.get('node_type_mapping') or {}).values())
                  | set(report.get('active_nodes') or {})
                  | set(report.get('pending_launches') or {}))
    read_only = {format_readonly_node_type(node['NodeID'])
                 for node in node_table}
    return not node_types or not node_types <= read_only


def _node_name(node):
    return f"{node['NodeManagerAddress']} {node['NodeID'][:8]}"


def alive_nodes(node_table):
    """[(name, total resources)] of the alive nodes in ``ray.nodes()``."""
    return [(_node_name(node), node['Resources'])
            for node in node_table if node['Alive']]


# The callback --------------------------------------------------------------

class PendingTrials(Callback):
    """Ends the run when, for ``wait_s`` seconds, no unfinished trial can
    fit the alive nodes and no autoscaler can add one.

    A trial counts whether PENDING (waiting for its placement group),
    PAUSED, or RUNNING: a running trial that lost a node holding some of its
    bundles waits for them forever (its sampler actors cannot be started
    again). The run goes on while some unfinished trial still fits: it ends
    once only those that do not are left.
    """

    def __init__(self, experiment_dir, wait_s=None, check_every_s=5):
        self.experiment_dir = experiment_dir.split('?')[0]  # no URI query
        self.wait_s = wait_s
        self.check_every_s = check_every_s
        self._last_check = 0
        self._stuck_since = None

    def _wait_s(self):
        if self.wait_s is not None:
            return self.wait_s
        return float(os.environ.get(WAIT_ENV, DEFAULT_WAIT_S))

    def on_step_begin(self, iteration, trials, **info):
        now = time.monotonic()
        if now - self._last_check < self.check_every_s:
            return
        self._last_check = now
        message = self._stuck_message(trials)
        if message is None:
            self._stuck_since = None
            return
        wait = self._wait_s()
        if self._stuck_since is None:
            self._stuck_since = now
            print(f"[softlearning] Notice: {message} Waiting {wait:g} s for "
                  "a node to join; then the run ends, its checkpoints kept.",
                  file=sys.stderr, flush=True)
        elif now - self._stuck_since >= wait:
            raise ExperimentError(
                f"{message} The run ends after waiting {wait:g} s for a node "
                "to join; its checkpoints are kept: once the cluster has "
                f"room, resume it with --restore {self.experiment_dir}")

    def _stuck_message(self, trials):
        """The message naming the trials that cannot fit, when no
        unfinished trial fits and no autoscaler can add a node; else
        None."""
        import ray
        unfinished = [trial for trial in trials
                      if trial.status in ('PENDING', 'PAUSED', 'RUNNING')]
        if not unfinished:
            return None
        node_table = ray.nodes()
        nodes = alive_nodes(node_table)
        requests = [trial.placement_group_factory for trial in unfinished]
        if any(fits(request.bundles, request.strategy,
                    [resources for _, resources in nodes])
               for request in requests):
            return None
        if autoscaler_may_add_nodes(node_table):
            return None
        needs = {}
        for trial, request in sorted(zip(unfinished, requests),
                                     key=lambda pair: str(pair[0])):
            needs.setdefault(
                describe_request(request.bundles, request.strategy),
                []).append(str(trial))
        keys = sorted({key for request in requests
                       for key in request.required_resources})
        sentences = [
            (f"Trial {names[0]} needs {need}" if len(names) == 1 else
             f"Trials {', '.join(names)} each need {need}")
            for need, names in needs.items()]
        lost = [_node_name(node) for node in node_table if not node['Alive']]
        return (f"{'; '.join(sentences)}, more than the cluster's alive "
                f"nodes can hold ({describe_nodes(nodes, keys, lost)}), and "
                "no autoscaler can add a node to this cluster.")
