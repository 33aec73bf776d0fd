"""SimBa's running observation normalization, as the update moves it.

Every network a checkpoint holds (policy, critics, their target copies)
may normalize its observations with running statistics
(models/simba.py, ``RunningNormalization``). The update skeleton moves all
of them towards each minibatch's observations before the update, so every
network normalizes alike; with none, ``update`` does nothing.
"""

from softlearning.models.feedforward import concat_observations
from softlearning.models.simba import running_normalizations


class ObservationStatistics:
    """The running normalization layers of ``models``, each once."""

    def __init__(self, models):
        layers = {}
        for model in models:
            for layer in running_normalizations(model):
                layers[id(layer)] = layer
        self.layers = tuple(layers.values())

    def update(self, observations):
        """Moves every layer towards ``observations`` (the minibatch's
        dict), each reading its own keys."""
        for layer in self.layers:
            layer.update(concat_observations(observations,
                                             layer.observation_keys))
