"""Variant specs of the development example: ``get_variant_spec(args)``.

A variant is a nested dict naming each component's class and config; it may
hold Tune search spaces (the seed is one). Per universe/domain/task defaults
live in the tables below; the command line overrides them.
"""

import copy

from ray import tune

from examples.search_spaces import to_search_space
from softlearning import curriculum
from softlearning.environments import resolve_task
from softlearning.environments.partial_observation import (
    PARTS, validate_pomdp_params)

from softlearning.environments.pixels import (pixel_settings,
                                              validate_pixel_params)
from softlearning.models.numpy_conv import encoder_config

from .config_keys import check_config_keys

DEFAULT_KEY = '__default__'

# Hidden layer sizes of the policy and the Q-functions, per algorithm. SQL
# follows the original Soft Q-Learning code (128-128 networks, batch 128):
# its update evaluates the networks on many particles per state.
HIDDEN_LAYER_SIZES = {'SAC': (256, 256), 'SQL': (128, 128),
                      'TD3': (256, 256), 'DDPG': (256, 256)}

# The Q-functions each algorithm learns: twins (clipped double Q), or one.
Q_FUNCTIONS = {'SAC': 'double_feedforward_Q_function',
               'SQL': 'double_feedforward_Q_function',
               'TD3': 'double_feedforward_Q_function',
               'DDPG': 'feedforward_Q_function'}

MAX_PATH_LENGTH = {
    DEFAULT_KEY: 1000,
    'gym': {DEFAULT_KEY: 1000, 'Pendulum': 200},
}

# Epochs of EPOCH_LENGTH environment steps each.
NUM_EPOCHS = {
    DEFAULT_KEY: 200,
    'gym': {
        DEFAULT_KEY: 200,
        'Pendulum': 10,          # 10,000 steps: SAC's quick start
        'HalfCheetah': 3000,
        'Hopper': 1000,
        'Walker2d': 3000,
        'Ant': 3000,
        'Humanoid': 10000,
    },
    'dm_control': {DEFAULT_KEY: 1000},
    'pybullet': {DEFAULT_KEY: 1000},
}

EPOCH_LENGTH = {DEFAULT_KEY: 1000}

# Uniform-random warm-up steps before the first update.
N_INITIAL_EXPLORATION_STEPS = {
    DEFAULT_KEY: 10000,
    'gym': {DEFAULT_KEY: 10000, 'Pendulum': 1000},
}

# Per algorithm, then per universe/domain.
ALGORITHM_PARAMS_PER_DOMAIN = {
    'SAC': {
        DEFAULT_KEY: {},
        'gym': {
            DEFAULT_KEY: {},
            # Pendulum's 200-step episodes and small state learn faster with
            # a larger learning rate (as in common tuned SAC settings).
            'Pendulum': {'policy_lr': 1e-3, 'Q_lr': 1e-3, 'alpha_lr': 1e-3,
                         'eval_n_episodes': 5},
        },
    },
    'SQL': {
        DEFAULT_KEY: {},
        'gym': {
            DEFAULT_KEY: {},
            'Pendulum': {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                         'eval_n_episodes': 5},
        },
    },
    # Pendulum as in common tuned TD3 settings (learning rate 1e-3).
    'TD3': {
        DEFAULT_KEY: {},
        'gym': {
            DEFAULT_KEY: {},
            'Pendulum': {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                         'eval_n_episodes': 5},
        },
    },
    'DDPG': {
        DEFAULT_KEY: {},
        'gym': {
            DEFAULT_KEY: {},
            'Pendulum': {'policy_lr': 1e-3, 'Q_lr': 1e-3,
                         'eval_n_episodes': 5},
        },
    },
}

# Per algorithm, per universe/domain reward scales. For Soft Q-Learning the
# reward scale is the inverse temperature (alpha is 1): the original
# softlearning's per-domain values.
REWARD_SCALE_PER_DOMAIN = {
    'SQL': {
        DEFAULT_KEY: 1.0,
        'gym': {
            DEFAULT_KEY: 1.0,
            'Swimmer': 30,
            'Hopper': 30,
            'HalfCheetah': 30,
            'Walker2d': 10,
            'Ant': 300,
            'Humanoid': 100,
            'Pendulum': 1,
        },
    },
}

