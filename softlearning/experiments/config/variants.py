"""A variant spec from the run's options: presets, overrides, options.

A variant is a nested dict naming each component's class and config; it may
hold Tune search spaces (the seed is one). It is built in this order, each
step over the ones before it (the precedence, lowest first):

1. the presets (presets/): common.py, the algorithm's file, and the form of
   agent (--policy recurrent, --observation pixels);
2. their per-universe/domain overrides, in the same order, then an
   example's own defaults (``get_variant_spec(args, defaults)``);
3. debug-sized epochs (run_example_debug without --mode local);
4. the sweep file's ``config`` (--sweep);
5. --config KEY=VALUE, in the order given;
6. explicit options: --n-epochs, --epoch-length, --max-path-length, --seed
   and the checkpoint options.

What follows from the result is derived last, unless given in 4-6: the
sampler's episode length is the algorithm's, a preset's warm-up as long as
the whole run is cut to a tenth of it (with a notice), pixel agents' lengths
are in simulator steps, and a bfloat16 update runs without the preset's XLA
(precision.py). Every config value a constructor would take by default is
then written into the variant, so ``params.json`` records all of them.
"""

import copy
import sys

from softlearning import curriculum
from softlearning.algorithms import CLASSES
from softlearning.environments import import_path, resolve_task
from softlearning.environments.checks import check_environments
from softlearning.environments.partial_observation import (
    PARTS, validate_pomdp_params)
from softlearning.environments.pixels import (
    pixel_settings, validate_pixel_params)
from softlearning.models.numpy_conv import encoder_config
from softlearning.value_functions.categorical_settings import (
    check_categorical_critics)

from softlearning.experiments.config import presets
from softlearning.experiments.config import value_types
from softlearning.experiments.config.hindsight import set_hindsight
from softlearning.experiments.config.config_keys import (
    check_config_keys, constructor_defaults, with_constructor_defaults)
from softlearning.experiments.config.evaluation_environment import (
    evaluation_follows_training)
from softlearning.experiments.config.precision import (
    finish_precision, set_precision)
from softlearning.experiments.config.presets import common
from softlearning.experiments.config.provenance import Provenance
from softlearning.experiments.config.run_length import (
    fit_warm_up, no_update_notice)
from softlearning.experiments.config.search_spaces import (
    DrawnSeed, holds_search_space, is_search_space, to_search_space)


def merge(base, update):
    """``base`` with ``update`` merged in, recursively (a copy)."""
    merged = copy.deepcopy(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def set_by_path(variant_spec, dotted_key, value, source='--config'):
    """Sets ``variant_spec['a']['b']`` from 'a.b'; unknown keys are an error
    naming the valid ones (new keys are allowed only inside a 'config',
    checked against the constructor by ``check_config_keys``, and an
    environment's 'kwargs', checked by building it: environments/checks.py). A search
    space value (see search_spaces.py) becomes Tune's."""
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
            last not in node and keys[-2:-1] not in (['config'],
                                                     ['kwargs'])):
        valid = sorted(node) if isinstance(node, dict) else []
        raise ValueError(f"Unknown variant key '{dotted_key}' in {source}; "
                         f"valid keys here: {valid}")
    node[last] = to_search_space(f'{source} {dotted_key}',
                                 value_types.plain(value))


def _domain_overrides(preset, universe, domain):
    """A preset's overrides for the universe, then for universe/domain."""
    overrides = getattr(preset, 'DOMAINS', {})
    return {**overrides.get(universe, {}),
            **overrides.get(f'{universe}/{domain}', {})}


def policy_kind(args, preset):
    """--policy, or the algorithm's own policy; a policy the algorithm
    cannot train is an error naming the ones it can."""
    kind = args.policy or preset.POLICIES[0]
    if kind not in preset.POLICIES:
        raise ValueError(
            f"--algorithm {args.algorithm} cannot train --policy {kind}; "
            f"valid policies for {args.algorithm}: "
            f"{', '.join(preset.POLICIES)}")
    return kind


def _forms(args, kind):
    """The preset modules of the forms of agent the options ask for."""
    forms = []
    if kind == 'recurrent':
        forms.append(presets.form('recurrent'))
    if args.observation == 'pixels':
        pixels = presets.form('pixels')
        if (args.algorithm, kind) != pixels.TRAINS:
            raise ValueError(
                f"--observation pixels trains SAC with its Gaussian policy; "
                f"got --algorithm {args.algorithm} --policy {kind}. "
                "Valid: --algorithm SAC (--policy gaussian)")
        forms.append(pixels)
    return forms


