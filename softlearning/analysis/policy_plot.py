"""A picture of a policy: actions sampled at a few states, as a PNG.

    softlearning plot-policy CHECKPOINT --states '[[0, 0], [-2.5, -2.5]]' \\
        --num-samples 200 --output policy.png

One panel per state. Each panel is the action plane (action dimensions
``--action-dims``, [-1, 1] x [-1, 1]) with the sampled actions as dots and,
for 2-D actions, the contours of the checkpoint's first Q-function Q(s, a).
A multimodal policy, like Soft Q-Learning's on the multi-goal task
(examples/multi_goal), shows as separate clouds of dots.

States are flat observations (the policy's observation keys concatenated);
without ``--states``, the evaluation environment's first reset states
(seeds 0, 1, 2). The policy samples in numpy with the checkpoint's weights,
exactly as sampler actors act.
"""

import os

import numpy as np

from softlearning.utils import checkpoints


class PlotError(Exception):
    """Bad input: reported in one line, exit code 2."""


def load_checkpoint(checkpoint_path):
    """(checkpoint folder, variant, evaluation environment), as
    ``softlearning simulate`` loads them."""
    from softlearning.experiments.trial import policy_loading
    from softlearning.experiments.errors import ExperimentError
    try:
        checkpoint_dir, variant = policy_loading.load_checkpoint_variant(
            checkpoint_path)
    except ExperimentError as error:
        raise PlotError(str(error)) from None
    return (checkpoint_dir, variant,
            policy_loading.build_environment(variant))


def load_policy_and_Q(checkpoint_dir, variant, environment, seed=0):
    """The checkpoint's policy as the numpy policy ``simulate`` acts with
    (seeded), and its first Q-function as a function (observations,
    actions) -> (N,) in numpy (read with TensorFlow)."""
    from softlearning import value_functions
    from softlearning.experiments.trial.policy_loading import load_numpy_policy
    from softlearning.utils.tensorflow_logging import import_tensorflow
    tf = import_tensorflow()
    policy = load_numpy_policy(checkpoint_dir, variant, environment,
                               seed=seed)
    Q = value_functions.get(variant['Q_params'], environment)[0]
    tf.train.Checkpoint(Q0=Q.model).read(os.path.join(
        checkpoint_dir, checkpoints.TF_CHECKPOINT_PREFIX)).expect_partial()

    def Q_values(observations, actions):
        return Q(observations, actions.astype(np.float32)).numpy()[:, 0]
    return policy, Q_values


def split_observations(flat_states, policy, environment):
    """Flat (N, D) observations -> the policy's observation dict."""
    keys = policy.observation_keys
    shapes = [environment.observation_shapes[key] for key in keys]
    sizes = [int(np.prod(shape)) for shape in shapes]
    flat = np.asarray(flat_states, np.float32)
    if flat.ndim != 2 or flat.shape[1] != sum(sizes):
        raise PlotError(
            f"--states must be a list of observations of {sum(sizes)} numbers "
            f"({', '.join(f'{k}: {s}' for k, s in zip(keys, sizes))}); got "
            f"shape {flat.shape}")
    parts = np.split(flat, np.cumsum(sizes)[:-1], axis=1)
    return {key: part.reshape(-1, *shape)
            for key, part, shape in zip(keys, parts, shapes)}


def reset_states(environment, policy, n=3):
    observations = [environment.reset(seed=seed) for seed in range(n)]
    return np.stack([np.concatenate(
        [np.ravel(o[key]) for key in policy.observation_keys])
        for o in observations])


def sample_actions(policy, observations, num_samples):
    """(N states, num_samples, |A|) actions sampled at each state."""
    n_states = len(next(iter(observations.values())))
    repeated = {key: np.repeat(value, num_samples, axis=0)
                for key, value in observations.items()}
    with policy.set_deterministic(False):
        actions = policy.actions_np(repeated)
    return actions.reshape(n_states, num_samples, -1)


def plot(flat_states, actions, output, action_dims=(0, 1), Q_grids=None,
         title=None):
    """Writes the PNG: one panel per state; Q_grids, if given, holds per
    state (grid_x, grid_y, Q values) for contours."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    i, j = action_dims
    n = len(flat_states)
    figure, axes = plt.subplots(1, n, figsize=(3.6 * n, 3.8), squeeze=False)
    for k, axis in enumerate(axes[0]):
        if Q_grids is not None:
            grid_x, grid_y, values = Q_grids[k]
            contours = axis.contour(grid_x, grid_y, values, 20,
                                    cmap='viridis', linewidths=0.8)
            axis.clabel(contours, inline=True, fontsize=6, fmt='%.0f')
        axis.plot(actions[k, :, i], actions[k, :, j], 'o', color='tab:red',
                  markersize=2.5, alpha=0.6)
        axis.set_xlim(-1.05, 1.05)
        axis.set_ylim(-1.05, 1.05)
        axis.set_aspect('equal')
        axis.set_xlabel(f'action[{i}]')
        axis.set_ylabel(f'action[{j}]')
        state = np.array2string(np.asarray(flat_states[k]), precision=2,
                                separator=', ', max_line_width=40)
        axis.set_title(f'state {state}', fontsize=8)
    if title:
        figure.suptitle(title, fontsize=9)
    figure.tight_layout()
    figure.savefig(output, dpi=110)
    plt.close(figure)
    return output


def Q_contour_grids(Q_values, observations, n_states, size=41):
    """Q(s, a) over a grid of 2-D actions, per state."""
    axis = np.linspace(-1, 1, size)
    grid_x, grid_y = np.meshgrid(axis, axis)
    grid = np.stack([grid_x.ravel(), grid_y.ravel()], axis=-1)
    grids = []
    for k in range(n_states):
        state = {key: np.repeat(value[k:k + 1], len(grid), axis=0)
                 for key, value in observations.items()}
        grids.append((grid_x, grid_y,
                      Q_values(state, grid).reshape(size, size)))
    return grids


def plot_policy(args):
    # This process reads the Q-function with TensorFlow, so it must load no
    # OpenGL library (see softlearning/environments/rendering.py).
    from softlearning.environments.rendering import keep_opengl_out_of_learner
    keep_opengl_out_of_learner()
    checkpoint_dir, variant, environment = load_checkpoint(
        args.checkpoint_path)
    policy, Q_values = load_policy_and_Q(checkpoint_dir, variant,
                                         environment, seed=args.seed)
    action_size = int(np.prod(environment.action_shape))
    if max(args.action_dims) >= action_size or min(args.action_dims) < 0:
        raise PlotError(f"--action-dims {args.action_dims} outside the "
                        f"{action_size} action dimensions")
    if args.num_samples < 1:
        raise PlotError(f"--num-samples must be positive, got "
                        f"{args.num_samples}")
    flat_states = (np.asarray(args.states, np.float32)
                   if args.states is not None
                   else reset_states(environment, policy))
    observations = split_observations(flat_states, policy, environment)
    actions = sample_actions(policy, observations, args.num_samples)
    Q_grids = (Q_contour_grids(Q_values, observations, len(flat_states))
               if action_size == 2 else None)
    algorithm = variant['algorithm_params']['class_name']
    plot(flat_states, actions, args.output, tuple(args.action_dims), Q_grids,
         title=f"{algorithm}: {args.num_samples} sampled actions per state"
               f" ({os.path.basename(checkpoint_dir)})")
    print(f"plot: {args.output}")
    return actions
