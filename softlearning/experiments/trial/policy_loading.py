"""A trained policy from a checkpoint: the variant it was trained with, its
evaluation environment, and its policy as numpy (what sampler actors act
with; no TensorFlow in the process) or as TensorFlow.

    policy = load_trained_policy('~/ray_results/.../checkpoint_000010')
    environment = policy.environment
"""

import os

from softlearning.environments import rendering
from softlearning.utils import checkpoints

from softlearning.experiments.errors import ExperimentError


def load_checkpoint_variant(checkpoint_path):
    try:
        checkpoint_dir = checkpoints.resolve_checkpoint(checkpoint_path)
        checkpoints.read_manifest(checkpoint_dir)
        return checkpoint_dir, checkpoints.read_variant(checkpoint_dir)
    except checkpoints.CheckpointError as error:
        raise ExperimentError(str(error)) from None


FRAME_SIZE_KEYS = ('width', 'height')


def build_environment(variant, render_mode=None, render_kwargs=None):
    """The evaluation environment of the variant. gymnasium needs its render
    mode at construction, and MuJoCo environments their frame size; other
    environments render at their own size (frames are resized afterwards,
    see ``resize_frame``)."""
    from softlearning import environments
    params = dict(variant['environment_params'].get('evaluation')
                  or variant['environment_params']['training'])
    kwargs = dict(params.get('kwargs') or {})
    frame_size = {key: value for key, value in (render_kwargs or {}).items()
                  if key in FRAME_SIZE_KEYS}
    if params['universe'] == 'dm_control':
        # dm_control renders from its physics at any size, on request.
        kwargs['render_kwargs'] = {**kwargs.get('render_kwargs', {}),
                                   **frame_size}
    elif render_mode:
        kwargs['render_mode'] = render_mode
        if _accepts_frame_size(params):
            kwargs.update(frame_size)
    return environments.get_environment_from_params({**params,
                                                     'kwargs': kwargs})


def _accepts_frame_size(environment_params):
    """gymnasium's MuJoCo environments (and gymnasium-robotics' Fetch
    tasks) take width/height; classic control and Bullet environments
    render at a fixed size."""
    if environment_params['universe'] != 'gym':
        return False
    import gymnasium
    from softlearning.environments.adapters.gymnasium_adapter import (
        GymnasiumAdapter, import_environment_module)
    GymnasiumAdapter._register_environments()
    domain = import_environment_module(
        environment_params['domain'],
        import_path=environment_params.get('import_path'))
    spec = gymnasium.spec(f"{domain}-{environment_params['task']}")
    return 'mujoco' in str(spec.entry_point).lower()


def load_policy_weights(checkpoint_dir, variant):
    """The checkpoint's policy weights (numpy). Checkpoints written before
    the weights were saved on their own are read with TensorFlow in a
    short child process, so this process stays free of it."""
    try:
        weights = checkpoints.read_policy_weights(checkpoint_dir)
    except checkpoints.CheckpointError as error:
        raise ExperimentError(str(error)) from None
    if weights is not None:
        return weights
    import concurrent.futures
    import multiprocessing
    with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context('spawn')) as pool:
        return pool.submit(_policy_weights_with_tensorflow, checkpoint_dir,
                           variant).result()


def _policy_weights_with_tensorflow(checkpoint_dir, variant):
    rendering.keep_opengl_out_of_learner()
    environment = build_environment(variant)
    return [w for w in load_policy(checkpoint_dir, variant,
                                   environment).get_weights()]


def load_numpy_policy(checkpoint_dir, variant, environment, seed=None):
    """The checkpoint's policy as its TensorFlow-free (numpy) version."""
    from softlearning.policies.numpy_policies import get_numpy_policy
    try:
        policy = get_numpy_policy(
            variant['policy_params'], environment, seed=seed,
            encoder_params=variant.get('encoder_params'))
        policy.set_weights(load_policy_weights(checkpoint_dir, variant))
    except ValueError as error:
        raise ExperimentError(
            f"Checkpoint '{checkpoint_dir}': cannot load the policy "
            f"({error}).") from None
    return policy


def load_policy(checkpoint_dir, variant, environment):
    """The checkpoint's TensorFlow policy (for export), built from the saved
    variant."""
    from softlearning import policies
    from softlearning.utils.tensorflow_logging import import_tensorflow
    tf = import_tensorflow()
    from softlearning.models.conv_encoder import get_encoder
    # A pixel agent's policy reads the encoder its Q-functions trained.
    encoder = get_encoder(variant.get('encoder_params'),
                          environment.observation_shapes)
    policy = policies.get(variant['policy_params'], environment,
                          encoder=encoder)
    saved = {'policy': policy.model}
    if encoder is not None:
        saved['encoder'] = encoder.model
    checkpoint = tf.train.Checkpoint(**saved)
    try:
        checkpoint.read(os.path.join(
            checkpoint_dir, checkpoints.TF_CHECKPOINT_PREFIX)).expect_partial()
    except (tf.errors.OpError, ValueError, AssertionError) as error:
        raise ExperimentError(
            f"Checkpoint '{checkpoint_dir}': cannot load the policy "
            f"({str(error).splitlines()[0]}).") from None
    policy.refresh_numpy_weights()
    return policy


class TrainedPolicy:
    """What ``load_trained_policy`` returns: the policy, with the variant
    and environment it belongs to."""

    def __init__(self, policy, variant, environment, checkpoint_dir):
        self.policy = policy
        self.variant = variant
        self.environment = environment
        self.checkpoint_dir = checkpoint_dir

    def __getattr__(self, name):
        return getattr(self.policy, name)


def load_trained_policy(checkpoint_path, tensorflow=False, seed=None):
    """The policy of a checkpoint (a ``checkpoint_00000N`` folder, or a trial
    folder: its latest), numpy by default (``action(observation)`` acts in
    numpy, TensorFlow never imported), or TensorFlow with
    ``tensorflow=True``. Its ``.environment`` is the variant's evaluation
    environment, ``.variant`` the variant."""
    checkpoint_dir, variant = load_checkpoint_variant(
        os.path.expanduser(checkpoint_path))
    rendering.keep_opengl_out_of_learner()
    environment = build_environment(variant)
    policy = (load_policy(checkpoint_dir, variant, environment) if tensorflow
              else load_numpy_policy(checkpoint_dir, variant, environment,
                                     seed=seed))
    return TrainedPolicy(policy, variant, environment, checkpoint_dir)