def _environment_params(args, universe, domain, task):
    params = {'universe': universe, 'domain': domain, 'task': task,
              'kwargs': {}}
    folder = import_path(domain)
    if folder is not None:
        params['import_path'] = folder
    if args.pomdp:
        params['pomdp'] = {'observe': args.pomdp,
                           'previous_action': bool(args.pomdp_previous_action)}
    elif args.pomdp_previous_action:
        raise ValueError("--pomdp-previous-action needs --pomdp "
                         f"({' or '.join(PARTS)})")
    return params


def _form_variant(form, algorithm):
    return form.variant(algorithm) if hasattr(form, 'variant') else (
        form.VARIANT)


def preset_variant(args, universe, domain, task):
    """Steps 1-2: the presets and their domain overrides, with what the
    command chose (environment, policy, curriculum, sampler actors)."""
    provenance = provenance_of(args)
    preset = presets.get(args.algorithm)
    forms = _forms(args, policy_kind(args, preset))
    variant_spec = merge(common.VARIANT, preset.VARIANT)
    provenance.step('preset', variant_spec)
    environment = _environment_params(args, universe, domain, task)
    variant_spec['environment_params'] = {'training': environment}
    provenance.step('option', variant_spec)
    for form in forms:
        variant_spec = merge(variant_spec, _form_variant(form, args.algorithm))
    for params in variant_spec.values():
        # Every component's config is there for overrides to go into.
        if isinstance(params, dict) and 'class_name' in params:
            params.setdefault('config', {})
    provenance.step('preset', variant_spec)
    training = variant_spec['environment_params']['training']
    if 'pixels' in training:
        training['pixels'] = pixel_settings(universe, domain,
                                            training['pixels'])
        provenance.step('domain override', variant_spec)
    variant_spec['environment_params']['evaluation'] = copy.deepcopy(
        training)
    provenance.copy('environment_params.training',
                    'environment_params.evaluation', variant_spec)
    for source in (common, preset, *forms):
        for key, value in _domain_overrides(source, universe, domain).items():
            set_by_path(variant_spec, key, value, source='preset')
    provenance.step('domain override', variant_spec)
    if args.curriculum:
        variant_spec['curriculum'] = curriculum.load_curriculum_file(
            args.curriculum)
    set_parallel_sampling(variant_spec, args)
    set_hindsight(variant_spec, getattr(args, 'her', None), universe, domain)
    set_n_step(variant_spec, args.n_step)
    set_network(variant_spec, args.network)
    set_precision(variant_spec, args.precision)
    provenance.step('option', variant_spec)
    return variant_spec


def provenance_of(args):
    """The Provenance that softlearning show-config gave the options
    (prepare's ``provenance``), or one that records nothing."""
    return getattr(args, 'provenance', None) or Provenance(recording=False)


# ``--network simba``'s sizes: one block of 128 (512 inside) for the actor
# and for each critic, half SAC's updates per second on a 2-core CPU. The
# paper's critics have two blocks of 512, a GPU setting (two of 256 already
# run at a tenth of SAC's rate); --config Q_params.config.hidden_layer_sizes.
SIMBA_SIZES = {'policy_params': (128,), 'Q_params': (128,)}
# ``--network simbav2``'s: the paper's actor (one block of 128); its critics
# have two blocks of 512 (a GPU setting), here two of 128.
SIMBAV2_SIZES = {'policy_params': (128,), 'Q_params': (128, 128)}
NETWORK_SIZES = {'simba': SIMBA_SIZES, 'simbav2': SIMBAV2_SIZES}


def set_network(variant_spec, network):
    """``--network simba``: SimBa networks (models/simba.py) for the actor
    and the critics, at SIMBA_SIZES; ``--network simbav2``: SimbaV2's
    (models/simbav2.py), at SIMBAV2_SIZES. Either compiles the update with
    XLA where that is faster (``jit_compile='auto'``), unless the preset
    says otherwise."""
    if network in (None, 'mlp'):
        return
    for name, sizes in NETWORK_SIZES[network].items():
        params = variant_spec[name]
        if ('encoder_params' in variant_spec
                or 'recurrent' in params['class_name'].lower()):
            raise ValueError(
                f"--network {network} reads state observations with "
                f"feedforward networks; this agent's {name} are "
                f"{params['class_name']}"
                f"{' on pixels' if 'encoder_params' in variant_spec else ''}"
                f" (recurrent and pixel agents: --network mlp).")
        params['config'].update(network=network, hidden_layer_sizes=sizes)
    # SimBa's normalizations are element-wise work that XLA fuses: 1.35x
    # the update's speed on AVX-512 (algorithms/compilation.py). A preset's
    # own choice stands (SimbaV2's, TQC's: on).
    variant_spec['algorithm_params']['config'].setdefault('jit_compile',
                                                          'auto')


