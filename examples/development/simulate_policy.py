"""Watch (or film) a trained policy from a checkpoint.

    python -m examples.development.simulate_policy CHECKPOINT_DIR \\
        --max-path-length 1000 --num-rollouts 3 \\
        --render-kwargs '{"mode": "rgb_array"}' --video-path cheetah.mp4
    softlearning simulate CHECKPOINT_DIR ...            (the same)
    softlearning export CHECKPOINT_DIR OUT_DIR          (a plain-TF SavedModel)

CHECKPOINT_DIR is a ``checkpoint_00000N`` folder (or a trial folder: its
latest checkpoint). The environment is rebuilt from the variant saved with
the checkpoint. Rendering without a screen uses MuJoCo's OSMesa backend
(Debian/Ubuntu: ``apt-get install libosmesa6``; MUJOCO_GL=egl on a GPU);
writing MP4 needs ffmpeg (the imageio-ffmpeg wheel brings one).

``simulate`` never imports TensorFlow: it acts with the numpy version of the
policy (the one sampler actors use), loaded from the checkpoint's
``policy_weights.pkl``, and renders the environment directly in this
process. That films every environment that can render (gymnasium classic
control and MuJoCo, dm_control, pybullet), since OSMesa and TensorFlow never
meet (see softlearning/environments/rendering.py).
"""

import argparse
import os
import sys

import numpy as np

from softlearning.environments import rendering
from softlearning.utils import checkpoints


class SimulateError(Exception):
    """Bad input: reported in one line, exit code 2."""


def get_parser():
    from examples.utils import json_dict, positive_int, str2bool
    parser = argparse.ArgumentParser(
        prog='softlearning simulate',
        description='Run a trained policy from a checkpoint; print each '
                    "rollout's return and length; optionally write an MP4.")
    parser.add_argument('checkpoint_path', metavar='CHECKPOINT_DIR')
    parser.add_argument('--max-path-length', type=positive_int, default=1000)
    parser.add_argument('--num-rollouts', type=positive_int, default=1)
    parser.add_argument('--render-kwargs', type=json_dict, default={},
                        help='JSON, e.g. \'{"mode": "rgb_array", "width": '
                             '320, "height": 240}\'. mode "human" opens a '
                             'window (needs a display).')
    parser.add_argument('--video-path', type=str, default=None,
                        help='Write the rollouts, one after another, as an '
                             'MP4 (implies mode "rgb_array").')
    parser.add_argument('--fps', type=positive_int, default=None,
                        help="Video frame rate (default: the environment's).")
    parser.add_argument('--deterministic', type=str2bool, default=True,
                        help='Act with the mode of the policy (default) or '
                             'sample (False).')
    parser.add_argument('--seed', type=int, default=0,
                        help='Seed of the first rollout (then +1 each).')
    return parser


def load_checkpoint_variant(checkpoint_path):
    try:
        checkpoint_dir = checkpoints.resolve_checkpoint(checkpoint_path)
        checkpoints.read_manifest(checkpoint_dir)
        return checkpoint_dir, checkpoints.read_variant(checkpoint_dir)
    except checkpoints.CheckpointError as error:
        raise SimulateError(str(error)) from None


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
    """gymnasium's MuJoCo environments take width/height; classic control
    and Bullet environments render at a fixed size."""
    if environment_params['universe'] != 'gym':
        return False
    import gymnasium
    from softlearning.environments.adapters.gymnasium_adapter import (
        import_environment_module)
    domain = import_environment_module(environment_params['domain'])
    spec = gymnasium.spec(f"{domain}-{environment_params['task']}")
    return 'mujoco' in str(spec.entry_point)


def resize_frame(frame, width=None, height=None):
    """``frame`` at width x height (either may be None: keep the aspect)."""
    if not width and not height:
        return frame
    frame_height, frame_width = frame.shape[:2]
    width = width or round(frame_width * height / frame_height)
    height = height or round(frame_height * width / frame_width)
    if (width, height) == (frame_width, frame_height):
        return frame
    from PIL import Image
    return np.asarray(Image.fromarray(frame).resize(
        (int(width), int(height)), Image.BILINEAR))


def load_policy_weights(checkpoint_dir, variant):
    """The checkpoint's policy weights (numpy). Checkpoints written before
    the weights were saved on their own are read with TensorFlow in a
    short child process, so this process stays free of it."""
    try:
        weights = checkpoints.read_policy_weights(checkpoint_dir)
    except checkpoints.CheckpointError as error:
        raise SimulateError(str(error)) from None
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
        raise SimulateError(
            f"Checkpoint '{checkpoint_dir}': cannot load the policy "
            f"({error}).") from None
    return policy


