"""The development example: SAC on gym / dm_control / pybullet as a Tune
experiment.

    python examples/development/main.py --help
    softlearning run_example_local examples.development --universe gym \\
        --domain Pendulum --task v1
"""

import os
import pickle
import sys

import tensorflow as tf
from ray import tune

from softlearning import (algorithms, curriculum, environments, policies,
                          replay_pools, samplers, value_functions)
from softlearning.utils.random import set_seed

STATE_FILE = 'algorithm_state.pkl'
TF_CHECKPOINT_PREFIX = 'tf_state'


def format_progress(diagnostics, n_epochs):
    """One line per epoch, so a run's progress reads at a glance."""
    evaluation = diagnostics.get('evaluation', {})
    training = diagnostics.get('training', {})

    def number(stats, key):
        return f"{stats[key]:9.1f}" if key in stats else '        -'

    return (f"epoch {diagnostics['epoch']:>5}/{n_epochs}"
            f" | steps {diagnostics['total_timestep']:>9}"
            f" | eval return {number(evaluation, 'return-mean')}"
            f" | train return {number(training, 'return-mean')}"
            f" | {diagnostics['timesteps_per_second']:7.1f} steps/s")


class ExperimentRunner(tune.Trainable):
    """One trial: builds every component from the variant in ``setup`` and
    runs one epoch per ``step``."""

    def setup(self, config):
        variant = self._variant = config
        run_params = variant['run_params']
        self._seed = int(run_params['seed'])
        set_seed(self._seed)
        num_threads = run_params.get('tf_num_threads')
        if num_threads:
            tf.config.threading.set_intra_op_parallelism_threads(num_threads)
            tf.config.threading.set_inter_op_parallelism_threads(num_threads)
        tf.config.run_functions_eagerly(bool(run_params.get('run_eagerly')))
        self._build(variant)

    def _build(self, variant):
        environment_params = variant['environment_params']
        training_environment = environments.get_environment_from_params(
            environment_params['training'])
        evaluation_environment = (
            environments.get_environment_from_params(
                environment_params['evaluation'])
            if environment_params.get('evaluation') else None)
        seed = self._seed

        policy = policies.get(variant['policy_params'], training_environment,
                              seed=seed)
        initial_exploration_policy = policies.get(
            variant['exploration_policy_params'], training_environment,
            seed=seed + 1)
        Qs = value_functions.get(variant['Q_params'], training_environment)
        pool = replay_pools.get(variant['replay_pool_params'],
                                training_environment, seed=seed)
        sampler = samplers.get_from_variant(variant, seed=seed)
        sampler.initialize(training_environment, policy, pool)
        # The environment-parameter curriculum runs at the start of every
        # epoch (= iteration) and pushes its values to the samplers.
        self.curriculum = (
            curriculum.get(variant['curriculum'], sampler,
                           evaluation_environment)
            if variant.get('curriculum') else None)

        self.training_environment = training_environment
        self.evaluation_environment = evaluation_environment
        self.policy = policy
        self.Qs = Qs
        self.pool = pool
        self.sampler = sampler
        self.algorithm = algorithms.get(
            variant['algorithm_params'],
            training_environment=training_environment,
            evaluation_environment=evaluation_environment,
            policy=policy,
            initial_exploration_policy=initial_exploration_policy,
            Qs=Qs,
            pool=pool,
            sampler=sampler,
            iteration_callbacks=[self.curriculum] if self.curriculum else [],
            seed=seed)
        self._n_epochs = variant['algorithm_params']['config']['n_epochs']
        self._train_generator = None

    def step(self):
        if self._train_generator is None:
            self._train_generator = self.algorithm.train()
        diagnostics = next(self._train_generator)
        print(format_progress(diagnostics, self._n_epochs), flush=True)
        diagnostics['done'] = diagnostics['epoch'] >= self._n_epochs
        return diagnostics

    # Checkpoints ----------------------------------------------------------

    def save_checkpoint(self, checkpoint_dir):
        checkpoint = tf.train.Checkpoint(**self.algorithm.tf_saveables())
        checkpoint.write(os.path.join(checkpoint_dir, TF_CHECKPOINT_PREFIX))
        with open(os.path.join(checkpoint_dir, STATE_FILE), 'wb') as f:
            pickle.dump({'algorithm': self.algorithm.get_state(),
                         'variant': self._variant,
                         'curriculum': self._curriculum_state()}, f)
        return checkpoint_dir

    def load_checkpoint(self, checkpoint_dir):
        with open(os.path.join(checkpoint_dir, STATE_FILE), 'rb') as f:
            state = pickle.load(f)
        checkpoint = tf.train.Checkpoint(**self.algorithm.tf_saveables())
        checkpoint.read(os.path.join(
            checkpoint_dir, TF_CHECKPOINT_PREFIX)).assert_consumed()
        self.policy.refresh_numpy_weights()
        self.algorithm.set_state(state['algorithm'])
        self._restore_curriculum_state(state.get('curriculum'))
        self._train_generator = None

    # Curriculum state: a resumed run continues the schedule. ---------------

    def _curriculum_state(self):
        return self.curriculum.get_state() if self.curriculum else None

    def _restore_curriculum_state(self, curriculum_state):
        if self.curriculum and curriculum_state is not None:
            self.curriculum.set_state(curriculum_state)


def main(argv=None):
    from examples.instrument import run_example_local
    run_example_local('examples.development', argv)


if __name__ == '__main__':
    main(sys.argv[1:])
