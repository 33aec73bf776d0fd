"""Where a run's results go: <results root>/<universe>/<domain>/<task>/
<timestamp>-<exp name>, the root a local folder (--local-dir) or a URI
(--upload-dir)."""

import datetime

from softlearning.utils import storage


def results_root(options):
    return options.upload_dir or options.local_dir


def experiment_dir(options, variant_spec):
    """(storage path, experiment name): results go to STORAGE/NAME, with
    STORAGE = <results root>/<universe>/<domain>/<task>, a folder or a
    URI."""
    environment = variant_spec['environment_params']['training']
    timestamp = datetime.datetime.now().strftime('%Y-%m-%dT%H-%M-%S')
    storage_path = storage.join(
        results_root(options), *map(storage.folder_name, (
            environment['universe'], environment['domain'],
            environment['task'])))
    return storage_path, storage.folder_name(
        f'{timestamp}-{options.exp_name}')
