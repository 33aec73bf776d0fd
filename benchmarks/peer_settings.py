"""The peers' settings, read from softlearning's presets: each (algorithm,
environment) cell's variant is built as softlearning builds it (presets,
per-domain overrides, constructor defaults), and the entries a peer can
take are copied from it, under softlearning's names (params.json's
``algorithm_params.config``), then turned into the peer's constructor
arguments. The suite's ``config`` overrides are applied to that variant
first, as softlearning's benchmark applies them: the peers take those
among the entries below, and the rest (softlearning's own machinery:
fused steps, initializers) are softlearning's only.

Runs in softlearning's interpreter (the host side); the worker gets the
constructor arguments as JSON.
"""

from softlearning import experiments
from softlearning.experiments.benchmark.suites import SuiteError
from softlearning.experiments.config.presets import tqc as tqc_preset

LIBRARY_MODULES = {'sbx': 'sbx', 'sb3': 'stable_baselines3'}
# SBX's class of each (DroQ is its SAC with dropout + LayerNorm critics);
# SB3 has SAC and TD3, and TQC through sb3-contrib.
PEER_CLASSES = {'SAC': 'SAC', 'TD3': 'TD3', 'TQC': 'TQC', 'DroQ': 'SAC',
                'CrossQ': 'CrossQ'}
SB3_ALGORITHMS = ('SAC', 'TD3', 'TQC')
# Classes a library keeps outside its own package.
CLASS_MODULES = {('sb3', 'TQC'): 'sb3_contrib'}
# SBX's TQC builds two critics whatever n_critics says (peers.py's
# docstring): a suite's softlearning TQC must have as many
# (check_tqc_critics). sb3-contrib's builds n_critics: the preset's.
TQC_CRITICS = 2
TQC_CRITICS_KEY = 'Q_params.config.n_Q_functions'
# Activations both peers build from a name (peer_worker.ACTIVATIONS).
PEER_ACTIVATIONS = ('relu',)
# softlearning's hindsight replay pool and what SB3 calls its counterpart
# (both libraries take SB3's, SBX being built on SB3); goal-conditioned
# observations are Dicts, which SB3 feeds through MultiInputPolicy
# (each entry flattened, then concatenated: the same MLP).
HINDSIGHT_POOL = 'HindsightReplayPool'
PEER_HINDSIGHT_BUFFER = 'HerReplayBuffer'
HINDSIGHT_ENTRIES = {
    'replay_pool': 'replay_pool_params.class_name',
    'replay_pool_strategy': 'replay_pool_params.config.strategy',
    'replay_pool_relabeled_goals':
        'replay_pool_params.config.relabeled_goals',
}

# Peer setting -> the variant entry it is read from. Every algorithm's:
COMMON_ENTRIES = {
    'policy_lr': 'algorithm_params.config.policy_lr',
    'Q_lr': 'algorithm_params.config.Q_lr',
    'discount': 'algorithm_params.config.discount',
    'tau': 'algorithm_params.config.tau',
    'batch_size': 'algorithm_params.config.batch_size',
    'reward_scale': 'algorithm_params.config.reward_scale',
    'n_train_repeat': 'algorithm_params.config.n_train_repeat',
    'train_every_n_steps': 'algorithm_params.config.train_every_n_steps',
    'hidden_layer_sizes': 'policy_params.config.hidden_layer_sizes',
    'activation': 'policy_params.config.activation',
    'n_Q_functions': 'Q_params.config.n_Q_functions',
    'replay_pool_max_size': 'replay_pool_params.config.max_size',
}
# Entries a run's settings carry only where the preset leaves their
# defaults (one environment per sampler, plain MLPs): every other run's
# settings stay as they were.
VECTOR_ENTRIES = {
    'envs_per_sampler': ('sampler_params.config.envs_per_sampler', 1),
    'network': ('policy_params.config.network', 'mlp'),
    'Q_network': ('Q_params.config.network', 'mlp'),
}
# softlearning's networks the peers can build, and whether the peer then
# normalizes the observations (VecNormalize, from the environment steps'
# running statistics; softlearning's normalized_mlp keeps those of the
# batches its updates train on, relabeled goals included).
PEER_NETWORKS = {'mlp': False, 'normalized_mlp': True}
SAC_ENTRIES = {
    'alpha_lr': 'algorithm_params.config.alpha_lr',
    'initial_alpha': 'algorithm_params.config.initial_alpha',
    'target_entropy': 'algorithm_params.config.target_entropy',   # -|A|
    'target_update_interval': 'algorithm_params.config.target_update_interval',
}
POLICY_DELAY = {'policy_delay': 'algorithm_params.config.policy_delay'}
ALGORITHM_ENTRIES = {
    'SAC': SAC_ENTRIES,
    'TD3': {'exploration_noise': 'policy_params.config.exploration_noise',
            'target_noise': 'algorithm_params.config.target_noise',
            'target_noise_clip': 'algorithm_params.config.target_noise_clip',
            **POLICY_DELAY},        # targets are updated with the policy
    'TQC': {**SAC_ENTRIES,
            'n_quantiles': 'Q_params.config.n_quantiles',
            'top_quantiles_to_drop_per_net': (
                'algorithm_params.config.top_quantiles_to_drop_per_net')},
    'DroQ': {**SAC_ENTRIES, **POLICY_DELAY,
             'dropout_rate': 'Q_params.config.dropout_rate',
             'layer_norm': 'Q_params.config.layer_norm'},
    # No target networks: no target_update_interval. (SBX's CrossQ has
    # batch renormalization in actor and critics and Adam's beta1 0.5 by
    # default, as the preset.)
    'CrossQ': {**{name: entry for name, entry in SAC_ENTRIES.items()
                  if name != 'target_update_interval'},
               **POLICY_DELAY,
               'Q_hidden_layer_sizes': 'Q_params.config.hidden_layer_sizes'},
}
ALGORITHMS = tuple(ALGORITHM_ENTRIES)
# Twin critics without an n_Q_functions entry of their own.
TWIN_Q_FUNCTIONS = ('double_feedforward_Q_function',)


