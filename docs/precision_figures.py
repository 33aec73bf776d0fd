"""The bfloat16 figures, generated from the committed measurements under
``benchmarks/results/precision/`` (``benchmarks/precision_update.py``, one
JSON file per CPU):

- ``precision-update``: SAC's fused update in float32 and in bfloat16 mixed
  precision, updates per second at each width and batch size.

A machine without native bfloat16 cannot write them (the script refuses), so
where none is committed the table is a line saying so.
"""

import glob
import json
import os

from markdown_table import table

DOCS = os.path.dirname(os.path.abspath(__file__))
PRECISION = os.path.join(os.path.dirname(DOCS), 'benchmarks', 'results',
                         'precision')


def _measurements():
    results = []
    for path in sorted(glob.glob(os.path.join(PRECISION, '*.json'))):
        with open(path) as f:
            results.append(json.load(f))
    return results


def update(here=''):
    results = _measurements()
    if not results:
        return ("*Not measured yet: no `benchmarks/results/precision/*.json` "
                "is committed.*")
    parts = []
    for result in results:
        kind = ('native bfloat16' if result['native_bfloat16']
                else 'bfloat16 EMULATED')
        header = ('width', 'batch', 'float32 updates/s', 'bfloat16 updates/s',
                  'bfloat16 / float32')
        rows = [(f"{row['width']:,}", f"{row['batch_size']:,}",
                 f"{row['float32_updates_per_s']:,.1f}",
                 f"{row['bfloat16_updates_per_s']:,.1f}",
                 f"{row['bfloat16_over_float32']:.2f}x")
                for row in result['rows']]
        xla = 'with XLA' if result['jit_compile'] else 'without XLA'
        parts.append(
            f"{result['algorithm']}'s fused update ({result['fused_steps']} "
            f"updates per call, {xla}, {result['tf_threads']} TensorFlow "
            f"threads) on {result['environment']}'s spaces, twin critics and "
            f"the policy all of two layers of the width; {result['cpu']}, "
            f"{kind}; the median of {result['rounds']} rounds of "
            f"{result['calls']} calls, the two precisions in alternation.\n\n"
            + table(header, rows, ['---:'] * len(header)))
    return '\n\n'.join(parts)


GENERATORS = {'precision-update': update}