def load_policy(checkpoint_dir, variant, environment):
    """The checkpoint's TensorFlow policy (for export), built from the saved
    variant."""
    import tensorflow as tf
    from softlearning import policies
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
        raise SimulateError(
            f"Checkpoint '{checkpoint_dir}': cannot load the policy "
            f"({str(error).splitlines()[0]}).") from None
    policy.refresh_numpy_weights()
    return policy


def _frame_rate(environment, fps):
    if fps:
        return fps
    metadata = getattr(getattr(environment, 'unwrapped', None), 'metadata',
                       {}) or {}
    return int(metadata.get('render_fps') or 30)


def _render_mode(args):
    render_kwargs = dict(args.render_kwargs)
    mode = render_kwargs.pop('mode', None)
    if args.video_path:
        mode = 'rgb_array'
    if mode not in (None, 'rgb_array', 'human'):
        raise SimulateError(f"--render-kwargs mode '{mode}' is not one of "
                            "rgb_array, human.")
    unknown = sorted(set(render_kwargs) - {*FRAME_SIZE_KEYS, 'camera_id'})
    if unknown:
        raise SimulateError(
            f"--render-kwargs: unknown key(s) {unknown}; valid keys: mode, "
            "width, height, camera_id.")
    return mode, render_kwargs


def simulate(args):
    checkpoint_dir, variant = load_checkpoint_variant(args.checkpoint_path)
    mode, render_kwargs = _render_mode(args)
    environment_params = (variant['environment_params'].get('evaluation')
                          or variant['environment_params']['training'])
    if mode == 'rgb_array' or rendering.renders_observations(
            environment_params):
        # Before gymnasium or dm_control import MuJoCo's OpenGL bindings.
        # (Pixel observations are rendered whatever the mode.)
        rendering.configure_offscreen_rendering()
    else:
        rendering.keep_opengl_out_of_learner()
    environment = build_environment(variant, mode, render_kwargs)
    policy = load_numpy_policy(checkpoint_dir, variant, environment,
                               seed=args.seed)
    frame_kwargs = None
    if mode == 'rgb_array':
        frame_kwargs = {key: render_kwargs[key] for key in ('camera_id',)
                        if key in render_kwargs}
    elif mode == 'human':
        frame_kwargs = {}
    from softlearning.samplers import rollouts
    with policy.set_deterministic(args.deterministic):
        paths = rollouts(args.num_rollouts, environment, policy,
                         args.max_path_length, render_kwargs=frame_kwargs,
                         seed=args.seed)
    for i, path in enumerate(paths):
        print(f"rollout {i}: return {path['return']:.2f}, "
              f"length {path['length']}", flush=True)
    if mode == 'rgb_array':
        size = {key: render_kwargs.get(key) for key in FRAME_SIZE_KEYS}
        for path in paths:
            path['frames'] = np.stack([resize_frame(frame, **size)
                                       for frame in path['frames']])
        if args.video_path:
            _write_video(args.video_path,
                         np.concatenate([p['frames'] for p in paths]),
                         _frame_rate(environment, args.fps))
    environment.close()
    return paths


def _write_video(video_path, frames, fps):
    import imageio
    imageio.mimwrite(video_path, list(frames), fps=fps, macro_block_size=1)
    print(f"video: {video_path} ({len(frames)} frames, {fps} fps)")


def export(checkpoint_path, output_dir):
    """Writes the checkpoint's policy as a SavedModel (see
    softlearning/policies/export.py for its interface)."""
    checkpoint_dir, variant = load_checkpoint_variant(checkpoint_path)
    if variant.get('encoder_params'):
        raise SimulateError(
            f"Checkpoint '{checkpoint_dir}' is of a pixel-based agent; "
            "export writes state-based policies only. Film or replay it "
            "with 'softlearning simulate'.")
    rendering.keep_opengl_out_of_learner()
    from softlearning.policies.export import export_saved_model
    environment = build_environment(variant)
    policy = load_policy(checkpoint_dir, variant, environment)
    export_saved_model(policy, environment.observation_shapes,
                       environment.action_bounds, output_dir)
    print(f"SavedModel: {output_dir}")


def _report_errors(function, *args):
    try:
        function(*args)
    except SimulateError as error:
        print(f"softlearning: error: {error}", file=sys.stderr)
        return 2
    return 0


def main(argv=None):
    args = get_parser().parse_args(argv)
    return _report_errors(simulate, args)


def export_main(argv=None):
    parser = argparse.ArgumentParser(
        prog='softlearning export',
        description='Save the policy of a checkpoint as a TensorFlow '
                    'SavedModel that acts without softlearning installed.')
    parser.add_argument('checkpoint_path', metavar='CHECKPOINT_DIR')
    parser.add_argument('output_dir', metavar='OUT_DIR')
    args = parser.parse_args(argv)
    return _report_errors(export, args.checkpoint_path, args.output_dir)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
