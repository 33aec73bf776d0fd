"""A user's own gymnasium environment, with its own curriculum parameter,
through the command line."""

import numpy as np
import pytest
from gymnasium.envs.classic_control.pendulum import PendulumEnv

from conftest import assert_one_line_error, read_progress, run_cli, trial_dirs
from softlearning.environments import SoftlearningEnv, get_environment

DOMAIN = 'examples.custom_environment.gravity_pendulum:GravityPendulum'


def test_adapter_forwards_parameters_to_the_environment():
    env = get_environment('gym', DOMAIN, 'v0')
    assert env.supported_physical_parameters == ('gravity',)
    env.set_physical_parameters({'gravity': 4.0})
    assert env.unwrapped.g == 4.0
    assert env.get_physical_parameters() == {'gravity': 4.0}
    with pytest.raises(ValueError, match=(
            r"GravityPendulum/v0: unknown physical parameter\(s\) 'mass'\. "
            r"Valid choices: gravity\.")):
        env.set_physical_parameters({'mass': 2.0})


class OldNamesPendulumEnv(PendulumEnv):
    """Written against the names before *_physical_parameters."""

    supported_state_keys = ('gravity',)

    def set_state(self, state):
        self.g = float(state['gravity'])

    def get_state(self):
        return {'gravity': self.g}


def test_environment_with_the_old_names_still_works_with_a_warning():
    import gymnasium
    gymnasium.register(id='OldNamesPendulum-v0',
                       entry_point=OldNamesPendulumEnv, max_episode_steps=200)
    env = get_environment('gym', 'OldNamesPendulum', 'v0')
    with pytest.warns(DeprecationWarning, match='supported_state_keys'):
        assert env.supported_physical_parameters == ('gravity',)
    env.set_physical_parameters({'gravity': 3.0})
    assert env.get_physical_parameters() == {'gravity': 3.0}
    # Old callers of the adapter too.
    with pytest.warns(DeprecationWarning, match='get_physical_parameters'):
        assert env.get_state() == {'gravity': 3.0}


def test_adapter_subclass_with_the_old_names_still_works_with_a_warning():
    with pytest.warns(DeprecationWarning, match='set_state is deprecated'):
        class OldAdapter(SoftlearningEnv):
            supported_state_keys = ('wind',)

            def set_state(self, state):
                self.wind = state['wind']

            def get_state(self):
                return {'wind': self.wind}

    environment = OldAdapter('test', 'old', 'v0')
    environment.set_physical_parameters({'wind': 2.0})
    assert environment.get_physical_parameters() == {'wind': 2.0}
    assert environment.supported_physical_parameters == ('wind',)


def test_unimportable_module_is_a_clear_error():
    result = run_cli('run_example_local', 'examples.development',
                     '--domain', 'no_such_package:Walker', '--task', 'v0')
    assert_one_line_error(result, "Cannot import module 'no_such_package'")


@pytest.mark.slow
def test_custom_environment_follows_its_curriculum(tmp_path):
    result = run_cli(
        'run_example_local', 'examples.development', '--universe', 'gym',
        '--domain', DOMAIN, '--task', 'v0', '--n-epochs', '4',
        '--epoch-length', '200', '--seed', '2', '--local-dir', tmp_path,
        '--curriculum', 'examples/custom_environment/gravity_curriculum.json',
        '--config', 'policy_params.config.hidden_layer_sizes=[16,16]',
        '--config', 'Q_params.config.hidden_layer_sizes=[16,16]',
        '--config', 'algorithm_params.config.n_initial_exploration_steps=100',
        '--verbose', '0')
    assert result.returncode == 0, result.stderr[-3000:]
    (trial_dir,) = trial_dirs(tmp_path)
    gravity = read_progress(trial_dir)['curriculum/gravity'].to_numpy()
    # values = linspace(5, 10, 4) at iterations 0, 3, 6, 9.
    np.testing.assert_allclose(gravity, [5.0, 5.0, 5.0, 5.0 + 5.0 / 3])
