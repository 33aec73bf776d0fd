"""The environment-parameter curriculum: schedule arithmetic, values in the
physics of every sampler actor, checkpoints, bad input. A CLI run with a
curriculum and sampler actors: test_sac_family_end_to_end.py."""

import json
import math
import os

import numpy as np
import pytest
import ray

from conftest import assert_one_line_error, run_cli
from softlearning import curriculum, environments, policies, replay_pools
from softlearning import samplers
from softlearning.utils import local_ray

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED_EXAMPLE = {"mass": {"iters": [0, 20, 30, 40, 50], "range": [0.0, 10.0]},
                "friction": {"iters": [50, 60, 70, 90, 120],
                             "range": [0.1, 0.5]}}


def test_schedule_of_the_seed_example():
    schedule = curriculum.Curriculum(SEED_EXAMPLE)
    expected_mass = {0: 0.0, 19: 0.0, 20: 2.5, 29: 2.5, 30: 5.0, 40: 7.5,
                     50: 10.0, 200: 10.0}
    changes, values = {}, {}
    for iteration in range(201):
        changes[iteration] = schedule.advance(iteration)
        values[iteration] = schedule.values()
    for iteration, mass in expected_mass.items():
        assert values[iteration]['mass'] == mass
    # Friction keeps the constructor value (NaN, nothing pushed) until 50.
    assert all(math.isnan(values[i]['friction']) for i in range(50))
    assert all('friction' not in changes[i] for i in range(50))
    friction = {50: 0.1, 59: 0.1, 60: 0.2, 70: 0.3, 89: 0.3, 90: 0.4,
                120: 0.5, 200: 0.5}
    for iteration, value in friction.items():
        assert values[iteration]['friction'] == pytest.approx(value)
    # Only iterations where an entry is consumed push anything.
    pushed = {i: sorted(c) for i, c in changes.items() if c}
    assert pushed == {0: ['mass'], 20: ['mass'], 30: ['mass'], 40: ['mass'],
                      50: ['friction', 'mass'], 60: ['friction'],
                      70: ['friction'], 90: ['friction'], 120: ['friction']}


def test_late_start_consumes_every_due_entry():
    """A schedule first advanced at 45 applies the last due value (7.5)."""
    schedule = curriculum.Curriculum(SEED_EXAMPLE)
    assert schedule.advance(45) == {'mass': 7.5}


def test_state_round_trip_continues_the_schedule():
    schedule = curriculum.Curriculum(SEED_EXAMPLE)
    for iteration in range(65):
        schedule.advance(iteration)
    state = json.loads(json.dumps(schedule.get_state()))
    restored = curriculum.Curriculum(SEED_EXAMPLE)
    restored.set_state(state)
    assert restored.values() == schedule.values()
    assert restored.advance(65) == {}  # nothing re-consumed
    assert restored.advance(70) == schedule.advance(70) == {
        'friction': pytest.approx(0.3)}
    with pytest.raises(ValueError, match='curriculum has'):
        restored.set_state({'mass': 1})


@pytest.mark.parametrize('spec, message', [
    ({"mass": {"iters": [0, 20, 10], "range": [0, 1]}},
     r"'iters' must be strictly increasing, got \[0, 20, 10\]"),
    ({"mass": {"iters": [0, 10], "range": [1]}},
     r"'range' must be two numbers .* got \[1\]"),
    ({"mass": {"iters": [0, 10], "range": ["a", 1]}},
     r"'range' must be two numbers"),
    ({"mass": {"iters": [0, 10]}}, r"missing 'range'"),
    ({"mass": {"iters": [0], "range": [0, 1], "rate": 2}},
     r"unknown key\(s\) 'rate'. Valid choices: iters, range"),
])
def test_malformed_specs_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        curriculum.validate_curriculum_spec(spec)


def test_unknown_parameter_names_the_valid_ones():
    environment = environments.get_environment('gym', 'HalfCheetah', 'v5')
    with pytest.raises(ValueError, match=r"'gravity'.*mass/<name> with "
                                         r"<name> in torso, bthigh"):
        curriculum.validate_for_environment(
            {'gravity': {'iters': [0], 'range': [0, 1]}}, environment)
    curriculum.validate_for_environment(
        {'mass/torso': {'iters': [0], 'range': [0, 1]}}, environment)