ALGORITHM_PARAMS_BASE = {
    'config': {
        'train_every_n_steps': 1,
        'n_train_repeat': 1,
        # Env steps collected between fused update calls; see rl_algorithm.py.
        'fused_steps': 50,
        'batch_size': 256,
        'eval_n_episodes': 3,
        'eval_deterministic': True,
    },
}

ALGORITHM_PARAMS_ADDITIONAL = {
    'SAC': {
        'class_name': 'SAC',
        'config': {
            'policy_lr': 3e-4,
            'Q_lr': 3e-4,
            'alpha_lr': 3e-4,
            'initial_alpha': 1.0,
            'target_update_interval': 1,
            'tau': 5e-3,
            'target_entropy': 'auto',
            'discount': 0.99,
            'reward_scale': 1.0,
            'jit_compile': False,
        },
    },
    'SQL': {
        'class_name': 'SQL',
        'config': {
            'policy_lr': 3e-4,
            'Q_lr': 3e-4,
            # Uniform actions per next state for the soft value V(s').
            'batch_size': 128,
            'value_n_particles': 16,
            # Policy samples per state for SVGD, and the share of them that
            # is updated (the rest are the fixed particles).
            'kernel_n_particles': 16,
            'kernel_update_ratio': 0.5,
            'target_update_interval': 1,
            'tau': 5e-3,
            'discount': 0.99,
            'reward_scale': 1.0,  # per domain: REWARD_SCALE_PER_DOMAIN
            'jit_compile': False,
        },
    },
}
# Fujimoto et al.'s settings: learning rates 1e-3 in their paper, 3e-4 in
# their later code (used here off Pendulum); smoothing noise 0.2 clipped at
# 0.5; policy and targets every 2 updates. DDPG is TD3 with one Q-function,
# no smoothing and no delay (softlearning/algorithms/td3.py).
TD3_CONFIG = {
    'policy_lr': 3e-4,
    'Q_lr': 3e-4,
    'tau': 5e-3,
    'discount': 0.99,
    'reward_scale': 1.0,
    'jit_compile': False,
}
ALGORITHM_PARAMS_ADDITIONAL['TD3'] = {
    'class_name': 'TD3',
    'config': {**TD3_CONFIG, 'target_noise': 0.2, 'target_noise_clip': 0.5,
               'policy_delay': 2},
}
ALGORITHM_PARAMS_ADDITIONAL['DDPG'] = {'class_name': 'DDPG',
                                       'config': dict(TD3_CONFIG)}
ALGORITHMS = tuple(ALGORITHM_PARAMS_ADDITIONAL)

POLICIES = {'gaussian': 'FeedforwardGaussianPolicy',
            'sampling': 'FeedforwardSamplingPolicy',
            'deterministic': 'FeedforwardDeterministicPolicy',
            'recurrent': None}  # the algorithm's, from RECURRENT below
# The policies each algorithm trains; the first is its default.
ALGORITHM_POLICIES = {'SAC': ('gaussian', 'recurrent'), 'SQL': ('sampling',),
                      'TD3': ('deterministic', 'recurrent'),
                      'DDPG': ('deterministic', 'recurrent')}

# --policy recurrent: the algorithm's recurrent policy and Q-functions, and a
# pool of sequences. Small on purpose: an LSTM update costs about as much as
# the sequence is long, and 2-CPU machines are the target.
RECURRENT = {
    'policy': {'SAC': 'RecurrentGaussianPolicy',
               'TD3': 'RecurrentDeterministicPolicy',
               'DDPG': 'RecurrentDeterministicPolicy'},
    'Q_function': {'SAC': 'double_recurrent_Q_function',
                   'TD3': 'double_recurrent_Q_function',
                   'DDPG': 'recurrent_Q_function'},
    'lstm_units': 64,
    'hidden_layer_sizes': (128, 128),
    # Minibatches of batch_size windows of burn_in + sequence_length steps.
    'batch_size': 32,
    'replay_pool': {'class_name': 'SequenceReplayPool',
                    'config': {'sequence_length': 16, 'burn_in': 8}},
}
# Smaller where that learns as well, per universe/domain: Pendulum needs two
# observations to tell the angular velocity (positions only), and learns
# with a third of the default's cost per update.
RECURRENT_PER_DOMAIN = {
    DEFAULT_KEY: {},
    'gym': {DEFAULT_KEY: {},
            'Pendulum': {'lstm_units': 32, 'hidden_layer_sizes': (64, 64),
                         'sequence_length': 8, 'burn_in': 4}},
}
# Options of a policy kind beyond the network's: TD3/DDPG's Gaussian
# exploration noise while collecting (standard deviation, actions in [-1, 1]).
POLICY_CONFIG = {'deterministic': {'exploration_noise': 0.1}}