def check_tqc_critics(suite, algorithms, library):
    """Refuses to run the peer's TQC against a suite whose softlearning TQC
    has another number of critics: SBX's two, or for SB3 (sb3-contrib's,
    which takes the preset's count) a count the suite's config changes."""
    if 'TQC' not in algorithms:
        return
    preset = tqc_preset.VARIANT['Q_params']['config']['n_Q_functions']
    critics = suite.config.get(TQC_CRITICS_KEY, preset)
    if library == 'sbx' and critics != TQC_CRITICS:
        raise SuiteError(
            f"SBX's TQC has {TQC_CRITICS} critics; this suite's softlearning "
            f"TQC has {critics} ({TQC_CRITICS_KEY}: the preset's "
            f"{preset} unless the suite's config sets it). Set "
            f"'{TQC_CRITICS_KEY}: {TQC_CRITICS}' in the suite's config for "
            "the same agent on both sides (examples/benchmarks/tqc_50k.yaml), "
            "or leave TQC out (--algorithms).")
    if library == 'sb3' and critics != preset:
        raise SuiteError(
            f"SB3's TQC (sb3-contrib) takes the preset's {preset} critics; "
            f"this suite's config sets {TQC_CRITICS_KEY}: {critics} for "
            "softlearning only. Run it with --library sbx, or leave TQC out "
            "(--algorithms).")


def _entry(variant, dotted):
    node = variant
    for key in dotted.split('.'):
        node = node[key]
    return node


def preset_settings(algorithm, environment, library=None, overrides=None):
    """The settings of softlearning's preset of ``algorithm`` on
    ``environment`` ('gym/Hopper/v5') that the peers take, under
    softlearning's names (``library``: whose TQC critic count), after the
    suite's ``overrides`` (its ``config``: dotted variant entries)."""
    universe, domain, task = environment.split('/')
    variant = experiments.variant_spec(algorithm=algorithm,
                                       universe=universe, domain=domain,
                                       task=task, config=overrides or {})
    return variant_settings(algorithm, environment, variant, library)