def test_randomized_parameter_is_drawn_per_episode():
    environment = environments.get_environment('gym', 'HalfCheetah', 'v5')
    model = environment.unwrapped.model
    nominal = model.body_mass.copy()
    sampler = samplers.SimpleSampler(max_path_length=5, seed=3)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': 100}}, environment)
    policy = policies.get({'class_name': 'UniformPolicy'}, environment)
    sampler.initialize(environment, policy, pool)
    callback = curriculum.get(
        {'mass': {'iters': [0], 'range': [0.3, 0.3], 'randomize': True}},
        sampler)
    callback(None, 0)
    ratios = []
    for _ in range(4):  # four 5-step episodes
        sampler.sample(5)
        ratios.append(model.body_mass[1] / nominal[1])
    assert len(set(ratios)) == 4
    assert all(0.7 <= r <= 1.3 for r in ratios)
    ratios = model.body_mass[1:] / nominal[1:]
    np.testing.assert_allclose(ratios, ratios[0])  # one draw for all bodies


# Values inside each actor's physics ------------------------------------------

@pytest.fixture(scope='module')
def ray_cluster():
    local_ray.start(num_cpus=2, include_dashboard=False, runtime_env={
        # tests/ too: actors unpickle this module's read_physics.
        'env_vars': {'PYTHONPATH': f'{REPO_ROOT}:{REPO_ROOT}/tests',
                     'TF_CPP_MIN_LOG_LEVEL': '2'}})
    yield
    ray.shutdown()


def read_physics(environment, universe, kind, name):
    """The value inside the simulator (not our bookkeeping)."""
    if universe == 'pybullet':
        parameters = environment.physical_parameters
        return parameters.read(kind, name)
    import mujoco
    if universe == 'dm_control':
        model = environment.physics.model.ptr
    else:
        model = environment.unwrapped.model
    if kind == 'mass':
        return float(model.body(name).mass[0])
    if kind == 'friction':
        return float(model.geom(name).friction[0])
    joint = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, name)
    return float(model.dof_damping[model.jnt_dofadr[joint]])


PHYSICS_CASES = [
    ('gym', 'HalfCheetah', 'v5', 'torso', 'bfoot', 'bthigh'),
    ('dm_control', 'cheetah', 'run', 'torso', 'bfoot', 'bthigh'),
    ('pybullet', 'HalfCheetahBulletEnv', 'v0', 'torso', 'bfoot', 'bthigh'),
]


@pytest.mark.slow
@pytest.mark.parametrize('universe, domain, task, body, geom, joint',
                         PHYSICS_CASES)
def test_curriculum_values_reach_every_actor_physics(
        ray_cluster, universe, domain, task, body, geom, joint):
    environment_params = {'universe': universe, 'domain': domain,
                          'task': task, 'kwargs': {}}
    reference = environments.get_environment_from_params(environment_params)
    reference.reset(seed=0)
    nominal = {kind: read_physics(reference, universe, kind, name)
               for kind, name in (('mass', body), ('friction', geom),
                                  ('damping', joint))}
    variant = {
        'environment_params': {'training': environment_params},
        'policy_params': {'class_name': 'FeedforwardGaussianPolicy',
                          'config': {'hidden_layer_sizes': (4,)}},
        'exploration_policy_params': {'class_name': 'UniformPolicy'},
        'sampler_params': {'class_name': 'RemoteSampler', 'config': {
            'max_path_length': 10, 'num_samplers': 2, 'sampler_cpus': 0.5}},
    }
    sampler = samplers.get_from_variant(variant, seed=1)
    pool = replay_pools.get({'class_name': 'SimpleReplayPool',
                             'config': {'max_size': 100}}, reference)
    exploration = policies.get({'class_name': 'UniformPolicy'}, reference)
    sampler.initialize(reference, None, pool)
    spec = {'mass': {'iters': [0, 2], 'range': [1.5, 3.0]},
            f'friction/{geom}': {'iters': [1], 'range': [0.5, 0.5]},
            'damping': {'iters': [2], 'range': [2.0, 2.0]}}
    callback = curriculum.get(spec, sampler)
    expected = {
        0: {'mass': 1.5, 'friction': 1.0, 'damping': 1.0},
        1: {'mass': 1.5, 'friction': 0.5, 'damping': 1.0},
        2: {'mass': 3.0, 'friction': 0.5, 'damping': 2.0},
    }
    try:
        for iteration, multipliers in expected.items():
            diagnostics = callback(None, iteration)
            assert diagnostics['curriculum']['mass'] == multipliers['mass']
            sampler.sample(6, exploration)  # physics steps with the values
            for kind, name in (('mass', body), ('friction', geom),
                               ('damping', joint)):
                values = ray.get([actor.__ray_call__.remote(
                    lambda worker, *args: read_physics(
                        worker.environment, *args), universe, kind, name)
                    for actor in sampler.actors])
                np.testing.assert_allclose(
                    values, [nominal[kind] * multipliers[kind]] * 2,
                    rtol=1e-6, err_msg=f'{kind} at iteration {iteration}')
    finally:
        sampler.close()


