"""The Ray actors of a RemoteSampler, and the one way they are replaced.

Every call to an actor goes through ``ActorPool.call``: when the actor has
died (a crashed simulator, a lost node) it is replaced by a new one, with
the physical parameters the sampler pushed and a new seed, and the call is
made again on the replacement. So no sampling, evaluation or checkpoint
call fails for one dead actor.
"""

import ray
from ray.exceptions import RayActorError
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from .sampler_worker import SamplerWorker

# Seeds of successive actors (and of replacements) stay apart.
ACTOR_SEED_STRIDE = 1000
RESTART_SEED_STRIDE = 100003
# Calls per actor and request, the first included.
MAX_ATTEMPTS = 3


class ActorPool:

    def __init__(self, size, worker_kwargs, seed=0, cpus=1.0,
                 actor_options=None, on_replace=None):
        """``size`` actors, each a ``SamplerWorker(**worker_kwargs,
        seed=...)`` with a seed of its own. ``on_replace(index)`` is told of
        every replacement (requests sent to the dead actor are lost)."""
        self.size = int(size)
        self._worker_kwargs = dict(worker_kwargs)
        self._seed = int(seed)
        self._cpus = float(cpus)
        # Extra Ray actor options (e.g. a runtime_env); mostly for tests.
        self._actor_options = dict(actor_options or {})
        self._on_replace = on_replace
        self.actors = []
        self._incarnations = [0] * self.size
        # Pushed to every actor, and to replacements when they start.
        self.physical_parameters = {}
        self.restarts = 0

    def start(self):
        self._incarnations = [0] * self.size
        self.actors = [self._start_actor(i) for i in range(self.size)]

    def seed(self, index):
        return (self._seed + ACTOR_SEED_STRIDE * (index + 1)
                + RESTART_SEED_STRIDE * self._incarnations[index])

    def _scheduling_options(self, index):
        """Inside a Tune trial the actors go into the trial's placement
        group (bundle 0 is the trainer's, bundle i + 1 sampler i's), so the
        trial's reservation covers them; elsewhere they just ask for CPUs."""
        options = {'num_cpus': self._cpus}
        group = ray.util.get_current_placement_group()
        if group is not None and len(group.bundle_specs) > index + 1:
            options['scheduling_strategy'] = PlacementGroupSchedulingStrategy(
                group, placement_group_bundle_index=index + 1)
        return options

    def _start_actor(self, index):
        actor = ray.remote(SamplerWorker).options(
            **self._scheduling_options(index), **self._actor_options,
        ).remote(**self._worker_kwargs, seed=self.seed(index))
        if self.physical_parameters:
            actor.set_physical_parameters.remote(self.physical_parameters)
        return actor

    def _replace(self, index):
        ray.kill(self.actors[index], no_restart=True)
        self._incarnations[index] += 1
        self.restarts += 1
        self.actors[index] = self._start_actor(index)
        if self._on_replace is not None:
            self._on_replace(index)

    def call(self, index, submit, reference=None):
        """``ray.get(submit(actor))`` on actor ``index``, or of
        ``reference`` when the request was already sent. A dead actor is
        replaced and ``submit`` made again on the replacement, up to
        MAX_ATTEMPTS calls in all (then the RayActorError is raised)."""
        for attempt in range(MAX_ATTEMPTS):
            if reference is None:
                reference = submit(self.actors[index])
            try:
                return ray.get(reference)
            except RayActorError:
                if attempt == MAX_ATTEMPTS - 1:
                    raise
                self._replace(index)
                reference = None

    def call_each(self, method, arguments):
        """``actor.method(*arguments[index])`` on the actors ``arguments``
        ({index: args}) names, sent to all at once and each collected
        through ``call``; returns {index: result}."""
        def submit(index):
            return lambda actor: getattr(actor, method).remote(
                *arguments[index])
        references = {index: submit(index)(self.actors[index])
                      for index in arguments}
        return {index: self.call(index, submit(index), reference)
                for index, reference in references.items()}

    def call_all(self, method, *args):
        """``actor.method(*args)`` on every actor; the results in actor
        order."""
        results = self.call_each(method, dict.fromkeys(range(self.size),
                                                       args))
        return [results[index] for index in range(self.size)]

    def close(self):
        for actor in self.actors:
            ray.kill(actor, no_restart=True)
        self.actors = []
