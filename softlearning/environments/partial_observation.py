"""Partially observed versions of environments (POMDPs), for recurrent agents.

``PartiallyObserved(environment, observe='positions')`` keeps only the
position part of the observation (a pendulum's cos/sin, not its angular
velocity); ``observe='velocities'`` keeps only the velocity part. With
``previous_action=True`` the last action taken is observed too, under the key
'previous_action' (zeros at an episode's start). One observation then no
longer tells the state, and a feedforward agent loses information a recurrent
one can recover from the history.

Which part of an observation is which is known per environment: the table
``OBSERVATION_SPLITS`` below, {universe: {domain: {part: {key: indices}}}},
where indices select entries of that observation key (``None``: all of it).
Observation parts that are neither (contact forces, touch sensors, targets)
are dropped in both. Any other environment is an error naming those with a
split.

A variant asks for this with ``environment_params[...]['pomdp'] =
{'observe': 'positions', 'previous_action': False}`` (the CLI's
``--pomdp positions``); ``softlearning.environments.get_environment_from_params``
wraps the adapter.
"""

import numpy as np
from gymnasium import spaces

from softlearning.utils.registry import check_keys

from .observation_wrapper import ObservationWrapper

PARTS = ('positions', 'velocities')
OBSERVATIONS = 'observations'  # the key of gymnasium's Box observations


def _vector_split(n_positions, n_velocities):
    """gymnasium MuJoCo locomotion: [qpos (without the root's x(, y)),
    qvel, (anything after: dropped)]."""
    return {'positions': {OBSERVATIONS: list(range(n_positions))},
            'velocities': {OBSERVATIONS: list(range(
                n_positions, n_positions + n_velocities))}}


def _bullet_split(n_joints):
    """Bullet's WalkerBase robots: [z, sin, cos (to target), 0.3 vx, vy, vz,
    roll, pitch], then (position, speed) per joint, then foot contacts."""
    joints = range(n_joints)
    return {'positions': {OBSERVATIONS: [0, 1, 2, 6, 7]
                          + [8 + 2 * j for j in joints]},
            'velocities': {OBSERVATIONS: [3, 4, 5]
                           + [9 + 2 * j for j in joints]}}


def _keys_split(positions, velocities):
    """dm_control: observations are named; whole keys are kept."""
    return {'positions': {key: None for key in positions},
            'velocities': {key: None for key in velocities}}


OBSERVATION_SPLITS = {
    'gym': {
        # [cos(theta), sin(theta), theta_dot]
        'Pendulum': {'positions': {OBSERVATIONS: [0, 1]},
                     'velocities': {OBSERVATIONS: [2]}},
        'InvertedPendulum': _vector_split(2, 2),
        'HalfCheetah': _vector_split(8, 9),
        'Hopper': _vector_split(5, 6),
        'Walker2d': _vector_split(8, 9),
        'Swimmer': _vector_split(3, 5),
        'Ant': _vector_split(13, 14),
        'Humanoid': _vector_split(22, 23),
    },
    'dm_control': {
        'cartpole': _keys_split(['position'], ['velocity']),
        'pendulum': _keys_split(['orientation'], ['velocity']),
        'acrobot': _keys_split(['orientations'], ['velocity']),
        'cheetah': _keys_split(['position'], ['velocity']),
        'hopper': _keys_split(['position'], ['velocity']),
        'walker': _keys_split(['orientations', 'height'], ['velocity']),
        'finger': _keys_split(['position'], ['velocity']),
        'ball_in_cup': _keys_split(['position'], ['velocity']),
        'point_mass': _keys_split(['position'], ['velocity']),
    },
    'pybullet': {
        'HalfCheetahBulletEnv': _bullet_split(6),
        'HopperBulletEnv': _bullet_split(3),
        'Walker2DBulletEnv': _bullet_split(6),
        'AntBulletEnv': _bullet_split(8),
    },
}


