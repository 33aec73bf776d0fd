"""One CrossQ update of ours against SBX's CrossQ (the peer of
docs/benchmarks/frontier-hard.md) from the same weights, running
statistics, minibatch and sampling noise: the critics' step (the joint
pass in training mode, the target from the next actions with the
temperature's term) and the actor's step (the actor in training mode,
the critics in inference mode) give the same losses, move every weight
the same way, and move the running statistics alike. Whatever separates
the two libraries' runs is then not in the update. Needs the peer
interpreter (SOFTLEARNING_PEER_PYTHON, with sbx-rl)."""

import itertools
import pickle
import subprocess

import numpy as np
import pytest
import tensorflow as tf

from algorithm_helpers import make_algorithm
from peer_helpers import PEER_PYTHON, needs_peer_python, skip_without
from softlearning.experiments.config.presets import crossq as preset

WIDTH, BATCH, UPDATES = 256, 256, 30
# SBX's half, run in the peer interpreter: its CrossQ on Hopper's spaces
# (11 observations, 3 actions; nothing is stepped), one critic step and
# one actor step from its initial state on a random minibatch, and the
# noise each drew.
SBX_HALF = """
import pickle, sys, numpy as np, jax, gymnasium as gym
from sbx import CrossQ
model = CrossQ('MlpPolicy', gym.make('Hopper-v5'), seed=0, learning_rate=1e-3,
               policy_kwargs={'net_arch': {'pi': [%(width)d, %(width)d],
                                           'qf': [%(width)d, %(width)d]}})
p, n = model.policy, %(batch)d
rng = np.random.default_rng(0)
def minibatch():
    return {'observations': rng.normal(size=(n, 11)).astype(np.float32),
            'actions': rng.uniform(-1, 1, size=(n, 3)).astype(np.float32),
            'next_observations': rng.normal(size=(n, 11)).astype(np.float32),
            'rewards': (0.01 * rng.normal(size=n)).astype(np.float32),
            'dones': np.zeros(n, np.float32)}
batch = minibatch()
numpy = lambda tree: jax.tree.map(np.asarray, tree)
def noise(actor_state, key, observations, train):
    # The base Gaussian's draw of SBX's sample(seed=key), as N(0, 1) noise.
    actor = {'params': actor_state.params, 'batch_stats': actor_state.batch_stats}
    dist = actor_state.apply_fn(actor, observations, train=train,
                                  **({'mutable': ['batch_stats']} if train else {}))
    dist = dist[0] if train else dist
    draw = dist.distribution.sample(seed=key)
    return np.asarray((draw - dist.distribution.loc) / dist.distribution.stddev())
critic_key, actor_key = jax.random.PRNGKey(1), jax.random.PRNGKey(2)
out = {'batch': batch,
       'critic_noise': noise(p.actor_state, jax.random.split(critic_key, 3)[1],
                             batch['next_observations'], False),
       'actor_noise': noise(p.actor_state, jax.random.split(actor_key, 3)[2],
                            batch['observations'], True),
       'qf': numpy({'params': p.qf_state.params, 'stats': p.qf_state.batch_stats}),
       'actor': numpy({'params': p.actor_state.params, 'stats': p.actor_state.batch_stats})}
qf_state, (qf_loss, _), _ = CrossQ.update_critic(
    p.actor_state, p.qf_state, model.ent_coef_state, batch['observations'],
    batch['actions'], batch['next_observations'], batch['rewards'],
    batch['dones'], np.full(n, 0.99, np.float32), critic_key)
actor_state, _, actor_loss, _, entropy = CrossQ.update_actor(
    p.actor_state, p.qf_state, model.ent_coef_state, batch['observations'],
    actor_key)
out.update(qf_loss=float(qf_loss), actor_loss=float(actor_loss),
           entropy=float(entropy),
           qf_after=numpy({'params': qf_state.params, 'stats': qf_state.batch_stats}),
           actor_after=numpy({'params': actor_state.params,
                              'stats': actor_state.batch_stats}))
# %(updates)d updates in a row from the same initial state, a fresh
# minibatch each, the actor and the temperature every third as SBX's
# _train does, and what each drew and reported.
runs = {'batches': [], 'critic_noise': [], 'actor_noise': [], 'qf_loss': [],
        'actor_loss': [], 'alpha': []}
ent_state = model.ent_coef_state
actor_state, qf_state = p.actor_state, p.qf_state
for k in range(%(updates)d):
    batch = minibatch()
    critic_key = jax.random.PRNGKey(100 + k)
    actor_key = jax.random.PRNGKey(1000 + k)
    runs['batches'].append(batch)
    runs['critic_noise'].append(noise(actor_state, jax.random.split(critic_key, 3)[1],
                                      batch['next_observations'], False))
    qf_state, (qf_loss, alpha), _ = CrossQ.update_critic(
        actor_state, qf_state, ent_state, batch['observations'],
        batch['actions'], batch['next_observations'], batch['rewards'],
        batch['dones'], np.full(n, 0.99, np.float32), critic_key)
    runs['qf_loss'].append(float(qf_loss))
    runs['alpha'].append(float(alpha))
    if (k + 1) %% 3:
        runs['actor_noise'].append(None)
        continue
    runs['actor_noise'].append(noise(actor_state, jax.random.split(actor_key, 3)[2],
                                     batch['observations'], True))
    actor_state, qf_state, ent_state, actor_loss, _, _ = (
        CrossQ.update_actor_and_temperature(
            actor_state, qf_state, ent_state, batch['observations'],
            model.target_entropy, actor_key))
    runs['actor_loss'].append(float(actor_loss))
out['runs'] = runs
pickle.dump(out, open(sys.argv[1], 'wb'))
"""


