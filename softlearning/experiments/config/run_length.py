"""A run's length against when it starts to train: a warm-up that
would take the whole run is cut (a preset's) or refused (the user's), and
a run that would never reach its first update says so before it starts.
(Not refused: runs that check a setup, not a learner, train nothing on
purpose, e.g. a cluster's or a checkpoint's smoke test.)"""

from softlearning.experiments.config.search_spaces import is_search_space


WARM_UP_KEY = 'algorithm_params.config.n_initial_exploration_steps'


def fit_warm_up(config, epoch_length, given, notice):
    """A warm-up (random steps before any update) as long as the run would
    train nothing: one the user set is an error; a preset's is cut to a
    tenth of the run, with a notice."""
    warm_up, n_epochs = config['n_initial_exploration_steps'], config[
        'n_epochs']
    if any(map(is_search_space, (warm_up, n_epochs, epoch_length))):
        return
    total = n_epochs * epoch_length
    if warm_up < total:
        return
    if WARM_UP_KEY in given:
        raise ValueError(
            f"{WARM_UP_KEY}={warm_up} is the whole run ({n_epochs} epochs "
            f"of {epoch_length} steps): nothing would be trained; give a "
            "shorter warm-up or a longer run.")
    config['n_initial_exploration_steps'] = total // 10
    notice(f"the default warm-up of {warm_up} random steps would take the "
           f"whole run of {total} steps; it is {total // 10} steps (a "
           f"tenth) instead. Set it with --config {WARM_UP_KEY}=N.")


def no_update_notice(config):
    """None if the run reaches its first update (past the warm-up, with a
    pool of a batch: min_pool_size), else a notice that says why it does
    not. ``config``: the algorithm's, with its constructor's defaults."""
    epoch_length = config.get('epoch_length', 1000)
    values = (config['n_epochs'], epoch_length,
              config['n_initial_exploration_steps'], config.get('batch_size'),
              config.get('min_pool_size'))
    if any(map(is_search_space, values)) or values[3] is None:
        return None
    n_epochs, _, warm_up, batch_size, min_pool_size = values
    pool = min_pool_size or batch_size
    total, needed = n_epochs * epoch_length, max(warm_up + 1, pool)
    if total >= needed:
        return None
    epochs = f"{n_epochs} epoch{'s' if n_epochs != 1 else ''}"
    return (f"the run takes {total} environment steps ({epochs} of "
            f"{epoch_length}) and its first update needs {needed} (past the "
            f"warm-up of {warm_up}, a pool of {pool}): it will train "
            "nothing. Give more epochs or longer ones to train.")
