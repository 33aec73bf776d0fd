"""The figures of K environments per sampler, generated from the committed
measurements under ``benchmarks/results/vector/``:

- ``vector-collection``: collection-only environment steps per second on
  one core for each K, and evaluation episodes one after another against
  one vector (``benchmarks/vector_collection.py``);
- ``vector-processes``: collection with K environments in the sampler's
  process against all but the first in processes of their own, on a cheap
  and an expensive simulation (``benchmarks/vector_processes.py``);
- ``vector-actors``: sampler actors with K environments each against one
  each (``benchmarks/vector_actors.py``);
- ``vector-end-to-end``: training steps per second of each agent with
  K = 1 and larger K (``benchmarks/vector_end_to_end.py``, which runs
  ``benchmarks/throughput.py --envs-per-sampler K``; one JSON line per run
  in ``end_to_end.jsonl``).

A file that is not there yet gives a line saying so, not a table.
"""

import json
import os

from markdown_table import numbers_table as _table

DOCS = os.path.dirname(os.path.abspath(__file__))
VECTOR = os.path.join(os.path.dirname(DOCS), 'benchmarks', 'results',
                      'vector')


def _load(name):
    path = os.path.join(VECTOR, name)
    if not os.path.exists(path):
        return None
    with open(path) as file:
        if name.endswith('.jsonl'):
            return [json.loads(line) for line in file if line.strip()]
        return json.load(file)


def _missing(name):
    return (f"*Not measured yet: `benchmarks/results/vector/{name}` is not "
            "committed.*")


def collection(here=''):
    result = _load('collection.json')
    if result is None:
        return _missing('collection.json')
    steps = result['collection_steps_per_second']
    speed_up = result['collection_speed-up']
    rows = [(k, f'{value:,.0f}', f'{speed_up[k]:.2f}x')
            for k, value in steps.items()]
    evaluation = result['evaluation']
    seconds = evaluation['seconds']
    same = ('the same returns to the last digit'
            if evaluation['same_returns'] else 'DIFFERENT returns')
    return (f"{result['environment']}, policy {result['policy']}, one core of "
            f"{result['cpu']}; {result['collection_steps']:,} steps per K.\n\n"
            + _table(('K', 'steps/s', 'against K = 1'), rows)
            + f"\n\nEvaluation, {evaluation['episodes']} episodes of "
            f"{evaluation['steps_per_episode']:,} steps from fixed seeds: "
            f"{seconds['serial']:.1f} s one after another, "
            f"{seconds['parallel']:.1f} s as one vector "
            f"({evaluation['speed-up']:.2f}x), with {same}.")


def processes(here=''):
    result = _load('processes.json')
    if result is None:
        return _missing('processes.json')
    rows = []
    for environment, rates in result['steps_per_second'].items():
        base = rates['K=1 sync']
        for setting, value in rates.items():
            rows.append((environment, setting, f'{value:,.0f}',
                         f'{value / base:.2f}x'))
    return (f"Policy {result['policy']}, {result['cores']} cores of "
            f"{result['cpu']}; {result['collection_steps']:,} steps per "
            "setting.\n\n"
            + _table(('environment', 'K, mode', 'steps/s', 'against K = 1'),
                     rows))


def actors(here=''):
    result = _load('actors.json')
    if result is None:
        return _missing('actors.json')
    steps = result['steps_per_second']
    base = steps[min(steps, key=int)]
    rows = [(f"{result['num_samplers']} x {k}", f'{value:,.0f}',
             f'{value / base:.2f}x') for k, value in steps.items()]
    return (f"{result['num_samplers']} sampler actors on {result['nodes']} "
            f"Ray node(s) ({result['cluster']}), {result['environment']}, "
            f"policy {result['policy']}, {result['cpu']}.\n\n"
            + _table(('actors x K', 'steps/s', 'against K = 1'), rows))


def end_to_end(here=''):
    records = _load('end_to_end.jsonl')
    if records is None:
        return _missing('end_to_end.jsonl')
    names = {name.lower(): name for name in _registered()}
    by_agent = {}
    for record in records:
        agent = record['benchmark'].replace('_throughput', '')
        by_agent.setdefault(names.get(agent, agent), {})[
            record['envs_per_sampler']] = record
    ks = sorted({k for runs in by_agent.values() for k in runs})
    rows = []
    for agent, runs in by_agent.items():
        rates = [f"{runs[k]['env_steps_per_s']:,.0f}" if k in runs else '-'
                 for k in ks]
        largest, single = runs[max(runs)], runs.get(1)
        ratio = (f"{largest['env_steps_per_s'] / single['env_steps_per_s']:.2f}x"
                 if single and max(runs) > 1 else '-')
        alone = (single or largest)['updates_per_s']
        rows.append((agent, *rates, ratio, f'{alone:,.0f}'))
    record = records[0]
    return (f"{record['environment']}, one update per environment step, the "
            f"presets' networks and batches, {record['measured_env_steps']:,} "
            f"measured steps per run; each run on one core "
            f"({_one_cpu(record['cpu'])}), {record['tf_threads']} TensorFlow "
            "thread, "
            "two runs side by side. The last column is the same update "
            "alone, on minibatches from the same pool.\n\n"
            + _table(('agent', *(f'K = {k} steps/s' for k in ks),
                      f'K = {ks[-1]} against K = 1', 'updates/s alone'),
                     rows))


def _one_cpu(cpu):
    # Runs pinned to one core were recorded as '1 CPUs' before
    # utils/machine.describe_cpu said '1 CPU'.
    return cpu.replace(' 1 CPUs)', ' 1 CPU)')


def _registered():
    from softlearning.algorithms import ALGORITHMS
    return ALGORITHMS


GENERATORS = {
    'vector-collection': collection,
    'vector-processes': processes,
    'vector-actors': actors,
    'vector-end-to-end': end_to_end,
}