def variant_settings(algorithm, environment, variant, library=None):
    """preset_settings of a variant as softlearning builds it (constructor
    defaults included)."""
    if variant['Q_params']['class_name'] in TWIN_Q_FUNCTIONS:
        variant['Q_params']['config'].setdefault('n_Q_functions', 2)
    config = {name: _entry(variant, entry) for name, entry in {
        **COMMON_ENTRIES, **ALGORITHM_ENTRIES[algorithm]}.items()}
    for name in ('hidden_layer_sizes', 'Q_hidden_layer_sizes'):
        if name in config:
            config[name] = list(config[name])
    if algorithm == 'TQC' and library == 'sbx':  # check_tqc_critics
        config['n_Q_functions'] = TQC_CRITICS
    if _entry(variant, HINDSIGHT_ENTRIES['replay_pool']) == HINDSIGHT_POOL:
        # Only then: the settings of every other run are unchanged.
        try:
            config.update({name: _entry(variant, entry)
                           for name, entry in HINDSIGHT_ENTRIES.items()})
        except KeyError as error:
            raise SuiteError(
                f"{algorithm} on {environment}: the preset's "
                f"{HINDSIGHT_POOL} has no {error}; the peers take its "
                "strategy and relabeled_goals.") from None
    critic_sizes = list(_entry(variant, 'Q_params.config.hidden_layer_sizes'))
    if ('Q_hidden_layer_sizes' not in config
            and critic_sizes != config['hidden_layer_sizes']):
        raise SuiteError(
            f"{algorithm} on {environment}: the peers' {algorithm} has one "
            f"network size for actor and critics; softlearning's preset has "
            f"{config['hidden_layer_sizes']} and {critic_sizes}.")
    entries = {name: _entry(variant, entry)
               for name, (entry, _) in VECTOR_ENTRIES.items()}
    if any(entries[name] != default
           for name, (_, default) in VECTOR_ENTRIES.items()):
        config.update(entries)
    for name in ('network', 'Q_network'):
        if entries[name] not in PEER_NETWORKS:
            raise SuiteError(
                f"{algorithm} on {environment}: the peers build networks "
                f"{', '.join(PEER_NETWORKS)}, not the preset's "
                f"{entries[name]!r}.")
    if entries['network'] != entries['Q_network']:
        raise SuiteError(
            f"{algorithm} on {environment}: the peers normalize the "
            "observations for actor and critics alike; the preset's networks "
            f"are {entries['network']!r} and {entries['Q_network']!r}.")
    if config['activation'] not in PEER_ACTIVATIONS:
        raise SuiteError(
            f"{algorithm}: the peers build activations "
            f"{', '.join(PEER_ACTIVATIONS)}, not the preset's "
            f"{config['activation']!r}.")
    # Adam with each library's own epsilon (an implementation detail, not
    # a setting softlearning's presets choose): 1e-7 in Keras, 1e-8 in
    # optax and PyTorch.
    config['optimizer'] = 'Adam'
    return config


def settings(algorithm, environment, suite, preset=None, library=None):
    """Every setting of one run, under softlearning's names where they
    exist (``algorithm_params.config`` of params.json): the preset's
    (``preset``, or read now for ``library``), then the suite's
    protocol."""
    config = dict(preset or preset_settings(algorithm, environment,
                                            library, suite.config))
    evaluation = suite.evaluation
    envs = config.get('envs_per_sampler', 1)
    for name, steps in (('steps', suite.steps),
                        ('evaluation interval', evaluation['interval']),
                        ('warmup_steps', suite.warmup_steps)):
        if steps % envs:
            raise SuiteError(
                f"{algorithm} on {environment}: the suite's {name} "
                f"({steps}) is not a multiple of the preset's {envs} "
                "environments per sampler, which the peers step together.")
    config.update({
        'n_initial_exploration_steps': suite.warmup_steps,
        'initial_exploration_policy': 'uniform',
        # One row of progress.csv per evaluation: softlearning's epochs.
        'epoch_length': evaluation['interval'],
        'n_epochs': suite.steps // evaluation['interval'],
        'eval_n_episodes': evaluation['episodes'],
        'eval_deterministic': True,
    })
    return config