def set_n_step(variant_spec, n_step):
    """``--n-step N`` (N > 1): the pool returns n-step transitions
    (replay_pools/n_step_replay_pool.py); a preset's n-step pool
    (FastTD3's) returns N-step ones."""
    if n_step == 1:
        return
    pool = variant_spec['replay_pool_params']
    if pool['class_name'] == 'NStepReplayPool':
        pool['config']['n_step'] = n_step
        return
    if pool['class_name'] != 'SimpleReplayPool':
        raise ValueError(
            f"--n-step {n_step} needs transitions from a SimpleReplayPool; "
            f"this agent's pool is a {pool['class_name']} (recurrent and "
            "pixel agents: --n-step 1).")
    variant_spec['replay_pool_params'] = {
        'class_name': 'NStepReplayPool',
        'config': {**pool['config'], 'n_step': n_step}}


def set_parallel_sampling(variant_spec, args):
    """``--num-samplers N`` (N >= 1) collects with N Ray actors;
    ``--envs-per-sampler K`` gives each sampler K environments (not given:
    the preset's number, 1 where it names none), stepped in processes of
    their own with ``--vector-mode async``."""
    envs_per_sampler = getattr(args, 'envs_per_sampler', None)
    if envs_per_sampler is not None:
        variant_spec['sampler_params']['config'][
            'envs_per_sampler'] = envs_per_sampler
    if getattr(args, 'vector_mode', 'sync') != 'sync':
        sampler = variant_spec['sampler_params']['config']
        if sampler.get('envs_per_sampler', 1) == 1:
            raise ValueError(
                f"--vector-mode {args.vector_mode} steps all but a "
                "sampler's first environment in processes of their own: it "
                "needs --envs-per-sampler 2 or more (this run has 1).")
        sampler['vector_mode'] = args.vector_mode
    num_samplers = args.num_samplers
    if not num_samplers:
        return
    variant_spec['sampler_params'] = {
        'class_name': 'RemoteSampler',
        'config': {**variant_spec['sampler_params']['config'],
                   'num_samplers': num_samplers,
                   'sampler_cpus': (1.0 if args.sampler_cpus is None
                                    else args.sampler_cpus),
                   'asynchronous': args.async_sampling},
    }


# Step 6: options -> variant entries.
ALGORITHM_OPTIONS = ('n_epochs', 'epoch_length', 'max_path_length')
RUN_OPTIONS = ('checkpoint_frequency', 'checkpoint_at_end',
               'checkpoint_replay_pool', 'run_eagerly', 'deterministic_ops')


def option_values(args):
    """{dotted key: value} of the explicit options the user gave."""
    given = {f'algorithm_params.config.{name}': getattr(args, name)
             for name in ALGORITHM_OPTIONS}
    given.update({f'run_params.{name}': getattr(args, name)
                  for name in RUN_OPTIONS})
    if args.seed is not None:
        given['run_params.seed'] = args.seed
    return {key: value for key, value in given.items() if value is not None}


# Provenance of user_settings' sources ('--sweep FILE:' is 'sweep').
SETTING_SOURCES = {'--config': '--config', 'option': 'option'}


def user_settings(args):
    """Steps 4-6 in order, as (dotted key, value, source) triples."""
    settings = [(key, value, f'--sweep {args.sweep}:') for key, value in (
        getattr(args, 'sweep_config', None) or ())]
    settings += [(key, value, '--config') for key, value in args.config]
    settings += [(key, value, 'option')
                 for key, value in option_values(args).items()]
    return settings


def _derive(variant_spec, given, preset_max_path_length, notice):
    """Values that follow from others, unless the user set them."""
    config = variant_spec['algorithm_params']['config']
    epoch_length = config.get('epoch_length', 1000)
    max_path_length = config.get('max_path_length', 1000)
    sampler = variant_spec['sampler_params']['config']
    if 'sampler_params.config.max_path_length' not in given:
        # A searched episode length stays the evaluation's: copied, its grid
        # would be crossed with itself. Training episodes keep the preset's.
        sampler['max_path_length'] = (
            preset_max_path_length if is_search_space(max_path_length)
            else max_path_length)
    fit_warm_up(config, epoch_length, given, notice)


