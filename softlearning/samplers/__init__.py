"""Samplers: ``get({'class_name': ..., 'config': {...}})``.

Every sampler is a ``Sampler`` (base_sampler.py). SimpleSampler steps one
environment in the learner's process; RemoteSampler steps ``num_samplers``
Ray actors in parallel (remote_sampler.py; the actors run SamplerWorker,
sampler_worker.py, started and replaced by actor_pool.py).
"""

from softlearning.utils.registry import lookup

from .base_sampler import Sampler
from .remote_sampler import RemoteSampler
from .sampler_worker import SamplerWorker
from .simple_sampler import SimpleSampler
from .utils import parallel_rollouts, path_statistics, rollout, rollouts

SAMPLERS = {'SimpleSampler': SimpleSampler, 'RemoteSampler': RemoteSampler}


def _sampler_class(params):
    return lookup(SAMPLERS, params['class_name'], 'sampler')


def get(params, **kwargs):
    return _sampler_class(params)(**params.get('config', {}), **kwargs)


def get_from_variant(variant, **kwargs):
    """The variant's sampler. Samplers that rebuild components elsewhere
    (remote actors) also get the params they rebuild them from."""
    params = variant['sampler_params']
    extra = _sampler_class(params).params_from_variant(variant)
    return get(params, **extra, **kwargs)


__all__ = ['RemoteSampler', 'Sampler', 'SamplerWorker', 'SimpleSampler',
           'get', 'get_from_variant', 'parallel_rollouts', 'path_statistics',
           'rollout',
           'rollouts']
