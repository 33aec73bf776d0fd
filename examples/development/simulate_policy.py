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

TensorFlow and OSMesa do not share a process well (rendering crashes
once both are loaded, and importing TensorFlow after MuJoCo's OpenGL
bindings crashes too), so with rgb_array the rollouts run here, recording the
simulator state after every step (``get_episode_state``), and a second,
TensorFlow-free process replays those states and renders the frames.
"""

import argparse
import os
import sys

from softlearning.environments.rendering import exit_without_teardown
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


def build_environment(variant, render_mode=None, render_kwargs=None):
    """The evaluation environment of the variant; gymnasium needs its
    render mode (and MuJoCo its frame size) at construction."""
    from softlearning import environments
    params = dict(variant['environment_params'].get('evaluation')
                  or variant['environment_params']['training'])
    kwargs = dict(params.get('kwargs') or {})
    frame_size = {key: value for key, value in (render_kwargs or {}).items()
                  if key in ('width', 'height')}
    if params['universe'] == 'dm_control':
        # dm_control renders from its physics at any size, on request.
        kwargs['render_kwargs'] = {**kwargs.get('render_kwargs', {}),
                                   **frame_size}
    elif render_mode:
        kwargs['render_mode'] = render_mode
        kwargs.update(frame_size)
    return environments.get_environment(
        params['universe'], params['domain'], params['task'], kwargs)


def load_policy(checkpoint_dir, variant, environment):
    """The checkpoint's policy, built from the saved variant."""
    import tensorflow as tf
    from softlearning import policies
    policy = policies.get(variant['policy_params'], environment)
    checkpoint = tf.train.Checkpoint(policy=policy.model)
    try:
        checkpoint.read(os.path.join(
            checkpoint_dir, checkpoints.TF_CHECKPOINT_PREFIX)).expect_partial()
    except (tf.errors.OpError, ValueError, AssertionError) as error:
        raise SimulateError(
            f"Checkpoint '{checkpoint_dir}': cannot load the policy "
            f"({str(error).splitlines()[0]}).") from None
    policy.refresh_numpy_weights()
    return policy


class _StateRecorder:
    """Stands in for the environment in ``rollout``: its ``render`` records
    the simulator state (to be rendered later, elsewhere) and returns the
    state's index as the placeholder frame."""

    def __init__(self, environment):
        self._environment = environment
        self.states = []

    def reset(self, seed=None):
        return self._environment.reset(seed=seed)

    def step(self, action):
        return self._environment.step(action)

    def render(self, **unused_kwargs):
        self.states.append(self._environment.get_episode_state())
        return len(self.states) - 1


def _render_states(variant, render_kwargs, states):
    """Runs in a fresh process without TensorFlow: frames of ``states``."""
    import numpy as np
    from softlearning.environments.rendering import (
        configure_offscreen_rendering)
    configure_offscreen_rendering()
    environment = build_environment(variant, 'rgb_array', render_kwargs)
    frame_kwargs = {key: render_kwargs[key] for key in ('camera_id',)
                    if key in render_kwargs}
    frames = []
    for state in states:
        environment.set_episode_state(state)
        frames.append(environment.render(**frame_kwargs))
    fps = _frame_rate(environment, None)
    environment.close()
    return np.stack(frames), fps


def _render_in_subprocess(variant, render_kwargs, states):
    import concurrent.futures
    import multiprocessing
    with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context('spawn')) as pool:
        return pool.submit(_render_states, variant, render_kwargs,
                           states).result()


def _frame_rate(environment, fps):
    if fps:
        return fps
    metadata = getattr(getattr(environment, 'unwrapped', None), 'metadata',
                       {}) or {}
    return int(metadata.get('render_fps') or 30)


def simulate(args):
    checkpoint_dir, variant = load_checkpoint_variant(args.checkpoint_path)
    render_kwargs = dict(args.render_kwargs)
    mode = render_kwargs.pop('mode', None)
    if args.video_path:
        mode = 'rgb_array'
    if mode not in (None, 'rgb_array', 'human'):
        raise SimulateError(f"--render-kwargs mode '{mode}' is not one of "
                            "rgb_array, human.")
    # TensorFlow must load before MuJoCo's OpenGL bindings (the other order
    # crashes at TensorFlow's import).
    import tensorflow  # noqa: F401
    from softlearning.samplers import rollouts
    environment = build_environment(
        variant, 'human' if mode == 'human' else None, render_kwargs)
    if mode == 'rgb_array' and environment.get_episode_state() is None:
        raise SimulateError(
            f"Cannot film {environment}: it cannot save its simulator "
            "state for offscreen rendering.")
    policy = load_policy(checkpoint_dir, variant, environment)
    recorder = _StateRecorder(environment) if mode == 'rgb_array' else None
    with policy.set_deterministic(args.deterministic):
        paths = rollouts(args.num_rollouts, recorder or environment, policy,
                         args.max_path_length,
                         render_kwargs={} if recorder else None,
                         seed=args.seed)
    for i, path in enumerate(paths):
        print(f"rollout {i}: return {path['return']:.2f}, "
              f"length {path['length']}", flush=True)
    if recorder is not None:
        frames, fps = _render_in_subprocess(variant, render_kwargs,
                                            recorder.states)
        for path in paths:
            path['frames'] = frames[path['frames']]
        if args.video_path:
            _write_video(args.video_path, frames, args.fps or fps)
    return paths


def _write_video(video_path, frames, fps):
    import imageio
    imageio.mimwrite(video_path, list(frames), fps=fps, macro_block_size=1)
    print(f"video: {video_path} ({len(frames)} frames, {fps} fps)")


def export(checkpoint_path, output_dir):
    """Writes the checkpoint's policy as a SavedModel (see
    softlearning/policies/export.py for its interface)."""
    checkpoint_dir, variant = load_checkpoint_variant(checkpoint_path)
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
        return exit_without_teardown(2)
    return exit_without_teardown(0)


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
