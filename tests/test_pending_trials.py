"""softlearning/experiments/tune/pending_trials.py without a cluster: whether a trial's bundles
fit the alive nodes, the messages, how the autoscaler's status is read, and
when the callback ends a run. (tests/test_cluster.py runs it on a real
2-node cluster that loses a node.)"""

import json

import pytest
import ray
from ray import tune

from softlearning.experiments.tune import pending_trials
from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.tune.pending_trials import (
    PendingTrials, autoscaler_may_add_nodes, describe_nodes, describe_request,
    fits)

TRIAL = [{'CPU': 1}, {'CPU': 0.25}, {'CPU': 0.25}]  # trainer + 2 samplers


@pytest.mark.parametrize('bundles, strategy, nodes, expected', [
    # The lost-node case: 1.5 CPU over two 1-CPU nodes, not on one.
    (TRIAL, 'PACK', [{'CPU': 1}, {'CPU': 1}], True),
    (TRIAL, 'PACK', [{'CPU': 1}], False),
    (TRIAL, 'PACK', [{'CPU': 2}], True),
    (TRIAL, 'SPREAD', [{'CPU': 1}, {'CPU': 1}], True),
    # Each bundle must fit on one node, whatever the total.
    ([{'CPU': 2}], 'PACK', [{'CPU': 1}, {'CPU': 1}], False),
    # Within the total, and each bundle fits a node, yet no placement.
    ([{'CPU': 0.6}] * 3, 'PACK', [{'CPU': 1}, {'CPU': 1}], False),
    ([{'CPU': 0.6}] * 3, 'PACK', [{'CPU': 1}, {'CPU': 1}, {'CPU': 0.6}],
     True),
    (TRIAL, 'STRICT_PACK', [{'CPU': 1}, {'CPU': 1}], False),
    (TRIAL, 'STRICT_PACK', [{'CPU': 1}, {'CPU': 1.5}], True),
    ([{'CPU': 0.25}] * 3, 'STRICT_SPREAD', [{'CPU': 1}, {'CPU': 1}], False),
    ([{'CPU': 0.25}] * 3, 'STRICT_SPREAD', [{'CPU': 1}] * 3, True),
    # Other resources count; zero amounts do not.
    ([{'CPU': 1, 'GPU': 1}], 'PACK', [{'CPU': 4}], False),
    ([{'CPU': 1, 'GPU': 0}], 'PACK', [{'CPU': 1}], True),
    ([{'CPU': 1}, {'CPU': 1, 'GPU': 1}], 'PACK',
     [{'CPU': 1, 'GPU': 1}, {'CPU': 1}], True),
    ([{'CPU': 1, 'GPU': 1}, {'CPU': 1, 'GPU': 1}], 'PACK',
     [{'CPU': 2, 'GPU': 1}, {'CPU': 2}], False),
    # Sums of fractions: Ray's resolution, not float rounding.
    ([{'CPU': 0.1}] * 10, 'PACK', [{'CPU': 1.0}], True),
    (TRIAL, 'PACK', [], False),
])
def test_fits(bundles, strategy, nodes, expected):
    assert fits(bundles, strategy, nodes) is expected


def test_too_many_placements_to_try_count_as_fitting(monkeypatch):
    """The check may let a run wait, never end one that could go on."""
    monkeypatch.setattr(pending_trials, 'MAX_PLACEMENT_STEPS', 1)
    assert fits([{'CPU': 0.6}] * 3, 'PACK', [{'CPU': 1}, {'CPU': 1}])


def test_descriptions():
    assert describe_request(TRIAL) == (
        '1 CPU trainer + 2 x 0.25 CPU sampler actors (1.5 CPU in all)')
    assert describe_request([{'CPU': 2}]) == '2 CPU trainer'
    assert describe_request([{'CPU': 1, 'GPU': 1}, {'CPU': 0.5}]) == (
        '(1 CPU, 1 GPU) trainer + 1 x 0.5 CPU sampler actor (1.5 CPU, 1 '
        'GPU in all)')
    assert describe_request(TRIAL, 'STRICT_PACK') == (
        '1 CPU trainer + 2 x 0.25 CPU sampler actors (1.5 CPU in all, on '
        'one node)')
    nodes = [('127.0.0.1 1a2b3c4d', {'CPU': 1.0, 'memory': 1e9})]
    assert describe_nodes(nodes, ['CPU'], lost=['127.0.0.1 5e6f7a8b']) == (
        '1 CPU in all: 127.0.0.1 1a2b3c4d with 1 CPU; lost: 127.0.0.1 '
        '5e6f7a8b')
    assert describe_nodes([], ['CPU']) == '0 CPU in all: no node'
    gpus = [(f'10.0.0.{i}', {'CPU': 8.0, 'GPU': 1.0}) for i in range(8)]
    assert describe_nodes(gpus, ['CPU', 'GPU']) == (
        '64 CPU, 8 GPU in all: 10.0.0.0 with 8 CPU, 1 GPU; 10.0.0.1 with 8 '
        'CPU, 1 GPU; 10.0.0.2 with 8 CPU, 1 GPU; 10.0.0.3 with 8 CPU, 1 GPU; '
        '10.0.0.4 with 8 CPU, 1 GPU; 10.0.0.5 with 8 CPU, 1 GPU; and 2 more')