def domains_with_split():
    return [f'{universe}/{domain}'
            for universe, domains in OBSERVATION_SPLITS.items()
            for domain in domains]


def observation_split(universe, domain, observe):
    """{key: indices or None} of ``observe`` ('positions'/'velocities') in
    ``universe``/``domain``; ValueError naming the valid choices."""
    if observe not in PARTS:
        raise ValueError(f"Unknown partial observation '{observe}'; valid: "
                         f"{', '.join(PARTS)}")
    split = OBSERVATION_SPLITS.get(universe, {}).get(domain)
    if split is None:
        raise ValueError(
            f"--pomdp {observe}: the positions/velocities split of "
            f"{universe}/{domain}'s observation is not known. Environments "
            f"with a split: {', '.join(domains_with_split())}")
    return split[observe]


def validate_pomdp_params(environment_params):
    """Checks a variant's 'pomdp' entry before anything is built."""
    pomdp = environment_params.get('pomdp')
    if not pomdp:
        return
    check_keys(pomdp, ('observe', 'previous_action'),
               'pomdp setting(s)')
    observation_split(environment_params['universe'],
                      environment_params['domain'], pomdp.get('observe'))


class PartiallyObserved(ObservationWrapper):
    """An environment adapter that observes only part of its state.

    Everything but the observation (actions, rewards, rendering, physical
    parameters, episode state) is the wrapped adapter's."""

    def __init__(self, environment, observe, previous_action=False):
        super().__init__(environment)
        self.observe = observe
        self._split = observation_split(environment.universe,
                                        environment.domain, observe)
        full = environment.observation_space.spaces
        missing = [key for key in self._split if key not in full]
        if missing:
            raise ValueError(
                f"{environment!r} has no observation {missing} to keep for "
                f"--pomdp {observe}")
        kept = {}
        for key, indices in self._split.items():
            size = full[key].shape[-1]
            if indices is not None and max(indices) >= size:
                raise ValueError(
                    f"{environment!r}: observation '{key}' has {size} "
                    f"entries, fewer than the {observe} split expects")
            count = size if indices is None else len(indices)
            kept[key] = spaces.Box(-np.inf, np.inf, (count,), np.float32)
        self._previous_action = bool(previous_action)
        if self._previous_action:
            kept['previous_action'] = spaces.Box(
                -1.0, 1.0, environment.action_shape, np.float32)
        self._observation_space = spaces.Dict(kept)
        self._last_action = self._no_action()

    def _no_action(self):
        return np.zeros(self._environment.action_shape, np.float32)

    def kept_part(self, full):
        """The kept part of a full observation (a dict of the wrapped
        adapter's), without the previous action."""
        return {
            key: np.asarray(full[key] if indices is None
                            else full[key][..., indices], np.float32)
            for key, indices in self._split.items()}

    def _observation(self, full):
        observation = self.kept_part(full)
        if self._previous_action:
            observation['previous_action'] = self._last_action.copy()
        return observation

    # The part that differs from the wrapped adapter -------------------------

    def reset(self, seed=None):
        self._last_action = self._no_action()
        return self._observation(self._environment.reset(seed=seed))

    def step(self, action):
        observation, reward, terminated, truncated, info = (
            self._environment.step(action))
        self._last_action = np.clip(np.asarray(action, np.float32), -1, 1)
        return (self._observation(observation), reward, terminated, truncated,
                info)

    def get_episode_state(self):
        state = self._environment.get_episode_state()
        if state is None:
            return None
        return {'environment': state, 'last_action': self._last_action.copy()}

    def set_episode_state(self, state):
        self._environment.set_episode_state(state['environment'])
        self._last_action = np.array(state['last_action'], np.float32)

    def __repr__(self):
        extra = ' + previous action' if self._previous_action else ''
        return (f"PartiallyObserved({self._environment!r}, observe="
                f"{self.observe}{extra})")