def _layers(model, kind):
    return [layer for layer in model.layers if type(layer).__name__ == kind]


def _load(model, state, critic=None):
    """SBX's weights and running statistics ({'params', 'stats'}) into one
    of our feedforward models; ``critic``: which of SBX's vectorized
    critics (None: the actor, whose two heads, mean and log std, are one
    layer of ours)."""
    params, stats = state['params'], state['stats']
    if critic is not None:
        params, stats = params['VmapCritic_0'], stats['VmapCritic_0']
    pick = (lambda x: x) if critic is None else (lambda x: x[critic])
    for j, layer in enumerate(_layers(model, 'BatchRenormalization')):
        name = f'BatchRenorm_{j}'
        layer.gamma.assign(pick(params[name]['scale']))
        layer.beta.assign(pick(params[name]['bias']))
        layer.moving_mean.assign(pick(stats[name]['mean']))
        layer.moving_variance.assign(pick(stats[name]['var']))
    dense = _layers(model, 'Dense')
    for j, layer in enumerate(dense):
        heads = [f'Dense_{j}'] + ([f'Dense_{j + 1}'] if critic is None
                                  and j == len(dense) - 1 else [])
        layer.kernel.assign(np.concatenate(
            [pick(params[h]['kernel']) for h in heads], axis=-1))
        layer.bias.assign(np.concatenate(
            [pick(params[h]['bias']) for h in heads], axis=-1))


def _weights(model):
    return [variable.numpy() for variable in model.weights]


def _assert_stepped_as_sbx(model, before, after, critic=None):
    """Every weight moved as SBX's did, and the running statistics alike.
    Adam's first step is about the learning rate times the gradient's
    sign, so the signs are compared; where a gradient is of the order of
    Adam's epsilon (Keras's 1e-7, optax's 1e-8) the two steps part, so
    only the entries SBX moved by more than a tenth of its learning rate
    count."""
    ours = _weights(model)
    _load(model, before, critic)
    start = _weights(model)
    _load(model, after, critic)
    theirs = _weights(model)
    for variable, mine, first, sbx in zip(model.weights, ours, start,
                                          theirs):
        if not variable.trainable:  # running statistics
            np.testing.assert_allclose(mine, sbx, rtol=1e-4, atol=1e-6,
                                       err_msg=variable.name)
            continue
        moved = np.abs(sbx - first) > 1e-4
        assert moved.mean() > 0.5, variable.name
        agree = np.mean(np.sign(mine - first)[moved]
                        == np.sign(sbx - first)[moved])
        assert agree > 0.999, (variable.name, agree)


@pytest.fixture(scope='module')
def sbx(tmp_path_factory):
    """What SBX_HALF reports, run once (its tests skip without a peer
    interpreter: needs_peer_python)."""
    skip_without('sbx')
    out = tmp_path_factory.mktemp('sbx') / 'sbx.pkl'
    subprocess.run([PEER_PYTHON, '-c', SBX_HALF % {
        'width': WIDTH, 'batch': BATCH, 'updates': UPDATES}, str(out)],
        check=True, timeout=600)
    return pickle.loads(out.read_bytes())


def _ours_from(sbx, jit_compile, **config):
    """Our CrossQ at the preset's settings (and ``config``), holding SBX's
    initial weights; (algorithm, policy, the observation key)."""
    config = {**preset.VARIANT['algorithm_params']['config'],
              'batch_size': BATCH, 'jit_compile': jit_compile, **config}
    networks = {'batch_renorm': True, 'hidden_layer_sizes': (WIDTH, WIDTH)}
    algorithm, _, policy, pool, _, _ = make_algorithm(
        'CrossQ', Q_config=networks, policy_config=networks,
        environment=('gym', 'Hopper', 'v5'), **config)
    for i, Q in enumerate(algorithm.Qs):
        _load(Q.model, sbx['qf'], critic=i)
    _load(policy.model, sbx['actor'])
    (key,) = pool.batch_shapes()['observations']
    return algorithm, policy, key


