"""Running peer runs (the host side, in softlearning's interpreter): each
run is one process of the peer's interpreter running peer_worker.py, one
CPU thread each, ``parallel`` at a time; a run with a usable checkpoint
continues from it, a failed one keeps its error output as error.txt.

Each run is pinned to one core of its own, taken from the last one down,
and runs at the niceness Ray gives its workers (softlearning's trials).
One thread setting does not make one CPU: JAX's dispatch thread overlaps
the environment's steps with the update, and an unpinned SBX run at
niceness 0 took 1.2 cores beside a softlearning trial at Ray's 15, which
gave way (60 against 84 steps/s). Pinned, a peer run side by side with a
softlearning suite of ``--cpus 1`` leaves the trial the other core (80
against 79); at the same niceness, neither side yields to the rest of the
machine more readily than the other.
"""

import functools
import json
import os
import signal
import subprocess
import time

from peer_trial_folder import (
    ERROR_FILE, RESUMES_FILE, STDERR_FILE, clear_run, remove_checkpoint,
    resumable, rewind_progress, write_params)
import softlearning
from softlearning.experiments.benchmark.suites import SuiteError
from softlearning.utils.machine import cpu_model

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      'peer_worker.py')
# softlearning's registration of gymnasium-robotics' tasks (and its patch
# of them), which imports neither softlearning nor TensorFlow: the worker
# loads it by its path.
ADAPTERS = os.path.join(os.path.dirname(softlearning.__file__),
                        'environments', 'adapters')
ROBOTICS_MODULE = os.path.join(ADAPTERS, 'robotics.py')
# dm_control's stepping rules (action repeat, ends, start states), shared
# with softlearning's adapter; loaded by its path as well.
DM_CONTROL_MODULE = os.path.join(ADAPTERS, 'dm_control_gymnasium.py')
# Versions recorded in params.json: the library's own, then what it ran on.
VERSION_MODULES = {
    'sbx': ('sbx', 'stable_baselines3', 'jax', 'flax', 'optax', 'gymnasium',
            'mujoco'),
    'sb3': ('stable_baselines3', 'torch', 'gymnasium', 'mujoco'),
}
# What the worker is given of a run besides its constructor and resume.
WORKER_KEYS = ('folder', 'name', 'library', 'algorithm', 'gymnasium_id',
               'seed', 'steps', 'evaluation', 'training_seconds',
               'environment_kwargs')
# Ray's default niceness for worker processes (its worker_niceness).
RAY_WORKER_NICENESS = 15


# Runs in the peer's interpreter: prints {module: version} or fails.
VERSIONS_SCRIPT = '''
import importlib, json, sys
versions = {}
for name in sys.argv[1:]:
    module = importlib.import_module(name)
    versions[name] = getattr(module, "__version__", None)
print(json.dumps(versions))
'''


def peer_process_environment(base=None):
    """The environment of a peer process: one CPU thread, JAX on the CPU."""
    environment = dict(os.environ if base is None else base)
    xla_flags = environment.get('XLA_FLAGS', '')
    environment.update({
        'OMP_NUM_THREADS': '1',
        'MKL_NUM_THREADS': '1',
        'OPENBLAS_NUM_THREADS': '1',
        'JAX_PLATFORMS': 'cpu',
        'CUDA_VISIBLE_DEVICES': '',
        'XLA_FLAGS': (xla_flags + ' --xla_cpu_multi_thread_eigen=false'
                      ' intra_op_parallelism_threads=1').strip(),
        'PYTHONUNBUFFERED': '1',
    })
    return environment


def pinned_to(core):
    """A Popen ``preexec_fn`` that pins the process to ``core`` before its
    interpreter starts, so every thread it starts inherits the pin."""
    return functools.partial(os.sched_setaffinity, 0, {core})


def pinned_as_a_trial(core):
    """A Popen ``preexec_fn``: pinned to ``core`` and at least as nice as
    Ray's workers (a peer run beside softlearning's trials)."""
    def preexec():
        pinned_to(core)()
        niceness = os.getpriority(os.PRIO_PROCESS, 0)
        os.setpriority(os.PRIO_PROCESS, 0,
                       max(niceness, RAY_WORKER_NICENESS))
    return preexec


def side_by_side_cores():
    """(softlearning's core, the peer's) for two runs side by side: the
    first and the last core this process may use."""
    cores = sorted(os.sched_getaffinity(0))
    return cores[0], cores[-1]


