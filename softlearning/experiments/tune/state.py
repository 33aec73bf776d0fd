"""What the runner reads of Tune's state files in an experiment folder
(a local folder or a storage URI: s3://, gs://): which files one run
wrote, and each trial's status in the latest run. Analysis reads the
statuses too (results.load_trials), from here.
"""

import json

from softlearning.utils import storage

# Tune's state files of one run, named by the run's start time.
STATE_FILE_PREFIXES = ('experiment_state-', 'basic-variant-state-',
                       'search_gen_state-')


def state_files(experiment_folder):
    """The paths of every Tune state file in the experiment folder."""
    return set(storage.files_named(experiment_folder,
                                   STATE_FILE_PREFIXES)[1])


def tune_statuses(experiment):
    """{trial folder name: Tune's status} from the experiment folder's
    latest state file, if there is one: the newest run's, by the start time
    in its name (experiment_state-YYYY-MM-DD_HH-MM-SS.json). Not by file
    times: Tune writes every state file of a resumed experiment back to
    its storage together at the end of a run. ``experiment`` is a folder
    or a storage URI (s3://, gs://)."""
    try:
        fs, states = storage.files_named(experiment, ['experiment_state-'])
        states = [path for path in states if path.endswith('.json')]
        if not states:
            return {}
        with fs.open_input_stream(states[-1]) as stream:
            trial_data = json.loads(stream.read())['trial_data']
        statuses = {}
        for trial_json, _ in trial_data:
            trial = json.loads(trial_json)
            statuses[trial['relative_logdir']] = trial['status']
        return statuses
    except (OSError, ValueError, KeyError, TypeError):
        return {}  # a state file of another Tune version: status from files