# SAC from pixels (--observation pixels): the recipe of DrQ (Kostrikov et
# al. 2020) and SAC-AE (Yarats et al. 2019), sized for CPUs. The encoder
# (models/numpy_conv.py) is DrQ's but for its second stride (2 instead of
# 1) and 64x64 frames instead of 84x84: ~6x fewer multiply-adds per frame.
# DrQ's exact network: --config environment_params.training.pixels.
# image_size=84 --config encoder_params.config.strides=[2,1,1,1]. The
# per-domain action repeats are in softlearning/environments/pixels.py.
PIXELS = {
    'pixels': {'image_size': 64, 'frame_stack': 3},
    'encoder_params': {'class_name': 'ConvEncoder',
                       'config': {'filters': (32, 32, 32, 32),
                                  'strides': (2, 2, 1, 1),
                                  'feature_size': 50}},
    'replay_pool_params': {'class_name': 'FrameReplayPool',
                           'config': {'max_size': 100000}},
    'algorithm': {'batch_size': 128, 'policy_lr': 1e-3, 'Q_lr': 1e-3,
                  'alpha_lr': 1e-3, 'initial_alpha': 0.1, 'tau': 0.01,
                  'augmentation_pad': 4, 'n_initial_exploration_steps': 1000,
                  'eval_n_episodes': 5},
    # In simulator steps: epochs and episodes count policy steps, each
    # ``action_repeat`` simulator steps.
    'epoch_simulator_steps': 8000,
    'episode_simulator_steps': 1000,
    'total_simulator_steps': 500000,
}

# Eager TensorFlow runs ~10 updates/s: debug epochs are tiny on purpose.
DEBUG_OVERRIDES = {'n_epochs': 2, 'epoch_length': 100,
                   'n_initial_exploration_steps': 50, 'eval_n_episodes': 1}


def lookup(table, universe, domain):
    """The domain's entry of a {universe: {domain: value}} table, else the
    universe's default, else the global default."""
    universe_table = table.get(universe, {})
    return universe_table.get(
        domain, universe_table.get(DEFAULT_KEY, table[DEFAULT_KEY]))


def get_environment_params(args, universe, domain, task):
    params = {'universe': universe, 'domain': domain, 'task': task,
              'kwargs': {}}
    if getattr(args, 'pomdp', None):
        params['pomdp'] = {'observe': args.pomdp,
                           'previous_action': bool(args.pomdp_previous_action)}
    elif getattr(args, 'pomdp_previous_action', False):
        raise ValueError("--pomdp-previous-action needs --pomdp "
                         f"({' or '.join(PARTS)})")
    return params


def get_algorithm_params(args, universe, domain):
    params = copy.deepcopy(ALGORITHM_PARAMS_BASE)
    additional = copy.deepcopy(ALGORITHM_PARAMS_ADDITIONAL[args.algorithm])
    params['class_name'] = additional['class_name']
    params['config'].update(additional['config'])
    params['config'].update({
        'n_epochs': lookup(NUM_EPOCHS, universe, domain),
        'epoch_length': lookup(EPOCH_LENGTH, universe, domain),
        'n_initial_exploration_steps': lookup(
            N_INITIAL_EXPLORATION_STEPS, universe, domain),
        'max_path_length': lookup(MAX_PATH_LENGTH, universe, domain),
    })
    if args.algorithm in REWARD_SCALE_PER_DOMAIN:
        params['config']['reward_scale'] = lookup(
            REWARD_SCALE_PER_DOMAIN[args.algorithm], universe, domain)
    params['config'].update(lookup(
        ALGORITHM_PARAMS_PER_DOMAIN[args.algorithm], universe, domain))
    return params