def peer_versions(peer_python, library, extra_modules=()):
    """{module: version} of the library and what it runs on (and
    ``extra_modules``: what some runs need besides), from the peer's
    interpreter; SuiteError if it cannot import them."""
    modules = VERSION_MODULES[library] + tuple(
        module for module in extra_modules
        if module not in VERSION_MODULES[library])
    try:
        result = subprocess.run(
            [peer_python, '-c', VERSIONS_SCRIPT, *modules],
            capture_output=True, text=True,
            env=peer_process_environment())
    except OSError as error:
        raise SuiteError(f"--peer-python {peer_python}: "
                         f"{error.strerror}.") from None
    if result.returncode:
        last = (result.stderr.strip().splitlines() or ['no output'])[-1]
        raise SuiteError(f"--peer-python {peer_python} cannot import "
                         f"{', '.join(modules)}: {last}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def worker_spec(run, params, resume):
    """What the peer worker is told (peer_worker.py's arguments): the
    run's protocol (its steps, evaluations and a per-hour suite's budget
    of training seconds), where it resumes, the peer's constructor, and
    where softlearning's robotics module is."""
    return {**{key: run[key] for key in WORKER_KEYS}, 'resume': resume,
            'constructor': params['benchmark']['constructor'],
            'cpu': cpu_model(), 'robotics_module': ROBOTICS_MODULE,
            'dm_control_module': DM_CONTROL_MODULE}


def start_run(run, params, peer_python, core):
    """Starts the run's peer process, pinned to ``core`` at a Ray
    worker's niceness: from its checkpoint if it has one with the same
    params.json, else from scratch."""
    folder = run['folder']
    resume = resumable(folder, params) if os.path.isdir(folder) else None
    if resume:
        step = int(resume['total_timestep'])
        rewind_progress(folder, step)
        for name in (ERROR_FILE, STDERR_FILE):
            if os.path.exists(os.path.join(folder, name)):
                os.remove(os.path.join(folder, name))
        with open(os.path.join(folder, RESUMES_FILE), 'a') as f:
            f.write(f'resumed from the checkpoint at step {step}\n')
        print(f"{run['name']}: continuing from its checkpoint at step "
              f"{step}.", flush=True)
    else:
        if os.path.isdir(folder) and os.listdir(folder):
            print(f"{run['name']}: unfinished without a usable checkpoint, "
                  "starting over.", flush=True)
        clear_run(folder)
        write_params(folder, params)
    spec = worker_spec(run, params, resume)
    stderr = open(os.path.join(run['folder'], STDERR_FILE), 'w')
    process = subprocess.Popen(
        [peer_python, WORKER, json.dumps(spec)],
        stdout=None, stderr=stderr, env=peer_process_environment(),
        preexec_fn=pinned_as_a_trial(core))
    stderr.close()
    print(f"{run['name']}: started ({run['gymnasium_id']}, "
          f"{run['steps']} steps, core {core}).", flush=True)
    return process


def finish_run(run, returncode):
    """Keeps a failed run's error output as error.txt (softlearning's
    analysis then reports the trial as an error); True if it succeeded."""
    stderr = os.path.join(run['folder'], STDERR_FILE)
    if returncode == 0:
        os.remove(stderr)
        remove_checkpoint(run['folder'])
        print(f"{run['name']}: done.", flush=True)
        return True
    error_file = os.path.join(run['folder'], ERROR_FILE)
    os.replace(stderr, error_file)
    with open(error_file) as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    cause = (f'killed by signal {-returncode}' if returncode < 0
             else f'exit code {returncode}')
    if returncode < 0 or not lines:
        with open(error_file, 'a') as f:
            f.write(f'The peer process ended: {cause}.\n')
    print(f"{run['name']}: failed ({cause}"
          f"{': ' + lines[-1] if lines else ''}; see {error_file}).",
          flush=True)
    return False


def next_core(cores, taken):
    """The core for the next run: the first of ``cores`` that the fewest
    running runs (``taken``: theirs) hold."""
    return min(cores, key=lambda core: (taken.count(core),
                                        cores.index(core)))


def run_all(runs, params_of, peer_python, parallel):
    """Runs ``runs``, ``parallel`` at a time (``params_of(run)``: its
    params.json); returns how many failed. Each running run has a core of
    its own while there are enough (the last ones first)."""
    waiting, running, failed = list(runs), [], 0
    cores = sorted(os.sched_getaffinity(0), reverse=True)

    def stop(signum, frame):
        raise KeyboardInterrupt

    # SIGINT too: a shell starts a background job with it ignored, and
    # `kill -INT` to this process should stop its runs as Ctrl+C does.
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while waiting or running:
            while waiting and len(running) < parallel:
                run = waiting.pop(0)
                core = next_core(cores, [core for _, _, core in running])
                running.append((run, start_run(run, params_of(run),
                                               peer_python, core), core))
            time.sleep(0.5)
            still = []
            for run, process, core in running:
                if process.poll() is None:
                    still.append((run, process, core))
                elif not finish_run(run, process.returncode):
                    failed += 1
            running = still
    except KeyboardInterrupt:
        for _, process, _ in running:
            process.terminate()
        for _, process, _ in running:
            process.wait()
        print("Interrupted: the runs in progress keep the evaluations they "
              "wrote (readable trials) and continue from their latest "
              "checkpoint next time.", flush=True)
        raise SystemExit(130)
    return failed
