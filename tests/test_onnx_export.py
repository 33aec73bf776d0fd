"""``softlearning export --format onnx``: the ONNX graph of each network kind
(MLP, SimBa, SimbaV2, normalized MLP; Gaussian, deterministic and sampling
policies) acts as the numpy policy does, deterministically, under
onnxruntime; the command writes it from a real checkpoint without
TensorFlow; recurrent and pixel checkpoints, and a missing onnx package,
are one clear error."""

import json
import os
import shutil
import sys

import numpy as np
import pytest

from checkpoint_helpers import make_runner, tiny_variant
from conftest import TENSORFLOW_IMPORTED, assert_one_line_error

onnx = pytest.importorskip('onnx')
ort = pytest.importorskip('onnxruntime')

from softlearning.models.networks import NORMALIZING_NETWORKS  # noqa: E402
from softlearning.policies import (NumpyDeterministicPolicy,  # noqa: E402
                                   NumpyGaussianPolicy, NumpySamplingPolicy)
from softlearning.policies.onnx_export import (  # noqa: E402
    INPUT_NAME, METADATA_FILE, MODEL_FILE, ONNX_MISSING, OUTPUT_NAME,
    onnx_refusal, policy_graph)
from softlearning.utils import checkpoints  # noqa: E402

OBSERVATION_SHAPES = {'position': (3,), 'velocity': (2,), 'unused': (4,)}
# Not the shapes' order: the flat input follows observation_keys.
OBSERVATION_KEYS = ('velocity', 'position')
ACTION_SHAPE = (3,)
ATOL = 1e-5


def trained_looking(policy, seed=0):
    """``policy`` with weights no initializer gives: every array moved
    (normalization statistics included: means off zero, variances off
    one), small enough that most actions stay off tanh's flat tails."""
    rng = np.random.default_rng(seed)
    weights = []
    for w in policy.get_weights():
        w = np.asarray(w, np.float32)
        if w.ndim == 1:
            w = w + rng.normal(scale=0.2, size=w.shape).astype(np.float32)
        elif w.ndim == 2:
            w = w * rng.uniform(0.5, 1.5, size=w.shape).astype(np.float32)
        weights.append(w)
    if policy._network in NORMALIZING_NETWORKS:  # mean, variance (> 0)
        weights[0] = rng.normal(size=weights[0].shape).astype(np.float32)
        weights[1] = rng.uniform(0.2, 5.0, weights[1].shape).astype(
            np.float32)
    policy.set_weights(weights)
    return policy


def flat_observations(batch_size, seed=1):
    size = sum(int(np.prod(OBSERVATION_SHAPES[k])) for k in OBSERVATION_KEYS)
    return np.random.default_rng(seed).normal(
        size=(batch_size, size)).astype(np.float32)


def as_dict(flat):
    """The flat batch split back into the policy's observation fields."""
    sizes = np.cumsum([np.prod(OBSERVATION_SHAPES[k])
                       for k in OBSERVATION_KEYS])[:-1]
    observations = dict(zip(OBSERVATION_KEYS, np.split(flat, sizes, -1)))
    observations['unused'] = np.full((len(flat), 4), np.nan, np.float32)
    return observations


def onnx_actions(model, flat):
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=['CPUExecutionProvider'])
    assert [i.name for i in session.get_inputs()] == [INPUT_NAME]
    return session.run([OUTPUT_NAME], {INPUT_NAME: flat})[0]


CASES = [
    (NumpyGaussianPolicy, {'network': 'mlp'}),
    (NumpyGaussianPolicy, {'network': 'simba'}),
    (NumpyGaussianPolicy, {'network': 'simbav2'}),
    (NumpyGaussianPolicy, {'network': 'mlp', 'activation': 'tanh',
                           'batch_renorm': True}),  # CrossQ's actor
    (NumpyDeterministicPolicy, {'network': 'mlp'}),
    (NumpyDeterministicPolicy, {'network': 'simba'}),
    (NumpyDeterministicPolicy, {'network': 'simbav2'}),
    (NumpySamplingPolicy, {'network': 'mlp'}),
    (NumpySamplingPolicy, {'network': 'simbav2'}),
    (NumpyGaussianPolicy, {'network': 'normalized_mlp'}),  # FastSAC's
    (NumpyDeterministicPolicy, {'network': 'normalized_mlp'}),  # FastTD3's
]


@pytest.mark.parametrize('policy_class, config', CASES, ids=[
    f"{c.__name__[5:-6]}-{k['network']}{'-renorm' * ('batch_renorm' in k)}"
    for c, k in CASES])
def test_onnx_actions_equal_the_numpy_policys_deterministic_actions(
        policy_class, config):
    policy = trained_looking(policy_class(
        OBSERVATION_SHAPES, ACTION_SHAPE, hidden_layer_sizes=(32, 32),
        observation_keys=OBSERVATION_KEYS, seed=0, **config))
    flat = flat_observations(256)
    with policy.set_deterministic():
        expected = policy.actions_np(as_dict(flat))
    # Actions that tell a wrong graph apart: spread, not all saturated.
    assert np.mean(np.abs(expected) < 0.9) > 0.3
    actions = onnx_actions(policy_graph(policy, OBSERVATION_SHAPES), flat)
    assert actions.shape == expected.shape == (256, 3)
    assert actions.dtype == np.float32
    difference = np.abs(actions - expected).max()
    print(f"max |onnx - numpy| {difference:.2e}")
    assert difference <= ATOL


