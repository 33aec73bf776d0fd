"""Samplers: ``get({'class_name': ..., 'config': {...}})``.

SimpleSampler steps one environment in the learner's process;
RemoteSampler steps ``num_samplers`` Ray actors in parallel.
"""

from softlearning.utils.registry import lookup

from .remote_sampler import RemoteSampler, SamplerWorker
from .simple_sampler import SimpleSampler
from .utils import path_statistics, rollout, rollouts

SAMPLERS = {'SimpleSampler': SimpleSampler, 'RemoteSampler': RemoteSampler}


def _sampler_class(params):
    return lookup(SAMPLERS, params['class_name'], 'sampler')


def get(params, **kwargs):
    return _sampler_class(params)(**params.get('config', {}), **kwargs)


def get_from_variant(variant, **kwargs):
    """The variant's sampler. Samplers that rebuild components elsewhere
    (remote actors) also get the params they rebuild them from."""
    params = variant['sampler_params']
    sampler_class = _sampler_class(params)
    extra = getattr(sampler_class, 'params_from_variant', None)
    return get(params, **(extra(variant) if extra else {}), **kwargs)


__all__ = ['RemoteSampler', 'SamplerWorker', 'SimpleSampler', 'get',
           'get_from_variant', 'path_statistics', 'rollout', 'rollouts']
