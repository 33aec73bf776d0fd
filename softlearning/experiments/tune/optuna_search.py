"""Optuna's model-based search (Tune's OptunaSearch) that leaves the seed
out of the search: each trial draws its seed at random, as without a search
algorithm, so the model never "learns" a lucky seed.

Needs the optional extra: pip install -e '.[sweeps]'.
"""

from ray.tune.search.optuna import OptunaSearch


class OptunaSearchWithSeeds(OptunaSearch):

    def __init__(self, seed_space=None, **kwargs):
        super().__init__(**kwargs)
        # A Tune search space (e.g. tune.randint(0, 10000)), or None when
        # the variant fixes the seed.
        self._seed_space = seed_space

    def suggest(self, trial_id):
        config = super().suggest(trial_id)
        if isinstance(config, dict) and self._seed_space is not None:
            config.setdefault('run_params', {})['seed'] = int(
                self._seed_space.sample())
        return config
