"""Reading results (trials on disk, summary tables, learning curves) and
looking at trained agents (policy_plot: pictures of a checkpoint's policy).

    from softlearning.analysis import load_trials, summarize, plot_learning_curves
    trials = load_trials(['~/ray_results/gym/Pendulum/v1/<experiment>'])
    print(summarize(trials))
"""

from .plot import plot_learning_curves, save_figure
from .results import ResultsError, group_trials, load_trials, varying_keys
from .summary import format_summary, sort_summary, summarize

__all__ = ['ResultsError', 'format_summary', 'group_trials', 'load_trials',
           'plot_learning_curves', 'save_figure', 'sort_summary', 'summarize',
           'varying_keys']