def test_a_batch_of_one_and_an_empty_batch():
    policy = trained_looking(NumpyGaussianPolicy(
        OBSERVATION_SHAPES, ACTION_SHAPE, hidden_layer_sizes=(8,),
        observation_keys=OBSERVATION_KEYS, network='simbav2'))
    model = policy_graph(policy, OBSERVATION_SHAPES)
    with policy.set_deterministic():
        expected = policy.actions_np(as_dict(flat_observations(1)))
    np.testing.assert_allclose(onnx_actions(model, flat_observations(1)),
                               expected, atol=ATOL, rtol=0)
    assert onnx_actions(model, flat_observations(0)).shape == (0, 3)


@pytest.mark.parametrize('class_name, expected', [
    ('RecurrentGaussianPolicy', '--format savedmodel'),
    ('RecurrentDeterministicPolicy', '--format savedmodel'),
    ('UniformPolicy', '--format savedmodel'),
    ('FeedforwardGaussianPolicy', None),
    ('FeedforwardDeterministicPolicy', None),
    ('FeedforwardSamplingPolicy', None)])
def test_onnx_refusal_names_what_works_instead(class_name, expected):
    refusal = onnx_refusal(class_name)
    if expected is None:
        assert refusal is None
    else:
        assert class_name in refusal and expected in refusal
        assert '\n' not in refusal


# End to end, through the command line -----------------------------------

@pytest.fixture(scope='module')
def checkpoint(tmp_path_factory):
    """A checkpoint of a tiny real run (SAC, SimBa networks: the policy's
    running normalization holds the statistics of what it saw)."""
    trial_dir = tmp_path_factory.mktemp('trial')
    runner = make_runner(tiny_variant(
        epochs=1, network='simba',
        # No XLA: compiling the update would take longer than the run.
        config={'algorithm_params.config.jit_compile': False}))
    runner.train()
    path = str(trial_dir / 'checkpoint_000001')
    runner.save_checkpoint(path)
    return path


@pytest.mark.slow
def test_export_onnx_from_a_checkpoint_acts_as_the_numpy_policy(
        cli, checkpoint, tmp_path):
    out = tmp_path / 'exported'
    result = cli('export', checkpoint, out, '--format', 'onnx', timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    assert str(out / MODEL_FILE) in result.stdout
    # Written from the numpy policy: TensorFlow is never imported.
    assert TENSORFLOW_IMPORTED not in result.stderr
    from softlearning.experiments import load_trained_policy
    trained = load_trained_policy(checkpoint)
    environment = trained.environment
    metadata = json.loads((out / METADATA_FILE).read_text())
    model = onnx.load(str(out / MODEL_FILE))
    props = {p.key: json.loads(p.value) for p in model.metadata_props}
    assert props == metadata
    assert metadata['observation_keys'] == list(trained.observation_keys)
    assert metadata['observation_sizes'] == [17]
    assert metadata['network'] == 'simba'
    assert metadata['policy'] == 'FeedforwardGaussianPolicy'
    low, high = environment.action_bounds
    np.testing.assert_array_equal(metadata['action_low'], low)
    np.testing.assert_array_equal(metadata['action_high'], high)
    # The running normalization's statistics moved during the run, and are
    # the graph's.
    mean = trained.policy.get_weights()[0]
    assert np.abs(mean).max() > 1e-3
    flat = np.random.default_rng(0).normal(size=(64, 17)).astype(np.float32)
    with trained.policy.set_deterministic():
        expected = trained.policy.actions_np(
            {trained.observation_keys[0]: flat})
    actions = onnx_actions(model, flat)
    assert np.abs(actions - expected).max() <= ATOL


def _doctored(checkpoint, tmp_path, **changes):
    """A copy of ``checkpoint`` whose variant has ``changes`` (its manifest
    rewritten, so it loads): a recurrent or pixel agent's checkpoint as far
    as export reads one before it refuses."""
    trial_dir = tmp_path / 'trial'
    shutil.copytree(os.path.dirname(checkpoint), trial_dir)
    path = trial_dir / os.path.basename(checkpoint)
    manifest = checkpoints.read_manifest(str(path))
    variant = checkpoints.read_variant(str(path))
    for key, value in changes.items():
        section, _, name = key.partition('.')
        if name:
            variant[section][name] = value
        else:
            variant[section] = value
    (path / checkpoints.VARIANT_FILE).write_text(json.dumps(variant))
    checkpoints.write_manifest(
        str(path), manifest['replay_pool_pieces'],
        {k: v for k, v in manifest.items()
         if k not in ('format', 'files', 'sha256', 'replay_pool_pieces')})
    return str(path)


@pytest.mark.slow
def test_recurrent_and_pixel_checkpoints_are_refused_in_one_line(
        cli, checkpoint, tmp_path):
    recurrent = _doctored(checkpoint, tmp_path / 'recurrent', **{
        'policy_params.class_name': 'RecurrentGaussianPolicy'})
    pixel = _doctored(checkpoint, tmp_path / 'pixel', encoder_params={
        'class_name': 'ConvEncoder', 'config': {}})
    result = cli('export', recurrent, tmp_path / 'out', '--format', 'onnx')
    assert_one_line_error(result, 'recurrent (RecurrentGaussianPolicy)')
    assert '--format savedmodel' in result.stderr
    result = cli('export', pixel, tmp_path / 'out', '--format', 'onnx')
    assert_one_line_error(result, 'pixel-based agent')
    assert "'softlearning simulate'" in result.stderr
    assert not (tmp_path / 'out').exists()


@pytest.mark.slow
def test_missing_onnx_is_one_clear_error(checkpoint, tmp_path, monkeypatch):
    from softlearning.experiments import ExperimentError
    from softlearning.experiments.trial.simulate import export
    monkeypatch.setitem(sys.modules, 'onnx', None)  # import onnx fails
    with pytest.raises(ExperimentError) as error:
        export(checkpoint, str(tmp_path / 'out'), format='onnx')
    assert str(error.value) == ONNX_MISSING
    assert not (tmp_path / 'out').exists()
