"""The on-disk format of a trial's checkpoint, written so that a crash never
leaves one that loads half.

A checkpoint folder (Tune names it ``checkpoint_00000N`` inside the trial
folder) holds

    tf_state.index, tf_state.data-*   weights, optimizer slots, log-alpha,
                                      the update RNG (tf.train.Checkpoint)
    state.pkl                         counters, sampler, numpy RNG states
    policy_weights.pkl                the policy's ``get_weights()`` list
                                      (numpy), so tools that only act
                                      (``softlearning simulate``) need no
                                      TensorFlow
    variant.json                      the variant the trial ran with
    manifest.json                     written last: the completion marker

Every file is written under a temporary name and moved into place with
``os.replace``; the manifest, written last, records each file's size and
SHA-256 checksum. A folder without a manifest, or whose files differ from
it (in size, or in contents), is refused with a message naming it, before
Ray starts. (Checkpoints saved before checksums were recorded are checked by
size.)

Replay pool pieces live in the trial folder, ``<trial>/replay_pool/
<start>-<end>.pkl``, one per checkpoint, holding the transitions added since
the previous checkpoint. The manifest lists, in order, the pieces (relative
to the trial folder) that rebuild the pool; a restore replays them. They sit
in the trial folder rather than in a checkpoint folder because Tune writes a
checkpoint into a temporary folder and copies it over afterwards, so a
checkpoint cannot know where its predecessors ended up, while the trial
folder stays put (it is also the parent of every checkpoint folder when
loading, so a checkpoint copied along with its trial folder still loads).
"""

import hashlib
import json
import os
import pickle

FORMAT_VERSION = 1
MANIFEST_FILE = 'manifest.json'
STATE_FILE = 'state.pkl'
POLICY_WEIGHTS_FILE = 'policy_weights.pkl'
VARIANT_FILE = 'variant.json'
TF_CHECKPOINT_PREFIX = 'tf_state'
POOL_FOLDER = 'replay_pool'
SAVED_MODEL_FOLDER = 'saved_model'


class CheckpointError(Exception):
    """A checkpoint that is missing, incomplete, truncated or does not fit
    the variant; the message names the path and the problem."""


def _temporary(path):
    return f'{path}.tmp-{os.getpid()}'


def atomic_write_bytes(path, data):
    temporary = _temporary(path)
    with open(temporary, 'wb') as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(temporary, path)