def finish_pixels(variant_spec, given, debug):
    """After the user's settings: epochs and episodes in policy steps of
    the chosen action repeat (unless given), the evaluation environment
    renders as the training one does, the pool stacks as many frames, and
    the settings are valid (or one clear error)."""
    environment_params = variant_spec['environment_params']
    training = environment_params['training']
    if not training.get('pixels'):
        return
    training['pixels'] = pixel_settings(
        training['universe'], training['domain'], training['pixels'])
    repeat = training['pixels']['action_repeat']
    steps = presets.form('pixels').SIMULATOR_STEPS
    config = variant_spec['algorithm_params']['config']
    lengths = {'epoch_length': steps['epoch_length'] // repeat,
               'max_path_length': steps['max_path_length'] // repeat,
               'n_epochs': steps['total'] // steps['epoch_length']}
    for key, value in lengths.items():
        if debug and key in ('n_epochs', 'epoch_length'):
            continue  # debug-sized
        if f'algorithm_params.config.{key}' not in given:
            config[key] = value
    if not any(key.startswith('environment_params.evaluation.pixels')
               for key in given):
        environment_params['evaluation']['pixels'] = copy.deepcopy(
            training['pixels'])
    pool = variant_spec['replay_pool_params']
    if pool['class_name'] == 'FrameReplayPool':
        if 'replay_pool_params.config.frame_stack' not in given:
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


def validate_curriculum(variant_spec):
    """A malformed curriculum, or a parameter the training environment
    cannot set, fails here, before any training."""
    spec = variant_spec.get('curriculum')
    if not spec:
        return
    curriculum.validate_curriculum_spec(spec)
    curriculum.validate_for_environment_params(
        spec, variant_spec['environment_params']['training'])


def _notice_function(args):
    """Notices go to the options' list (printed once the whole input is
    known to be good), or straight to stderr."""
    notices = getattr(args, 'notices', None)
    if notices is not None:
        return notices.append
    return lambda message: print(f"[softlearning] Notice: {message}",
                                 file=sys.stderr, flush=True)


def get_variant_spec(args, defaults=None):
    """The variant spec of the run's options (``args``, the command line's
    or the Python API's); bad environments, keys and values fail here,
    before Ray or TensorFlow start, with the valid choices. ``defaults``:
    an example's own settings ({dotted key: value}), over the presets and
    under everything else (debug-sized epochs included)."""
    provenance = provenance_of(args)
    universe, domain = args.universe, args.domain
    task = resolve_task(universe, domain, args.task)
    variant_spec = preset_variant(args, universe, domain, task)
    for key, value in (defaults or {}).items():
        set_by_path(variant_spec, key, value, source="the example's defaults")
        provenance.step('example default', variant_spec, keys=[key])
    variant_spec['run_params']['seed'] = DrawnSeed(0, 10000)
    provenance.step('preset', variant_spec)
    debug = args.mode == 'debug'
    if debug:
        for key, value in common.DEBUG.items():
            set_by_path(variant_spec, key, value, source='debug mode')
            provenance.step('debug mode', variant_spec, keys=[key])
    preset_max_path_length = variant_spec['algorithm_params']['config'].get(
        'max_path_length', 1000)
    settings = user_settings(args)
    before = copy.deepcopy(variant_spec)
    for key, value, source in settings:
        set_by_path(variant_spec, key, value, source=source)
        provenance.step(SETTING_SOURCES.get(source, 'sweep'), variant_spec,
                        keys=[key])
    check_config_keys(variant_spec)
    value_types.check_settings(settings, before,
                               constructor_defaults(variant_spec))
    given = {key for key, _, _ in settings}
    evaluation_follows_training(variant_spec, given)
    finish_pixels(variant_spec, given, debug)
    _derive(variant_spec, given, preset_max_path_length,
            notice=_notice_function(args))
    finish_precision(variant_spec, given, _notice_function(args))
    provenance.step('derived', variant_spec)
    validate_curriculum(variant_spec)
    check_categorical_critics(variant_spec, CLASSES)
    for environment_params in variant_spec['environment_params'].values():
        if environment_params:
            validate_pomdp_params(environment_params)
    # Built once here (searched-over ones by the trials).
    check_environments(variant_spec['environment_params'],
                       skip=holds_search_space)
    variant_spec = with_constructor_defaults(variant_spec)
    provenance.step('constructor default', variant_spec)
    if isinstance(variant_spec['run_params']['seed'], DrawnSeed):
        variant_spec['run_params']['seed'] = (
            variant_spec['run_params']['seed'].as_tune())
    untrained = no_update_notice(variant_spec['algorithm_params']['config'])
    if untrained and not debug:  # (a debug-sized run checks a setup only)
        _notice_function(args)(untrained)
    return variant_spec
