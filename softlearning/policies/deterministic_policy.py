"""Deterministic policy of TD3 and DDPG: a = mu(s) = tanh(f(s)).

The updates use mu(s) itself (``actions``; TD3 adds its target-smoothing
noise in the algorithm). Collecting experience adds Gaussian exploration
noise, a = clip(mu(s) + N(0, exploration_noise^2), -1, 1), in the numpy
acting path that samplers (in-process or in actors) use; deterministic mode
(evaluation, ``simulate``, export) acts with mu(s).
"""

from .feedforward_policy import FeedforwardPolicy
# Acting in numpy is shared with the TensorFlow-free actors' policy.
from .numpy_policies import (NumpyDeterministicPolicy,
                             noisy_deterministic_actions)


class FeedforwardDeterministicPolicy(FeedforwardPolicy):

    numpy_class = NumpyDeterministicPolicy
    default_name = 'feedforward_deterministic_policy'

    def __init__(self, *args, exploration_noise=0.1, **kwargs):
        super().__init__(*args, **kwargs)
        self.exploration_noise = float(exploration_noise)
        self._config['exploration_noise'] = self.exploration_noise

    # TensorFlow path (inside compiled updates) ---------------------------

    def actions(self, observations, seed=None):
        """mu(s), (B, |A|) in (-1, 1): no exploration noise here."""
        return self._model(self._network_inputs(observations))

    def deterministic_actions_from_outputs(self, outputs):
        return outputs  # the network ends in tanh

    def actions_and_log_probs(self, observations, seed=None):
        raise NotImplementedError(
            "FeedforwardDeterministicPolicy has no log-probabilities: it is "
            "trained by TD3 or DDPG, not SAC.")

    log_probs = actions_and_log_probs

    # numpy path (acting in samplers) -------------------------------------

    def _actions_from_outputs(self, outputs):
        return noisy_deterministic_actions(
            outputs, self.exploration_noise, self._np_random,
            self._deterministic)

    def get_diagnostics(self, observations):
        inputs = self._numpy_inputs(observations)
        actions = self._acting_network(inputs)
        return {'actions-mean': float(actions.mean()),
                'actions-saturated': float((abs(actions) > 0.99).mean())}