# Checkpoints of the trainable ----------------------------------------------

@pytest.mark.slow
def test_experiment_runner_checkpoint_keeps_curriculum(tmp_path):
    from softlearning import experiments
    curriculum_file = tmp_path / 'curriculum.json'
    curriculum_file.write_text(json.dumps(
        {'mass': {'iters': [0, 1, 2, 3], 'range': [1.0, 1.3]}}))
    experiment = experiments.experiment(
        domain='HalfCheetah', task='v5', seed=1, n_epochs=4, epoch_length=20,
        max_path_length=20, curriculum=str(curriculum_file), config={
            'algorithm_params.config.n_initial_exploration_steps': 10,
            'algorithm_params.config.fused_steps': 10,
            'algorithm_params.config.batch_size': 8,
            'algorithm_params.config.eval_n_episodes': 0,
            'policy_params.config.hidden_layer_sizes': [8],
            'Q_params.config.hidden_layer_sizes': [8]})
    variant = experiment.variant_spec
    from softlearning.experiments.trial.trainable import build_outside_tune
    runner = build_outside_tune(experiment.trainable_class, variant)
    masses = [runner.train()['curriculum']['mass'] for _ in range(2)]
    assert masses == pytest.approx([1.0, 1.1])
    checkpoint = runner.save(str(tmp_path / 'checkpoint'))
    runner.stop()

    restored = build_outside_tune(experiment.trainable_class, variant)
    restored.restore(checkpoint)
    assert restored.curriculum.get_state() == {'mass': 2}
    torso = restored.training_environment.unwrapped.model.body('torso')
    result = restored.train()
    assert result['epoch'] == 3
    assert result['curriculum']['mass'] == pytest.approx(1.2)
    nominal = environments.get_environment(
        'gym', 'HalfCheetah', 'v5').unwrapped.model.body('torso').mass[0]
    assert torso.mass[0] == pytest.approx(1.2 * nominal)
    restored.stop()


# The command line ----------------------------------------------------------

def test_cli_rejects_a_file_that_is_not_json(tmp_path):
    bad = tmp_path / 'curriculum.json'
    bad.write_text('{"mass": {"iters": [0, 10], ')
    result = run_cli('run_example_local', 'examples.development',
                     '--domain', 'HalfCheetah', '--task', 'v5',
                     '--curriculum', bad, timeout=120)
    assert_one_line_error(result, 'is not valid JSON')
    assert str(bad) in result.stderr


@pytest.mark.parametrize('spec, message', [
    ({"gravity": {"iters": [0], "range": [0, 1]}}, "'gravity'"),
    ({"mass": {"iters": [5, 5], "range": [0, 1]}}, "strictly increasing"),
    ({"mass": {"iters": [0], "range": [0, 1, 2]}}, "two numbers"),
])
def test_bad_curriculum_fails_before_anything_runs(tmp_path, spec, message):
    from softlearning import experiments
    path = tmp_path / 'curriculum.json'
    path.write_text(json.dumps(spec))
    with pytest.raises(experiments.ExperimentError, match=message):
        experiments.experiment(domain='HalfCheetah', task='v5',
                               curriculum=str(path))
