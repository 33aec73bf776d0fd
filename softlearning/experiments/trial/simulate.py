"""Watch (or film) a trained policy from a checkpoint, or export it.

``simulate`` never imports TensorFlow: it acts with the numpy version of the
policy (the one sampler actors use), loaded from the checkpoint's
``policy_weights.pkl``, and renders the environment directly in this
process. That films every environment that can render (gymnasium classic
control and MuJoCo, dm_control, pybullet), since OSMesa and TensorFlow never
meet (see softlearning/environments/rendering.py). Rendering without a
screen uses MuJoCo's OSMesa backend (Debian/Ubuntu: ``apt-get install
libosmesa6``; MUJOCO_GL=egl on a GPU); writing MP4 needs ffmpeg (the
imageio-ffmpeg wheel brings one).
"""

import numpy as np

from softlearning.environments import rendering

from softlearning.experiments.errors import ExperimentError
from softlearning.experiments.trial.policy_loading import (
    FRAME_SIZE_KEYS, build_environment, load_checkpoint_variant,
    load_numpy_policy, load_policy)
from softlearning.utils.registry import check_keys


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


def _frame_rate(environment, fps):
    if fps:
        return fps
    metadata = getattr(getattr(environment, 'unwrapped', None), 'metadata',
                       {}) or {}
    return int(metadata.get('render_fps') or 30)


def _render_mode(render_kwargs, video_path):
    render_kwargs = dict(render_kwargs or {})
    mode = render_kwargs.pop('mode', None)
    if video_path:
        mode = 'rgb_array'
    if mode not in (None, 'rgb_array', 'human'):
        raise ExperimentError(f"--render-kwargs mode '{mode}' is not one of "
                            "rgb_array, human.")
    check_keys(render_kwargs,
               ['mode', *FRAME_SIZE_KEYS, 'camera_id'],
               'key(s)', '--render-kwargs', error=ExperimentError)
    return mode, render_kwargs


def simulate(checkpoint_path, max_path_length=1000, num_rollouts=1,
             render_kwargs=None, video_path=None, fps=None,
             deterministic=True, seed=0):
    """Runs the checkpoint's policy for ``num_rollouts`` episodes (seeds
    ``seed``, ``seed + 1``, ...), prints each return and length (and
    success, on goal-conditioned tasks), and writes
    them as one MP4 to ``video_path``. ``render_kwargs``: ``mode``
    ('rgb_array' or 'human'), ``width``, ``height``, ``camera_id``. Returns
    the paths (with their frames when filmed)."""
    checkpoint_dir, variant = load_checkpoint_variant(checkpoint_path)
    mode, render_kwargs = _render_mode(render_kwargs, video_path)
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
                               seed=seed)
    frame_kwargs = None
    if mode == 'rgb_array':
        frame_kwargs = {key: render_kwargs[key] for key in ('camera_id',)
                        if key in render_kwargs}
    elif mode == 'human':
        frame_kwargs = {}
    from softlearning.samplers import rollouts
    with policy.set_deterministic(deterministic):
        paths = rollouts(num_rollouts, environment, policy,
                         max_path_length, render_kwargs=frame_kwargs,
                         seed=seed)
    for i, path in enumerate(paths):
        success = ('' if path.get('success') is None
                   else f", success {path['success']:.0f}")
        print(f"rollout {i}: return {path['return']:.2f}, "
              f"length {path['length']}{success}", flush=True)
    if mode == 'rgb_array':
        size = {key: render_kwargs.get(key) for key in FRAME_SIZE_KEYS}
        for path in paths:
            path['frames'] = np.stack([resize_frame(frame, **size)
                                       for frame in path['frames']])
        if video_path:
            _write_video(video_path,
                         np.concatenate([p['frames'] for p in paths]),
                         _frame_rate(environment, fps))
    environment.close()
    return paths


def _write_video(video_path, frames, fps):
    import imageio
    imageio.mimwrite(video_path, list(frames), fps=fps, macro_block_size=1)
    print(f"video: {video_path} ({len(frames)} frames, {fps} fps)")


EXPORT_FORMATS = ('savedmodel', 'onnx')


def export(checkpoint_path, output_dir, format='savedmodel'):
    """Writes the checkpoint's policy as a SavedModel (``format``
    'savedmodel', see softlearning/policies/export.py for its interface)
    or as ``output_dir``/policy.onnx with its policy.json ('onnx', see
    softlearning/policies/onnx_export.py; written from the numpy policy,
    without TensorFlow)."""
    if format not in EXPORT_FORMATS:
        raise ExperimentError(f"Unknown export format '{format}'; valid "
                              f"formats: {', '.join(EXPORT_FORMATS)}")
    checkpoint_dir, variant = load_checkpoint_variant(checkpoint_path)
    if variant.get('encoder_params'):
        raise ExperimentError(
            f"Checkpoint '{checkpoint_dir}' is of a pixel-based agent; "
            f"export ({', '.join(EXPORT_FORMATS)}) writes state-based "
            "policies only. Film or replay it with 'softlearning simulate'.")
    rendering.keep_opengl_out_of_learner()
    if format == 'onnx':
        return _export_onnx(checkpoint_dir, variant, output_dir)
    from softlearning.utils.tensorflow_logging import import_tensorflow
    import_tensorflow()  # first, so that its start-up lines are filtered
    from softlearning.policies.export import export_saved_model
    environment = build_environment(variant)
    policy = load_policy(checkpoint_dir, variant, environment)
    export_saved_model(policy, environment.observation_shapes,
                       environment.action_bounds, output_dir)
    print(f"SavedModel: {output_dir}")


def _export_onnx(checkpoint_dir, variant, output_dir):
    from softlearning.policies import onnx_export
    class_name = variant['policy_params']['class_name']
    refusal = onnx_export.onnx_refusal(class_name)
    if refusal:
        raise ExperimentError(f"Checkpoint '{checkpoint_dir}': {refusal}")
    try:
        onnx_export.import_onnx()
    except ImportError as error:
        raise ExperimentError(str(error)) from None
    environment = build_environment(variant)
    policy = load_numpy_policy(checkpoint_dir, variant, environment)
    path = onnx_export.export_onnx(
        policy, environment.observation_shapes, environment.action_bounds,
        output_dir, class_name=class_name)
    environment.close()
    print(f"ONNX: {path} (its metadata also in "
          f"{onnx_export.METADATA_FILE} beside it)")
