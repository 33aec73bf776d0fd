"""K environments stepped as one vector, with one policy call per step.

Every sampler steps its environments through a ``VectorStepper``: the
in-process ``SimpleSampler`` and every sampler actor (``SamplerWorker``),
with ``envs_per_sampler`` environments each (1 by default). Each environment
keeps its own episode in an ``EpisodeStepper`` (its reset seeds, the
curriculum's draws, the time limit, a recurrent policy's state, its
checkpoint); a vector step asks the policy once for all of their actions
(``policy.step_batch``), then steps each environment with its own.

Resets are explicit, per environment: an environment whose episode ended
resets at its next step, before the policy is asked (gymnasium's vector
API would reset it inside ``step`` and hand back the next episode's first
observation in place of the last one; here the last transition keeps its
true next observation, which a time-limit truncation bootstraps from).

``step(policy, n_steps)`` takes exactly ``n_steps`` environment steps:
whole vector steps, and a last, partial one over the environments next in
turn (a cursor carried from call to call), so the environments' step counts
never differ by more than one. The transitions come back grouped per
environment, each group in order, so a pool that reads an episode's steps
as consecutive transitions (n-step, sequence) finds them so.

Environment i > 0 of a sampler seeded s is seeded s + 7919 i: a stride no
sampler actor's seed stride (1000, 100003) shares, so no two environments
of a run share a seed or an episode id.
"""

from softlearning.utils.registry import check_choice

from .episode_stepper import EpisodeStepper, stack_observations

ENVIRONMENT_SEED_STRIDE = 7919


def environment_seed(seed, index):
    """The seed of a sampler's environment ``index`` (the first keeps the
    sampler's, so one environment per sampler behaves as it always did)."""
    if index == 0:
        return seed
    return (seed or 0) + ENVIRONMENT_SEED_STRIDE * index


def single_threaded_blas():
    """Numpy's BLAS in one thread, in this process. Acting on a batch of a
    few observations is far too small to share out: OpenBLAS splits any
    matmul of more than one row over its threads, and beside a busy core
    (a trainer, another actor) their waiting made a batch of 8 actions 30
    times slower than 8 single ones."""
    from threadpoolctl import threadpool_limits
    threadpool_limits(1, user_api='blas')


def step_together(steppers, policy):
    """One step of each of ``steppers``' episodes (started if need be), from
    one policy call for all; their (transition, finished) pairs."""
    for stepper in steppers:
        stepper.start_episode()
    actions, states = policy.step_batch(
        stack_observations([stepper.observation for stepper in steppers]),
        [stepper.policy_state for stepper in steppers])
    # Environments in processes of their own start stepping now; each
    # ``take`` below then waits for its own (in order), while those in this
    # process step in turn.
    for stepper, action in zip(steppers, actions):
        if stepper.send_step is not None:
            stepper.send_step(action)
    return [stepper.take(action, state)
            for stepper, action, state in zip(steppers, actions, states)]


class VectorStepper:

    def __init__(self, environments, max_path_length, seed=None):
        if not environments:
            raise ValueError("A vector stepper needs at least one "
                             "environment.")
        self.steppers = [
            EpisodeStepper(environment, max_path_length,
                           seed=environment_seed(seed, index))
            for index, environment in enumerate(environments)]
        self._cursor = 0
        if len(environments) > 1:
            single_threaded_blas()

    def __len__(self):
        return len(self.steppers)

    @property
    def environments(self):
        return [stepper.environment for stepper in self.steppers]

    @property
    def num_paths(self):
        return sum(stepper.num_paths for stepper in self.steppers)

    @property
    def reports_success(self):
        """Whether an environment's steps carry ``is_success``."""
        return any(stepper.reports_success for stepper in self.steppers)

    def set_physical_parameters(self, values):
        """The curriculum's values, for every environment (ranges are drawn
        per environment, from each one's own generator)."""
        for stepper in self.steppers:
            stepper.physical_parameters.set(values)

    def _turn(self, count):
        """The ``count`` environments next in turn."""
        indices = [(self._cursor + j) % len(self) for j in range(count)]
        self._cursor = (self._cursor + count) % len(self)
        return indices

    def step(self, policy, n_steps):
        """``n_steps`` environment steps with ``policy``. Returns, per
        environment, its steps in order: a list of (transition, finished)
        pairs, ``finished`` the episode's ``FinishedEpisode`` when the step
        ended it, else None (``EpisodeStepper.step``)."""
        steps = [[] for _ in self.steppers]
        remaining = int(n_steps)
        while remaining > 0:
            indices = self._turn(min(len(self), remaining))
            remaining -= len(indices)
            for index, step in zip(indices, step_together(
                    [self.steppers[index] for index in indices], policy)):
                steps[index].append(step)
        return steps

    # Checkpoint state ------------------------------------------------------

    def get_state(self):
        return {'steppers': [stepper.get_state()
                             for stepper in self.steppers],
                'cursor': self._cursor}

    def set_state(self, state):
        """Continues the saved episodes; returns, per environment, whether
        its running episode could be continued (``EpisodeStepper``)."""
        if len(state['steppers']) != len(self):
            raise ValueError(
                f"The checkpoint holds {len(state['steppers'])} environments "
                f"per sampler; this run has {len(self)} "
                "(--envs-per-sampler must match the run that saved it).")
        self._cursor = state['cursor']
        return [stepper.set_state(saved)
                for stepper, saved in zip(self.steppers, state['steppers'])]


def single_stepper_state(stepper_state):
    """A vector state for a checkpoint saved with one ``EpisodeStepper``."""
    return {'steppers': [stepper_state], 'cursor': 0}


# How a sampler's environments run: 'sync', all in the sampler's process,
# one after the other; 'async', the first there and each other in a process
# of its own, all stepping at once (where the simulation is the cost).
VECTOR_MODES = ('sync', 'async')


def check_vector_mode(value):
    return check_choice(value, VECTOR_MODES, 'vector_mode')


def build_environments(environment_params, count, vector_mode='sync',
                       first=None):
    """A sampler's ``count`` environments built from ``environment_params``
    (``first``, if given, as the first), the others in processes of their
    own with ``vector_mode`` 'async'."""
    from softlearning.environments import get_environment_from_params
    others = check_envs_per_sampler(count) - 1
    if check_vector_mode(vector_mode) == 'async':
        from softlearning.environments.subprocess_environment import (
            SubprocessEnvironment)
        # All processes start before any is waited for.
        processes = [SubprocessEnvironment(environment_params)
                     for _ in range(others)]
        others = [process.started() for process in processes]
    else:
        others = [get_environment_from_params(environment_params)
                  for _ in range(others)]
    if first is None:
        first = get_environment_from_params(environment_params)
    return [first] + others


def check_envs_per_sampler(value):
    value = int(value)
    if value < 1:
        raise ValueError(f"envs_per_sampler must be at least 1, got {value}.")
    return value