def get_policy_name(args):
    """--policy, or the algorithm's own policy; a policy the algorithm
    cannot train is an error naming the ones it can."""
    valid = ALGORITHM_POLICIES[args.algorithm]
    policy = getattr(args, 'policy', None) or valid[0]
    if policy not in valid:
        raise ValueError(
            f"--algorithm {args.algorithm} cannot train --policy {policy}; "
            f"valid policies for {args.algorithm}: {', '.join(valid)}")
    return policy


def get_variant_spec_base(args, universe, domain, task):
    algorithm_params = get_algorithm_params(args, universe, domain)
    config = algorithm_params['config']
    if args.mode == 'debug':
        config.update(DEBUG_OVERRIDES)
    overrides = {'n_epochs': args.n_epochs, 'epoch_length': args.epoch_length,
                 'max_path_length': args.max_path_length}
    config.update({key: value for key, value in overrides.items()
                   if value is not None})
    config['n_initial_exploration_steps'] = min(
        config['n_initial_exploration_steps'],
        config['n_epochs'] * config['epoch_length'])

    environment_params = get_environment_params(args, universe, domain, task)
    hidden_layer_sizes = HIDDEN_LAYER_SIZES[args.algorithm]
    policy_name = get_policy_name(args)
    variant_spec = {
        'environment_params': {
            'training': environment_params,
            'evaluation': copy.deepcopy(environment_params),
        },
        'policy_params': {
            'class_name': POLICIES[policy_name],
            'config': {'hidden_layer_sizes': hidden_layer_sizes,
                       'activation': 'relu',
                       **POLICY_CONFIG.get(policy_name, {})},
        },
        'exploration_policy_params': {'class_name': 'UniformPolicy',
                                      'config': {}},
        'Q_params': {
            'class_name': Q_FUNCTIONS[args.algorithm],
            'config': {'hidden_layer_sizes': hidden_layer_sizes,
                       'activation': 'relu'},
        },
        'algorithm_params': algorithm_params,
        'replay_pool_params': {
            'class_name': 'SimpleReplayPool',
            'config': {'max_size': int(1e6)},
        },
        'sampler_params': {
            'class_name': 'SimpleSampler',
            'config': {'max_path_length': config['max_path_length']},
        },
        # Environment-parameter curriculum (softlearning/curriculum/), or None.
        'curriculum': None,
        'run_params': {
            'seed': (tune.randint(0, 10000) if args.seed is None
                     else args.seed),
            'checkpoint_at_end': True,
            'checkpoint_frequency': 0,
            'checkpoint_replay_pool': False,
            # A checkpoint folder a new trial starts from (--restore).
            'restore': None,
            'run_eagerly': (args.mode == 'debug' if args.run_eagerly is None
                            else args.run_eagerly),
            'tf_num_threads': None,
        },
    }
    if policy_name == 'recurrent':
        make_recurrent(variant_spec, args.algorithm,
                       lookup(RECURRENT_PER_DOMAIN, universe, domain))
    if getattr(args, 'observation', 'state') == 'pixels':
        make_pixel_based(variant_spec, args, policy_name)
    return variant_spec


def make_pixel_based(variant_spec, args, policy_name):
    """SAC from rendered frames (PIXELS): the environments observe stacked
    frames, the agent encodes them with a shared convolutional encoder, and
    the pool stores each frame once per transition. Epoch and episode
    lengths are in policy steps, so they follow the action repeat; options
    given on the command line win."""
    if args.algorithm != 'SAC' or policy_name != 'gaussian':
        raise ValueError(
            f"--observation pixels trains SAC with its Gaussian policy; "
            f"got --algorithm {args.algorithm} --policy {policy_name}. "
            "Valid: --algorithm SAC (--policy gaussian)")
    training = variant_spec['environment_params']['training']
    training['pixels'] = pixel_settings(
        training['universe'], training['domain'], PIXELS['pixels'])
    variant_spec['encoder_params'] = copy.deepcopy(PIXELS['encoder_params'])
    pool = copy.deepcopy(PIXELS['replay_pool_params'])
    pool['config']['frame_stack'] = training['pixels']['frame_stack']
    variant_spec['replay_pool_params'] = pool
    variant_spec['algorithm_params']['config'].update(PIXELS['algorithm'])