def atomic_pickle(path, obj):
    atomic_write_bytes(path, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def atomic_json(path, obj):
    atomic_write_bytes(
        path, json.dumps(obj, indent=2, default=_json_default).encode())


def _json_default(value):
    if isinstance(value, tuple):
        return list(value)
    if hasattr(value, 'item'):  # numpy scalars
        return value.item()
    return str(value)


def write_manifest(checkpoint_dir, replay_pool_pieces, info):
    """Marks ``checkpoint_dir`` complete; call after every other file is in
    place. ``info`` is shown by tools (epoch, timesteps)."""
    files, digests = {}, {}
    for name in sorted(os.listdir(checkpoint_dir)):
        path = os.path.join(checkpoint_dir, name)
        if name == MANIFEST_FILE or '.tmp-' in name or not os.path.isfile(path):
            continue
        files[name] = os.path.getsize(path)
        digests[name] = _sha256(path)
    atomic_json(os.path.join(checkpoint_dir, MANIFEST_FILE), {
        'format': FORMAT_VERSION, 'files': files, 'sha256': digests,
        'replay_pool_pieces': list(replay_pool_pieces), **info})


def _sha256(path):
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            digest.update(block)
    return digest.hexdigest()


def is_checkpoint_dir(path):
    return os.path.isfile(os.path.join(path, MANIFEST_FILE))


def checkpoint_dirs(trial_dir):
    """Complete checkpoints of a trial folder, oldest first."""
    names = sorted(name for name in os.listdir(trial_dir)
                   if name.startswith('checkpoint_'))
    return [os.path.join(trial_dir, name) for name in names
            if is_checkpoint_dir(os.path.join(trial_dir, name))]


def read_manifest(checkpoint_dir):
    """Validates ``checkpoint_dir`` (complete, nothing truncated, pool pieces
    present) and returns its manifest; raises CheckpointError otherwise."""
    if not os.path.exists(checkpoint_dir):
        raise CheckpointError(f"Checkpoint '{checkpoint_dir}' does not exist.")
    if not os.path.isdir(checkpoint_dir):
        raise CheckpointError(
            f"Checkpoint '{checkpoint_dir}' is not a folder.")
    manifest_path = os.path.join(checkpoint_dir, MANIFEST_FILE)
    if not os.path.isfile(manifest_path):
        raise CheckpointError(
            f"'{checkpoint_dir}' holds no complete checkpoint (no "
            f"{MANIFEST_FILE}: not a checkpoint folder, or its save was "
            "interrupted).")
    try:
        with open(manifest_path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as error:
        raise CheckpointError(
            f"Checkpoint '{checkpoint_dir}': unreadable {MANIFEST_FILE} "
            f"({error}).") from None
    if manifest.get('format') != FORMAT_VERSION:
        raise CheckpointError(
            f"Checkpoint '{checkpoint_dir}' has format "
            f"{manifest.get('format')}; this version reads {FORMAT_VERSION}.")
    for name, size in manifest['files'].items():
        path = os.path.join(checkpoint_dir, name)
        if not os.path.isfile(path):
            raise CheckpointError(
                f"Checkpoint '{checkpoint_dir}' is missing its file '{name}'.")
        actual = os.path.getsize(path)
        if actual != size:
            raise CheckpointError(
                f"Checkpoint file '{path}' is truncated or corrupted "
                f"({actual} bytes, expected {size}).")
        # Checkpoints saved before checksums were written: sizes only.
        expected = manifest.get('sha256', {}).get(name)
        if expected is not None and _sha256(path) != expected:
            raise CheckpointError(
                f"Checkpoint file '{path}' is corrupted (its contents "
                "differ from the checksum saved with it).")
    trial_dir = os.path.dirname(os.path.abspath(checkpoint_dir))
    for piece in manifest['replay_pool_pieces']:
        if not os.path.isfile(os.path.join(trial_dir, piece)):
            raise CheckpointError(
                f"Checkpoint '{checkpoint_dir}' needs the replay pool piece "
                f"'{os.path.join(trial_dir, piece)}', which is missing.")
    return manifest


def manifest_epoch(checkpoint_dir):
    """The epoch a complete checkpoint was saved at (0 if it does not say),
    read without checking its files again."""
    with open(os.path.join(checkpoint_dir, MANIFEST_FILE)) as f:
        return int(json.load(f).get('epoch') or 0)


def read_variant(checkpoint_dir):
    with open(os.path.join(checkpoint_dir, VARIANT_FILE)) as f:
        return json.load(f)


def _read_pickle(path, what):
    try:
        with open(path, 'rb') as f:
            return pickle.load(f)
    except (EOFError, pickle.UnpicklingError, ValueError) as error:
        raise CheckpointError(
            f"{what} '{path}' is corrupted ({error}).") from None


def read_state(checkpoint_dir):
    return _read_pickle(os.path.join(checkpoint_dir, STATE_FILE),
                        'Checkpoint file')


def read_policy_weights(checkpoint_dir):
    """The policy's weights as numpy arrays, or None for a checkpoint
    written before they were saved separately."""
    path = os.path.join(checkpoint_dir, POLICY_WEIGHTS_FILE)
    if not os.path.isfile(path):
        return None
    return _read_pickle(path, 'Checkpoint file')


def read_pool_pieces(checkpoint_dir, manifest):
    """Yields the replay pool pieces of a checkpoint, oldest first."""
    trial_dir = os.path.dirname(os.path.abspath(checkpoint_dir))
    for piece in manifest['replay_pool_pieces']:
        yield _read_pickle(os.path.join(trial_dir, piece),
                           'Replay pool piece')


def write_pool_piece(trial_dir, piece):
    """Writes a piece from ``pool.experience_since``; returns its name
    relative to the trial folder."""
    folder = os.path.join(trial_dir, POOL_FOLDER)
    os.makedirs(folder, exist_ok=True)
    name = os.path.join(
        POOL_FOLDER,
        f"{piece['start_total']:012d}-{piece['end_total']:012d}.pkl")
    atomic_pickle(os.path.join(trial_dir, name), piece)
    return name


def resolve_checkpoint(path):
    """A checkpoint folder, a trial folder (its latest checkpoint) or an
    experiment folder of one trial (that trial's latest) -> the checkpoint
    folder; CheckpointError when there is none, or when the experiment
    has several trials (they are listed)."""
    path = os.path.abspath(os.path.expanduser(path))
    if not os.path.exists(path):
        raise CheckpointError(f"Checkpoint path '{path}' does not exist.")
    if os.path.isdir(path) and not is_checkpoint_dir(path):
        found = checkpoint_dirs(path)
        if found:
            return found[-1]
        trials = trial_dirs_with_checkpoints(path)
        if len(trials) == 1:
            return checkpoint_dirs(trials[0])[-1]
        if trials:
            names = [os.path.basename(trial) for trial in trials]
            shown = ', '.join(names[:5]) + (
                f' and {len(names) - 5} more' if len(names) > 5 else '')
            raise CheckpointError(
                f"'{path}' is an experiment of {len(trials)} trials; name "
                f"one of its trial folders: {shown}.")
    return path


def trial_dirs_with_checkpoints(experiment_dir):
    """The sub-folders of ``experiment_dir`` that hold a complete
    checkpoint, by name."""
    trials = []
    for name in sorted(os.listdir(experiment_dir)):
        folder = os.path.join(experiment_dir, name)
        if os.path.isdir(folder) and not name.startswith('.') and (
                checkpoint_dirs(folder)):
            trials.append(folder)
    return trials


# What must match for a checkpoint to load into a variant: the environment
# (spaces) and the network shapes.
COMPATIBILITY_KEYS = (
    ('environment_params', 'training', 'universe'),
    ('environment_params', 'training', 'domain'),
    ('environment_params', 'training', 'task'),
    ('environment_params', 'training', 'kwargs'),
    ('environment_params', 'training', 'pomdp'),
    ('policy_params',),
    ('Q_params',),
    ('algorithm_params', 'class_name'),
)


def _get(variant, keys):
    for key in keys:
        if not isinstance(variant, dict) or key not in variant:
            return None
        variant = variant[key]
    return json.loads(json.dumps(variant, default=_json_default))


def _differences(saved, wanted, keys):
    """(dotted key, saved, wanted) of every leaf where they differ."""
    if isinstance(saved, dict) and isinstance(wanted, dict):
        return [difference for key in sorted(set(saved) | set(wanted),
                                             key=str)
                for difference in _differences(saved.get(key),
                                               wanted.get(key),
                                               keys + (str(key),))]
    if saved == wanted or _is_search_space(wanted):
        return []
    return [('.'.join(keys), saved, wanted)]


def _shown(value, width=60):
    """A setting's value in a message: short, 'unset' for none."""
    if value is None:
        return 'unset'
    text = repr(value)
    return text if len(text) <= width else text[:width - 1] + '…'


def check_compatible(checkpoint_dir, saved_variant, variant):
    """Raises CheckpointError naming the settings in which ``variant``
    differs from the one the checkpoint was trained with."""
    differences = [difference for keys in COMPATIBILITY_KEYS
                   for difference in _differences(
                       _get(saved_variant, keys), _get(variant, keys), keys)]
    if not differences:
        return
    shown = '; '.join(f"{key} {_shown(saved)} there, {_shown(wanted)} here"
                      for key, saved, wanted in differences[:3])
    more = (f" (and {len(differences) - 3} more)"
            if len(differences) > 3 else '')
    raise CheckpointError(
        f"Checkpoint '{checkpoint_dir}' was trained with other settings: "
        f"{shown}{more}.")


def _is_search_space(value):
    return isinstance(value, str) and value.startswith('<ray.tune')
