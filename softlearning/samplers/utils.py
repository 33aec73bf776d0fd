"""Rollouts and path statistics shared by samplers and evaluation."""

import numpy as np

STATISTIC_KEYS = ('return-mean', 'return-min', 'return-max', 'return-std',
                  'episode-length-mean', 'episode-length-min',
                  'episode-length-max')


def path_statistics(returns, lengths):
    """Return/length summary of a set of finished paths. The keys are the
    same with no paths (values NaN), so result tables keep their columns."""
    if len(returns) == 0:
        return {**{key: float('nan') for key in STATISTIC_KEYS},
                'episodes': 0}
    returns = np.asarray(returns, dtype=np.float64)
    lengths = np.asarray(lengths, dtype=np.float64)
    return {
        'return-mean': float(returns.mean()),
        'return-min': float(returns.min()),
        'return-max': float(returns.max()),
        'return-std': float(returns.std()),
        'episode-length-mean': float(lengths.mean()),
        'episode-length-min': float(lengths.min()),
        'episode-length-max': float(lengths.max()),
        'episodes': int(len(returns)),
    }


def epoch_path_statistics(epoch_returns, epoch_lengths, recent_returns,
                          recent_lengths):
    """Statistics of the paths finished this epoch, or of the last few
    paths when none finished this epoch (episodes longer than epochs)."""
    if epoch_returns:
        return path_statistics(epoch_returns, epoch_lengths)
    return path_statistics(recent_returns, recent_lengths)


def rollout(environment, policy, path_length, render_kwargs=None, seed=None):
    """Runs one episode (at most ``path_length`` steps) and returns the path
    as a dict of stacked arrays plus its return and length. With
    ``render_kwargs`` it also renders a frame after every step."""
    observation = environment.reset(seed=seed)
    observations, actions, rewards, terminals, frames = [], [], [], [], []
    if render_kwargs is not None:
        frames.append(environment.render(**render_kwargs))
    policy_state = None  # a recurrent policy's, from the zero state
    for _ in range(path_length):
        action, policy_state = policy.step(observation, policy_state)
        next_observation, reward, terminated, truncated, _ = environment.step(
            action)
        observations.append(observation)
        actions.append(action)
        rewards.append(reward)
        terminals.append(terminated)
        if render_kwargs is not None:
            frames.append(environment.render(**render_kwargs))
        observation = next_observation
        if terminated or truncated:
            break
    path = {
        'observations': {key: np.stack([o[key] for o in observations])
                         for key in observations[0]},
        'actions': np.stack(actions),
        'rewards': np.asarray(rewards, dtype=np.float32)[:, None],
        'terminals': np.asarray(terminals, dtype=np.float32)[:, None],
        'return': float(np.sum(rewards)),
        'length': len(rewards),
    }
    if render_kwargs is not None:
        path['frames'] = np.stack(frames)
    return path


def rollouts(n_paths, environment, policy, path_length, render_kwargs=None,
             seed=None):
    return [rollout(environment, policy, path_length, render_kwargs,
                    seed=None if seed is None else seed + i)
            for i in range(n_paths)]
