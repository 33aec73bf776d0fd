"""Checkpoints: exact round trips, incremental replay pools, bit-identical
resumption, and clear errors for bad checkpoints."""

import copy
import os

import numpy as np
import pytest

from conftest import assert_one_line_error
from checkpoint_helpers import make_runner, tiny_args, tiny_variant
from softlearning.replay_pools import SimpleReplayPool
from softlearning.utils import checkpoints


def _tf_values(runner):
    """Every TensorFlow variable the checkpoint holds, by path."""
    import tensorflow as tf
    values = {}
    for name, saveable in runner.algorithm.tf_saveables().items():
        variables = (saveable.variables if hasattr(saveable, 'variables')
                     else [saveable])
        if isinstance(saveable, tf.random.Generator):
            variables = [saveable.state]
        for i, variable in enumerate(variables):
            values[f'{name}/{i}'] = np.array(variable)
    return values


def _assert_same_pool(a, b):
    assert (a.size, a.total_samples, a._pointer) == (
        b.size, b.total_samples, b._pointer)
    for (path, x), (_, y) in zip(a._flat_data, b._flat_data):
        np.testing.assert_array_equal(x[:a.size], y[:b.size], err_msg=path)


def _fill(pool, rng, count):
    for _ in range(count):
        pool.add_sample({'observations': rng.normal(size=3)},
                        rng.uniform(-1, 1, 2), rng.normal(), rng.random() < .1,
                        {'observations': rng.normal(size=3)})


@pytest.mark.parametrize('increments', [(7, 5, 9), (30, 25, 60, 3)])
def test_incremental_pool_pieces_restore_same_transitions(increments):
    """Pieces saved after each increment rebuild the ring buffer exactly,
    also when it wraps around (and when one increment exceeds capacity)."""
    rng = np.random.default_rng(0)
    pool = SimpleReplayPool({'observations': (3,)}, (2,), max_size=50, seed=1)
    pieces, mark = [], 0
    for count in increments:
        _fill(pool, rng, count)
        piece = pool.experience_since(mark)
        assert piece['end_total'] - piece['start_total'] == count
        assert len(piece['samples']['actions']) == min(count, pool.size)
        pieces.append(piece)
        mark = pool.total_samples
    restored = SimpleReplayPool({'observations': (3,)}, (2,), max_size=50,
                                seed=2)
    for piece in pieces:
        restored.add_experience(piece)
    restored.set_state(pool.get_state())
    _assert_same_pool(pool, restored)
    np.testing.assert_array_equal(pool.random_indices(20),
                                  restored.random_indices(20))


def test_pool_piece_out_of_order_is_refused():
    rng = np.random.default_rng(0)
    pool = SimpleReplayPool({'observations': (3,)}, (2,), max_size=50)
    _fill(pool, rng, 5)
    first = pool.experience_since(0)
    _fill(pool, rng, 5)
    second = pool.experience_since(5)
    restored = SimpleReplayPool({'observations': (3,)}, (2,), max_size=50)
    restored.add_experience(first)
    restored.add_experience(second)
    with pytest.raises(ValueError, match='pieces are missing'):
        restored.add_experience(second)


@pytest.fixture(scope='module')
def trained(tmp_path_factory):
    """A runner after two epochs with checkpoints after epochs 1 and 2, and
    its diagnostics of epoch 3 (the uninterrupted run)."""
    trial_dir = tmp_path_factory.mktemp('trial')
    variant = tiny_variant()
    runner = make_runner(variant)
    runner.train()
    runner.save_checkpoint(str(trial_dir / 'checkpoint_000001'))
    runner.train()
    checkpoint = str(trial_dir / 'checkpoint_000002')
    runner.save_checkpoint(checkpoint)
    saved = {'tf': _tf_values(runner), 'pool': copy.deepcopy(runner.pool),
             'algorithm': runner.algorithm.get_state(),
             'policy_rng': runner.policy.get_np_random_state()}
    epoch3 = runner.train()
    return variant, checkpoint, saved, epoch3, runner


def test_a_runner_built_outside_tune_leaves_no_empty_results_folder(trained):
    """Ray's dated folder under ~/ray_results for a Trainable made outside
    Tune (debug mode, throughput benchmarks) is removed: nothing writes
    to it."""
    runner = trained[-1]
    assert runner.logdir and not os.path.exists(runner.logdir)


