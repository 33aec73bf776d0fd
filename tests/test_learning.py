"""SAC, SQL, TD3, DDPG, TQC, CrossQ, REDQ, DroQ, n-step SAC and SAC with
SimBa networks learn Pendulum-v1 (the README's quick start), and recurrent SAC learns it
without velocities where feedforward SAC cannot, through the real CLI.

One fixed seed each, to keep CI short; benchmarks/pendulum_learning.py runs
three (figures in the README). Each test trains two agents at once, one
command per CPU, so a pair costs the wall time of one run. SAC and SQL
learn with the quick start's own settings; the other agents with 64-64
networks (SMALL), which learn Pendulum at about a fifth of the cost.
"""

import numpy as np
import pytest

from conftest import read_progress, run_clis_at_once, trial_dirs

pytestmark = pytest.mark.slow

SEED = '1'
# A uniformly random policy's Pendulum-v1 return is about -1200, its best of
# 100 episodes about -750 (benchmarks/pendulum_learning.py); a swung-up,
# balanced pendulum scores above -250.
SOLVED = -250
SQL_THRESHOLD = -300
# Recurrent against feedforward SAC on positions only (README: "TD3, DDPG
# and recurrent agents"): the budget and the margin, calibrated on three
# seeds.
POMDP_EPOCHS = 6
POMDP_RECURRENT_THRESHOLD = -400
POMDP_MARGIN = 300
SMALL = ['--config', 'Q_params.config.hidden_layer_sizes=[64,64]',
         '--config', 'policy_params.config.hidden_layer_sizes=[64,64]']


def final_returns(tmp_path, runs, steps=10000, timeout=1500):
    """Trains each of ``runs`` ({name: CLI options}) on the default
    Pendulum-v1 variant at the same time, one CPU each; returns {name: the
    last epoch's evaluation return}."""
    results = run_clis_at_once({
        name: ['run_example_local', 'examples.development', '--universe',
               'gym', '--domain', 'Pendulum', '--task', 'v1', '--seed', SEED,
               '--local-dir', tmp_path / name, '--cpus', '1',
               '--trial-cpus', '1', '--verbose', '0', *options]
        for name, options in runs.items()}, timeout=timeout)
    finals = {}
    for name, result in results.items():
        assert result.returncode == 0, (name, result.stdout[-3000:],
                                        result.stderr[-3000:])
        (trial_dir,) = trial_dirs(tmp_path / name)
        progress = read_progress(trial_dir)
        assert progress['total_timestep'].iloc[-1] == steps
        finals[name] = progress['evaluation/return-mean'].iloc[-1]
        assert np.isfinite(finals[name]), name
    return finals


def test_sac_and_sql_learn_pendulum_in_6k_steps(tmp_path):
    """6 of the quick start's 10 epochs: at 6,000 steps all three benchmark
    seeds of each are already past the thresholds (README)."""
    options = ['--n-epochs', '6']
    finals = final_returns(tmp_path, {'SAC': ['--algorithm', 'SAC', *options],
                                      'SQL': ['--algorithm', 'SQL', *options]},
                           steps=6000)
    assert finals['SAC'] >= SOLVED, finals
    assert finals['SQL'] >= SQL_THRESHOLD, finals


def test_td3_and_ddpg_learn_pendulum_in_10k_steps(tmp_path):
    """With SMALL networks, on seed 1: -53 and -51 at 10,000 steps when
    calibrated (seeds 2 and 3: TD3 -120 and -214, DDPG -121 and -218).
    With the default 256-256 all three benchmark seeds of each are past
    -250 at 8,000 (README)."""
    options = ['--n-epochs', '10', *SMALL]
    finals = final_returns(tmp_path, {'TD3': ['--algorithm', 'TD3', *options],
                                      'DDPG': ['--algorithm', 'DDPG', *options]},
                           steps=10000)
    assert finals['TD3'] >= SOLVED, finals
    assert finals['DDPG'] >= SOLVED, finals


