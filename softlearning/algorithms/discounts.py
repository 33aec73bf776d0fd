"""``discount='auto'``: the discount from the task's episode length, by
the heuristic SimbaV2 takes from TD-MPC2 (Hansen et al. 2024):

    gamma = clip((L / 5 - 1) / (L / 5), 0.95, 0.995)

for episodes of L steps (after action repeat): the return looks about a
fifth of an episode ahead. 0.975 for Pendulum's 200 steps, 0.995 for
MuJoCo's 1,000.
"""

AUTO = 'auto'
SMALLEST, LARGEST = 0.95, 0.995


def episode_length_discount(episode_length):
    horizon = episode_length / 5.0
    return min(max((horizon - 1.0) / horizon, SMALLEST), LARGEST)


def resolve_discount(discount, episode_length):
    """``discount`` as a number: 'auto' from ``episode_length``."""
    if discount == AUTO:
        return episode_length_discount(episode_length)
    if isinstance(discount, str):
        raise ValueError(f"discount must be a number or '{AUTO}', not "
                         f"'{discount}'.")
    return float(discount)