def test_round_trip_restores_weights_optimizer_slots_and_counters(trained):
    variant, checkpoint, saved, _, _ = trained
    restored = make_runner(variant)
    before = _tf_values(restored)
    restored.load_checkpoint(checkpoint)
    after = _tf_values(restored)
    assert set(after) == set(saved['tf'])
    # The optimizer state is really there (Adam moments are non-zero).
    assert any(k.startswith('Q_optimizer/') and np.any(v != 0)
               and v.ndim == 2 for k, v in after.items())
    changed = [k for k in after if not np.array_equal(before[k], after[k])]
    assert changed, 'loading changed nothing'
    for key, value in saved['tf'].items():
        np.testing.assert_array_equal(after[key], value, err_msg=key)
    assert restored.algorithm.get_state() == saved['algorithm']
    assert saved['algorithm']['epoch'] == 2
    assert saved['algorithm']['total_timestep'] == 200
    assert saved['algorithm']['num_train_steps'] > 0
    assert restored.policy.get_np_random_state() == saved['policy_rng']
    _assert_same_pool(saved['pool'], restored.pool)


def test_each_checkpoint_stores_only_new_experience(trained):
    _, checkpoint, _, _, _ = trained
    manifest = checkpoints.read_manifest(checkpoint)
    pieces = list(checkpoints.read_pool_pieces(checkpoint, manifest))
    assert [(p['start_total'], p['end_total']) for p in pieces] == [
        (0, 100), (100, 200)]
    assert [len(p['samples']['actions']) for p in pieces] == [100, 100]


def test_resumed_run_matches_uninterrupted_run(trained):
    """Epoch 3 after a restore equals epoch 3 of the run that never
    stopped: same environment steps (MuJoCo state mid-episode), same
    minibatches, same update noise. Compared exactly (no tolerance)."""
    variant, checkpoint, _, expected, _ = trained
    restored = make_runner(variant)
    restored.load_checkpoint(checkpoint)
    result = restored.train()
    assert result['epoch'] == 3 and result['total_timestep'] == 300
    for key in ('Q_loss', 'policy_loss', 'alpha', 'entropy', 'Q_value-mean'):
        assert result[key] == expected[key], key
    assert result['training'] == expected['training']
    assert result['evaluation'] == expected['evaluation']
    assert result['policy'] == expected['policy']


def test_new_trial_from_foreign_checkpoint_writes_a_base_piece(trained,
                                                                tmp_path):
    variant, checkpoint, _, _, _ = trained
    variant = {**variant,
               'run_params': {**variant['run_params'], 'restore': checkpoint}}
    runner = make_runner(variant)
    assert runner.algorithm.epoch == 2
    new_checkpoint = str(tmp_path / 'checkpoint_000003')
    runner.train()
    runner.save_checkpoint(new_checkpoint)
    manifest = checkpoints.read_manifest(new_checkpoint)
    pieces = list(checkpoints.read_pool_pieces(new_checkpoint, manifest))
    assert [(p['start_total'], p['end_total']) for p in pieces] == [(0, 300)]
    again = make_runner(tiny_variant())
    again.load_checkpoint(new_checkpoint)
    _assert_same_pool(runner.pool, again.pool)


# Bad input ------------------------------------------------------------------

def _restore_cli(cli, path, *extra):
    return cli('run_example_local', 'examples.development',
               *map(str, tiny_args()), '--restore', path, *extra,
               timeout=120)


def _assert_clear_error(result, *fragments):
    for fragment in fragments:
        assert_one_line_error(result, fragment)


def test_restore_missing_path(cli, tmp_path):
    missing = str(tmp_path / 'nowhere')
    _assert_clear_error(_restore_cli(cli, missing), missing, 'does not exist')


def test_restore_folder_without_checkpoint(cli, tmp_path):
    _assert_clear_error(_restore_cli(cli, str(tmp_path)), str(tmp_path),
                        'no complete checkpoint')


def test_restore_incompatible_network(cli, trained):
    _, checkpoint, _, _, _ = trained
    result = _restore_cli(
        cli, checkpoint,
        '--config', 'policy_params.config.hidden_layer_sizes=[64,64]')
    _assert_clear_error(result, checkpoint, 'policy_params', '64')


def test_restore_incompatible_environment(cli, trained):
    _, checkpoint, _, _, _ = trained
    result = cli('run_example_local', 'examples.development',
                 '--domain', 'Hopper', '--task', 'v5', '--restore',
                 checkpoint, timeout=120)
    _assert_clear_error(result, checkpoint, 'domain', 'Hopper')


def test_restore_truncated_checkpoint(cli, trained, tmp_path):
    import shutil
    _, checkpoint, _, _, _ = trained
    trial = tmp_path / 'trial'
    shutil.copytree(os.path.dirname(checkpoint), trial)
    copy = str(trial / os.path.basename(checkpoint))
    state = os.path.join(copy, checkpoints.STATE_FILE)
    with open(state, 'r+b') as f:
        f.truncate(os.path.getsize(state) // 2)
    _assert_clear_error(_restore_cli(cli, copy), state, 'truncated')
