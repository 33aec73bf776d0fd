"""Deterministic policy of TD3, DDPG and FastTD3: a = mu(s) = tanh(f(s)).

The updates use mu(s) itself (``actions``; TD3 adds its target-smoothing
noise in the algorithm). Collecting experience adds Gaussian exploration
noise, a = clip(mu(s) + N(0, sigma^2), -1, 1), in the numpy acting path
that samplers (in-process or in actors) use: sigma is ``exploration_noise``,
or FastTD3's per-episode draw between ``std_min`` and ``std_max``, and
with probability ``random_action_probability`` a uniform action
(exploration_noise.py). Deterministic mode (evaluation, ``simulate``,
export) acts with mu(s).
"""

# Acting in numpy is shared with the TensorFlow-free actors' policy.
from .exploration_noise import NoisyDeterministicActing
from .feedforward_policy import FeedforwardPolicy
from .numpy_policies import NumpyDeterministicPolicy


class FeedforwardDeterministicPolicy(NoisyDeterministicActing,
                                     FeedforwardPolicy):

    numpy_class = NumpyDeterministicPolicy
    default_name = 'feedforward_deterministic_policy'

    def __init__(self, *args, exploration_noise=0.1,
                 random_action_probability=0.0, **kwargs):
        """``exploration_noise``: sigma, or {'std_min': low, 'std_max':
        high} for a sigma drawn per episode; ``random_action_probability``:
        the share of steps acting uniformly at random
        (exploration_noise.py)."""
        super().__init__(*args, **kwargs)
        self._set_exploration_noise(exploration_noise,
                                    random_action_probability)
        self._config['exploration_noise'] = self.exploration_noise
        self._config['random_action_probability'] = (
            self.random_action_probability)

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

    # numpy path (acting in samplers): NoisyDeterministicActing's ---------

    def get_diagnostics(self, observations):
        inputs = self._numpy_inputs(observations)
        actions = self._acting_network(inputs)
        return {'actions-mean': float(actions.mean()),
                'actions-saturated': float((abs(actions) > 0.99).mean())}