def test_tqc_and_n_step_sac_learn_pendulum_in_5k_steps(tmp_path):
    """TQC with two critics (SBX's default; the preset's five cost about
    four times as much per update, the same code) and SAC with 3-step
    returns, SMALL: on seed 1, -124 and -123 at 5,000 steps when
    calibrated."""
    options = ['--n-epochs', '5', *SMALL]
    finals = final_returns(tmp_path, {
        'TQC': ['--algorithm', 'TQC', '--config',
                'Q_params.config.n_Q_functions=2', *options],
        'SAC 3-step': ['--algorithm', 'SAC', '--n-step', '3', *options]},
        steps=5000)
    assert finals['TQC'] >= SOLVED, finals
    assert finals['SAC 3-step'] >= SOLVED, finals


def test_crossq_and_simba_sac_learn_pendulum_in_5k_steps(tmp_path):
    """CrossQ with its preset but SMALL networks, and SAC with SimBa
    networks (--network simba, one block of 32 for each network; blocks of
    64 and the default 128 learn as fast at twice and four times the cost):
    on seed 1 both are past -250 at 5,000 steps (-122 and -123 when
    calibrated; seeds 2 and 3: SimBa -146 and -160, CrossQ at 6,000 -169
    and -99)."""
    options = ['--n-epochs', '5']
    finals = final_returns(tmp_path, {
        'CrossQ': ['--algorithm', 'CrossQ', *options, *SMALL],
        'SimBa SAC': ['--algorithm', 'SAC', '--network', 'simba', *options,
                      '--config', 'Q_params.config.hidden_layer_sizes=[32]',
                      '--config',
                      'policy_params.config.hidden_layer_sizes=[32]']},
        steps=5000)
    assert finals['CrossQ'] >= SOLVED, finals
    assert finals['SimBa SAC'] >= SOLVED, finals


# REDQ and DroQ at 5 updates per environment step instead of their presets'
# 20 (the policy and temperature every 5th update, as the presets' every
# 20th: once per step), to keep CI short. REDQ keeps its ensemble of ten.
HIGH_UTD = ['--config', 'algorithm_params.config.n_train_repeat=5',
            '--config', 'algorithm_params.config.policy_delay=5']


def test_redq_and_droq_learn_pendulum_in_2k_steps(tmp_path):
    """SMALL, 5 updates per step: on seed 1 both are past -250 at 2,000
    steps, after 1,000 of training (-138 and -135 when calibrated; seeds 2
    and 3: REDQ -202 and -97, DroQ -207 and -97)."""
    options = ['--n-epochs', '2', *HIGH_UTD, *SMALL]
    finals = final_returns(tmp_path, {
        'REDQ': ['--algorithm', 'REDQ', *options],
        'DroQ': ['--algorithm', 'DroQ', *options]},
        steps=2000)
    assert finals['REDQ'] >= SOLVED, finals
    assert finals['DroQ'] >= SOLVED, finals


def test_recurrent_sac_beats_feedforward_sac_without_velocities(tmp_path):
    """Pendulum-v1 observing cos/sin only (--pomdp positions): one
    observation does not tell the angular velocity, a history does.
    Recurrent SAC (an LSTM over the history) swings up and balances within
    POMDP_EPOCHS epochs; feedforward SAC, same steps, does not."""
    options = ['--algorithm', 'SAC', '--pomdp', 'positions',
               '--n-epochs', str(POMDP_EPOCHS)]
    finals = final_returns(
        tmp_path, {'recurrent': [*options, '--policy', 'recurrent'],
                   'feedforward': options}, steps=POMDP_EPOCHS * 1000)
    assert finals['recurrent'] >= POMDP_RECURRENT_THRESHOLD, finals
    assert finals['recurrent'] - finals['feedforward'] >= POMDP_MARGIN, finals