def constructor_arguments(library, algorithm, config):
    """The peer's keyword arguments for ``config``, but for ``seed``
    (run_params.seed: trials that differ only in it are seeds of one
    configuration). JSON: the peer worker turns
    ``policy_kwargs.activation_fn`` and ``action_noise`` into its
    objects."""
    if library == 'sb3' and config['Q_lr'] != config['policy_lr']:
        raise SuiteError("SB3 has one learning rate for actor and critics; "
                         f"got policy_lr {config['policy_lr']} and Q_lr "
                         f"{config['Q_lr']}.")
    if library == 'sb3' and algorithm not in SB3_ALGORITHMS:
        raise SuiteError(f"SB3 has no {algorithm}; use --library sbx.")
    if (library == 'sbx' and algorithm == 'TQC'
            and config['n_Q_functions'] != TQC_CRITICS):
        raise SuiteError(f"SBX's TQC has {TQC_CRITICS} critics, not "
                         f"{config['n_Q_functions']}.")
    if 'alpha_lr' in config and config['alpha_lr'] != config['policy_lr']:
        raise SuiteError("The peers' entropy coefficient learns at the "
                         "actor's learning rate; got alpha_lr "
                         f"{config['alpha_lr']}, policy_lr "
                         f"{config['policy_lr']}.")
    arguments = {
        'learning_rate': config['policy_lr'],
        'buffer_size': config['replay_pool_max_size'],
        'learning_starts': config['n_initial_exploration_steps'],
        'batch_size': config['batch_size'],
        'tau': config['tau'],
        'gamma': config['discount'],
        **update_schedule(config),
        'policy_kwargs': {
            'net_arch': list(config['hidden_layer_sizes']),
            'activation_fn': config['activation'],
            'n_critics': config['n_Q_functions'],
        },
        'verbose': 0,
    }
    if is_goal_conditioned(config):
        arguments['replay_buffer_class'] = PEER_HINDSIGHT_BUFFER
        arguments['replay_buffer_kwargs'] = {
            'n_sampled_goal': config['replay_pool_relabeled_goals'],
            'goal_selection_strategy': config['replay_pool_strategy']}
    if library == 'sbx':
        arguments['qf_learning_rate'] = config['Q_lr']
    else:
        arguments['device'] = 'cpu'
    if algorithm != 'TD3':  # SAC and its family
        arguments['ent_coef'] = f"auto_{float(config['initial_alpha'])}"
        arguments['target_entropy'] = config['target_entropy']
        if library == 'sb3':
            arguments['target_update_interval'] = config[
                'target_update_interval']
        else:
            arguments['policy_delay'] = config.get('policy_delay', 1)
        if algorithm == 'TQC':
            arguments['top_quantiles_to_drop_per_net'] = config[
                'top_quantiles_to_drop_per_net']
            arguments['policy_kwargs']['n_quantiles'] = config['n_quantiles']
        if algorithm == 'DroQ':
            arguments['policy_kwargs'].update(
                dropout_rate=config['dropout_rate'],
                layer_norm=config['layer_norm'])
        if algorithm == 'CrossQ':  # no target networks: no tau
            del arguments['tau']
            arguments['policy_kwargs']['net_arch'] = {
                'pi': list(config['hidden_layer_sizes']),
                'qf': list(config['Q_hidden_layer_sizes'])}
    else:
        arguments.update({
            'policy_delay': config['policy_delay'],
            'target_policy_noise': config['target_noise'],
            'target_noise_clip': config['target_noise_clip'],
            'action_noise': {'class': 'NormalActionNoise', 'mean': 0.0,
                             'sigma': config['exploration_noise']},
        })
    return arguments


def update_schedule(config):
    """SB3's ``train_freq`` and ``gradient_steps`` for softlearning's
    updates per step: SB3 counts ``train_freq`` in steps of its vector of
    ``envs_per_sampler`` environments, each of them that many transitions."""
    envs = config.get('envs_per_sampler', 1)
    every, repeat = config['train_every_n_steps'], config['n_train_repeat']
    if envs == 1:
        return {'train_freq': every, 'gradient_steps': repeat}
    if (envs * repeat) % every == 0:
        return {'train_freq': 1, 'gradient_steps': envs * repeat // every}
    if every % envs == 0:
        return {'train_freq': every // envs, 'gradient_steps': repeat}
    raise SuiteError(
        f"{repeat} update(s) every {every} steps with {envs} environments "
        "per step: the peers update after whole steps of all their "
        "environments; make train_every_n_steps a multiple or a divisor of "
        f"{envs} times n_train_repeat.")


def environments(config):
    """params.json's ``benchmark.constructor.environments`` (of a config
    with VECTOR_ENTRIES): how many the peer steps at once (SB3's
    DummyVecEnv) and whether it normalizes their observations
    (VecNormalize)."""
    return {'count': config['envs_per_sampler'],
            'normalize_observations': PEER_NETWORKS[config['network']]}


def is_goal_conditioned(config):
    """Whether the run's preset replays with hindsight: a goal-conditioned
    task, of Dict observations."""
    return config.get('replay_pool') == HINDSIGHT_POOL


def peer_default_arguments(library, config):
    """The peer's keyword arguments at its own defaults (``--peer-defaults``):
    only what the protocol fixes, its warm-up of uniform random steps."""
    arguments = {'learning_starts': config['n_initial_exploration_steps'],
                 'verbose': 0}
    if library == 'sb3':
        arguments['device'] = 'cpu'
    return arguments


def constructor(library, algorithm, config, peer_defaults=False):
    """params.json's ``benchmark.constructor``: what the worker builds;
    ``peer_defaults``: the peer's own settings but for the protocol's."""
    return {
        # The module goes with the library (sb3-contrib's TQC aside), the
        # class with the algorithm: neither names a configuration of its
        # own.
        'module': CLASS_MODULES.get((library, algorithm),
                                    LIBRARY_MODULES[library]),
        'class': PEER_CLASSES[algorithm],
        'policy': ('MultiInputPolicy' if is_goal_conditioned(config)
                   else 'MlpPolicy'),
        # (Only where they differ from one environment, not normalized.)
        **({'environments': environments(config)}
           if 'envs_per_sampler' in config and not peer_defaults else {}),
        'kwargs': (peer_default_arguments(library, config) if peer_defaults
                   else constructor_arguments(library, algorithm, config))}