def set_pixel_lengths(config, args, config_keys, action_repeat):
    """PIXELS' simulator-step lengths in policy steps, for each length the
    command line (an option, or --config) did not set."""
    lengths = {
        'epoch_length': PIXELS['epoch_simulator_steps'] // action_repeat,
        'max_path_length': (PIXELS['episode_simulator_steps']
                            // action_repeat),
        'n_epochs': (PIXELS['total_simulator_steps']
                     // PIXELS['epoch_simulator_steps'])}
    if args.mode == 'debug':
        lengths.update({key: DEBUG_OVERRIDES[key] for key in lengths
                        if key in DEBUG_OVERRIDES})
    for key, value in lengths.items():
        if (getattr(args, key, None) is None
                and f'algorithm_params.config.{key}' not in config_keys):
            config[key] = value
    if 'algorithm_params.config.n_initial_exploration_steps' not in (
            config_keys):
        warm_up = (DEBUG_OVERRIDES['n_initial_exploration_steps']
                   if args.mode == 'debug'
                   else PIXELS['algorithm']['n_initial_exploration_steps'])
        config['n_initial_exploration_steps'] = min(
            warm_up, config['n_epochs'] * config['epoch_length'])


def finish_pixel_settings(variant_spec, args, config_keys):
    """After --config overrides: epochs and episodes in policy steps of the
    chosen action repeat (unless given), the evaluation environment renders
    as the training one does, the pool stacks as many frames, and the
    settings are valid (or one clear error)."""
    environment_params = variant_spec['environment_params']
    training = environment_params['training']
    if not training.get('pixels'):
        return
    training['pixels'] = pixel_settings(
        training['universe'], training['domain'], training['pixels'])
    set_pixel_lengths(variant_spec['algorithm_params']['config'], args,
                      config_keys, training['pixels']['action_repeat'])
    variant_spec['sampler_params']['config']['max_path_length'] = (
        variant_spec['algorithm_params']['config']['max_path_length'])
    evaluation = environment_params.get('evaluation')
    if evaluation and not any(key.startswith(
            'environment_params.evaluation.pixels') for key in config_keys):
        evaluation['pixels'] = copy.deepcopy(training['pixels'])
    pool = variant_spec['replay_pool_params']
    if pool['class_name'] == 'FrameReplayPool':
        if 'replay_pool_params.config.frame_stack' not in config_keys:
            pool['config']['frame_stack'] = training['pixels']['frame_stack']
        elif pool['config']['frame_stack'] != training['pixels'][
                'frame_stack']:
            raise ValueError(
                f"replay_pool_params.config.frame_stack "
                f"({pool['config']['frame_stack']}) must equal the "
                f"environment's frame_stack "
                f"({training['pixels']['frame_stack']})")
    encoder_config(variant_spec.get('encoder_params', {}).get('config'))
    for params in environment_params.values():
        if params:
            validate_pixel_params(params)


def make_recurrent(variant_spec, algorithm, overrides):
    """Recurrent policy and Q-functions, a sequence pool (RECURRENT, with
    the domain's ``overrides``)."""
    network = {key: overrides.get(key, RECURRENT[key])
               for key in ('hidden_layer_sizes', 'lstm_units')}
    variant_spec['policy_params']['class_name'] = (
        RECURRENT['policy'][algorithm])
    # The options of the algorithm's feedforward policy (TD3's exploration
    # noise) hold for its recurrent one.
    feedforward_kind = ALGORITHM_POLICIES[algorithm][0]
    variant_spec['policy_params']['config'].update(
        **POLICY_CONFIG.get(feedforward_kind, {}), **network)
    variant_spec['Q_params']['class_name'] = RECURRENT['Q_function'][algorithm]
    variant_spec['Q_params']['config'].update(network)
    pool = copy.deepcopy(RECURRENT['replay_pool'])
    pool['config'].update({key: overrides[key] for key in
                           ('sequence_length', 'burn_in') if key in overrides})
    pool['config']['max_size'] = (
        variant_spec['replay_pool_params']['config']['max_size'])
    variant_spec['replay_pool_params'] = pool
    variant_spec['algorithm_params']['config']['batch_size'] = (
        RECURRENT['batch_size'])


def set_by_path(variant_spec, dotted_key, value, source='--config'):
    """Sets ``variant_spec['a']['b']`` from 'a.b'; unknown keys are an error
    naming the valid ones (new keys are allowed only inside a 'config', and
    checked against the constructor by ``check_config_keys``). A search
    space value (see examples/search_spaces.py) becomes Tune's."""
    keys = dotted_key.split('.')
    node = variant_spec
    for depth, key in enumerate(keys[:-1]):
        if not isinstance(node, dict) or key not in node:
            valid = sorted(node) if isinstance(node, dict) else []
            raise ValueError(
                f"Unknown variant key '{'.'.join(keys[:depth + 1])}' in "
                f"{source} {dotted_key}; valid keys here: {valid}")
        node = node[key]
    last = keys[-1]
    if not isinstance(node, dict) or (
            last not in node and keys[-2:-1] != ['config']):
        valid = sorted(node) if isinstance(node, dict) else []
        raise ValueError(f"Unknown variant key '{dotted_key}' in {source}; "
                         f"valid keys here: {valid}")
    node[last] = to_search_space(f'{source} {dotted_key}', value)


def get_variant_spec(args):
    """Builds the variant spec; bad environments fail here, before Ray or
    TensorFlow start, with the valid choices."""
    universe, domain = args.universe, args.domain
    task = resolve_task(universe, domain, args.task)
    variant_spec = get_variant_spec_base(args, universe, domain, task)

    run_params = variant_spec['run_params']
    if args.checkpoint_frequency is not None:
        run_params['checkpoint_frequency'] = args.checkpoint_frequency
    if args.checkpoint_at_end is not None:
        run_params['checkpoint_at_end'] = args.checkpoint_at_end
    if args.checkpoint_replay_pool is not None:
        run_params['checkpoint_replay_pool'] = args.checkpoint_replay_pool
    set_parallel_sampling(variant_spec, args)
    if getattr(args, 'curriculum', None):
        variant_spec['curriculum'] = curriculum.load_curriculum_file(
            args.curriculum)
    # A sweep file's overrides first, so that --config wins over them.
    for key, value in getattr(args, 'sweep_config', None) or ():
        set_by_path(variant_spec, key, value, source=f'--sweep {args.sweep}:')
    for key, value in args.config:
        set_by_path(variant_spec, key, value)
    finish_pixel_settings(variant_spec, args, [key for key, _ in (
        *(getattr(args, 'sweep_config', None) or ()), *args.config)])
    validate_curriculum(variant_spec)
    for environment_params in variant_spec['environment_params'].values():
        if environment_params:
            validate_pomdp_params(environment_params)
    check_config_keys(variant_spec)
    return variant_spec


def set_parallel_sampling(variant_spec, args):
    """``--num-samplers N`` (N >= 1) collects with N Ray actors."""
    num_samplers = getattr(args, 'num_samplers', 0)
    if not num_samplers:
        return
    config = variant_spec['sampler_params']['config']
    variant_spec['sampler_params'] = {
        'class_name': 'RemoteSampler',
        'config': {**config, 'num_samplers': num_samplers,
                   'sampler_cpus': (1.0 if args.sampler_cpus is None
                                    else args.sampler_cpus),
                   'asynchronous': args.async_sampling},
    }


def validate_curriculum(variant_spec):
    """A malformed curriculum, or a parameter the training environment
    cannot set, fails here, before any training."""
    spec = variant_spec.get('curriculum')
    if not spec:
        return
    curriculum.validate_curriculum_spec(spec)
    curriculum.validate_for_environment_params(
        spec, variant_spec['environment_params']['training'])