def _minibatch(batch, key):
    return {'observations': {key: tf.constant(batch['observations'])},
            'next_observations': {
                key: tf.constant(batch['next_observations'])},
            'actions': tf.constant(batch['actions']),
            'rewards': tf.constant(batch['rewards'][:, None]),
            'terminals': tf.constant(batch['dones'][:, None])}


@needs_peer_python
@pytest.mark.parametrize('jit_compile', [False, True])
def test_one_update_equals_sbx_crossq(sbx, jit_compile, monkeypatch):
    algorithm, policy, key = _ours_from(sbx, jit_compile)
    minibatch = _minibatch(sbx['batch'], key)
    step = ((lambda f: tf.function(f, jit_compile=True, autograph=False))
            if jit_compile else (lambda f: f))
    seed = tf.constant([1, 2], tf.int64)
    alpha = tf.constant(1.0)  # SBX's initial temperature, as ours

    def draws(noise):  # the policy's draws are SBX's
        monkeypatch.setattr(tf.random, 'stateless_normal',
                            lambda shape, seed, dtype: tf.constant(noise,
                                                                   dtype))

    draws(sbx['critic_noise'])
    Q_loss, _, _ = step(algorithm._update_critics)(minibatch, alpha, seed)
    np.testing.assert_allclose(float(Q_loss), sbx['qf_loss'], rtol=1e-5)
    for i, Q in enumerate(algorithm.Qs):
        _assert_stepped_as_sbx(Q.model, sbx['qf'], sbx['qf_after'], i)
        _load(Q.model, sbx['qf'], critic=i)  # SBX's actor step's critics
    draws(sbx['actor_noise'])
    policy_loss, log_pis = step(algorithm._update_policy)(
        minibatch, minibatch['observations'], alpha, seed)
    np.testing.assert_allclose(float(policy_loss), sbx['actor_loss'],
                               rtol=1e-5)
    np.testing.assert_allclose(-float(tf.reduce_mean(log_pis)),
                               sbx['entropy'], rtol=1e-5)
    _assert_stepped_as_sbx(policy.model, sbx['actor'], sbx['actor_after'])


@needs_peer_python
@pytest.mark.parametrize('jit_compile', [False, True])
def test_thirty_updates_track_sbx_crossq(sbx, jit_compile, monkeypatch):
    """UPDATES updates in a row (the actor's and the temperature's every
    third, the loss on log(alpha) and Adam's epsilon as SBX's), each on
    SBX's minibatch and noise: the reported losses and temperature stay
    with SBX's. Float rounding parts the two runs slowly (our own eager and
    XLA runs part as fast), so the bounds are a few times what was seen
    over 30 updates (critics' loss 8e-4 relative, actor's 5e-4 absolute);
    a different update (a shifted policy delay, another loss) parts them
    at once."""
    algorithm, _, key = _ours_from(sbx, jit_compile,
                                   temperature_loss='log_alpha',
                                   adam_epsilon=1e-8)
    runs = sbx['runs']
    critic_noise = tf.Variable(runs['critic_noise'][0])
    actor_noise = tf.Variable(runs['actor_noise'][2])  # the first drawn
    draws = itertools.count()

    def noise(shape, seed, dtype):
        # The critics' step draws first, the actor's (when it runs) next.
        return tf.cast((critic_noise, actor_noise)[next(draws) % 2], dtype)

    update = (tf.function(algorithm._counted_update, jit_compile=True,
                          autograph=False)
              if jit_compile else algorithm._counted_update)
    reported = []
    monkeypatch.setattr(tf.random, 'stateless_normal', noise)
    for k, batch in enumerate(runs['batches']):
        critic_noise.assign(runs['critic_noise'][k])
        if runs['actor_noise'][k] is not None:
            actor_noise.assign(runs['actor_noise'][k])
        if not jit_compile:  # (XLA's function draws only when traced)
            draws = itertools.count()
        reported.append({name: float(value) for name, value in update(
            _minibatch(batch, key)).items()})
    np.testing.assert_allclose([r['Q_loss'] for r in reported],
                               runs['qf_loss'], rtol=5e-3)
    np.testing.assert_allclose([r['alpha'] for r in reported],
                               runs['alpha'], rtol=1e-4)
    np.testing.assert_allclose(
        [r['policy_loss'] for r in reported[2::3]], runs['actor_loss'],
        atol=5e-3)