NODE_ID = 'ab' * 28


def _status(node_types):
    return json.dumps({'autoscaler_report': {
        'active_nodes': {node_type: 1 for node_type in node_types},
        'pending_launches': {}, 'node_type_mapping': {
            NODE_ID: node_type for node_type in node_types}}}).encode()


@pytest.mark.parametrize('status, expected', [
    # `ray start --head` without an autoscaling config: the read-only
    # provider names each node's type after the node.
    (_status([f'node_{NODE_ID}']), False),
    # An autoscaling config's node types (ray up, fake_multinode, KubeRay).
    (_status(['ray.head.default']), True),
    (_status([f'node_{NODE_ID}', 'ray.worker.cpu']), True),
    # Nothing known (no monitor, autoscaler v2, not published yet, or
    # published before the monitor had the nodes' load metrics).
    (None, True),
    (json.dumps({'load_metrics_report': {}}).encode(), True),
])
def test_autoscaler_status(monkeypatch, status, expected):
    from ray.experimental import internal_kv
    monkeypatch.setattr(internal_kv, '_internal_kv_get', lambda key: status)
    node_table = [{'NodeID': NODE_ID, 'Alive': True}]
    assert autoscaler_may_add_nodes(node_table) is expected


class FakeTrial:
    def __init__(self, name, status, bundles):
        self.name, self.status = name, status
        self.placement_group_factory = tune.PlacementGroupFactory(bundles)

    def __str__(self):
        return self.name


def _node(node_id, cpus, alive=True):
    return {'NodeID': node_id * 56, 'NodeManagerAddress': '127.0.0.1',
            'Alive': alive, 'Resources': {'CPU': cpus, 'memory': 1e9}}


def test_callback_ends_the_run_once_only_unfit_trials_are_left(
        monkeypatch, capsys):
    nodes = [_node('a', 1.0), _node('b', 1.0, alive=False)]
    monkeypatch.setattr(ray, 'nodes', lambda: nodes)
    monkeypatch.setattr(pending_trials, 'autoscaler_may_add_nodes',
                        lambda node_table: False)
    callback = PendingTrials('/results/exp?endpoint=x', wait_s=0,
                             check_every_s=0)
    unfit = FakeTrial('id=unfit', 'PENDING', TRIAL)
    small = FakeTrial('id=small', 'RUNNING', [{'CPU': 1}])
    done = FakeTrial('id=done', 'TERMINATED', TRIAL)

    # Another trial fits and runs: the run goes on, nothing printed.
    callback.on_step_begin(iteration=0, trials=[unfit, small, done])
    callback.on_step_begin(iteration=1, trials=[unfit, small, done])
    assert capsys.readouterr().err == ''

    # Only the unfit trial is left: one notice, then the end.
    small.status = 'TERMINATED'
    callback.on_step_begin(iteration=2, trials=[unfit, small, done])
    notice = capsys.readouterr().err
    message = (
        "Trial id=unfit needs 1 CPU trainer + 2 x 0.25 CPU sampler actors "
        "(1.5 CPU in all), more than the cluster's alive nodes can hold (1 "
        "CPU in all: 127.0.0.1 aaaaaaaa with 1 CPU; lost: 127.0.0.1 "
        "bbbbbbbb), and no autoscaler can add a node to this cluster.")
    assert notice.startswith(f'[softlearning] Notice: {message} Waiting 0 s')
    with pytest.raises(ExperimentError) as error:
        callback.on_step_begin(iteration=3, trials=[unfit, small, done])
    assert str(error.value) == (
        f"{message} The run ends after waiting 0 s for a node to join; its "
        "checkpoints are kept: once the cluster has room, resume it with "
        "--restore /results/exp")


def test_callback_waits_for_a_node_to_join(monkeypatch, capsys):
    nodes = [_node('a', 1.0)]
    monkeypatch.setattr(ray, 'nodes', lambda: list(nodes))
    may_add = []
    monkeypatch.setattr(pending_trials, 'autoscaler_may_add_nodes',
                        lambda node_table: bool(may_add))
    monkeypatch.setenv(pending_trials.WAIT_ENV, '3600')
    callback = PendingTrials('/results/exp', check_every_s=0)
    trials = [FakeTrial('id=a', 'PENDING', TRIAL),
              FakeTrial('id=b', 'PENDING', TRIAL)]
    callback.on_step_begin(iteration=0, trials=trials)
    assert ("Trials id=a, id=b each need 1 CPU trainer + 2 x 0.25 CPU "
            "sampler actors" in capsys.readouterr().err)
    callback.on_step_begin(iteration=1, trials=trials)  # within the wait
    # A node joins: the trials fit again, and the wait starts over.
    nodes.append(_node('c', 1.0))
    callback.on_step_begin(iteration=2, trials=trials)
    assert callback._stuck_since is None
    # With an autoscaler, waiting for a node is normal.
    nodes.pop()
    may_add.append(True)
    callback.on_step_begin(iteration=3, trials=trials)
    assert callback._stuck_since is None and capsys.readouterr().err == ''
