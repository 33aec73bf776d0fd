"""The curriculum as a per-iteration callback of RLAlgorithm's loop."""

from .schedule import Curriculum


class CurriculumCallback:
    """At the start of every iteration (epoch), advances the curriculum and
    pushes the changed values to every sampler's environment (through
    ``sampler.set_physical_parameters``; remote samplers forward them to
    their actors) and to the evaluation environment. Returns the current
    values as diagnostics under 'curriculum'."""

    def __init__(self, curriculum, sampler, evaluation_environment=None):
        if not isinstance(curriculum, Curriculum):
            curriculum = Curriculum(curriculum)
        self.curriculum = curriculum
        self._sampler = sampler
        self._evaluation_environment = evaluation_environment
        # Fresh environments (a new trial or a restored one) have their
        # constructor values: the first call pushes everything.
        self._push_everything = True

    def __call__(self, algorithm, iteration):
        changed = self.curriculum.advance(iteration)
        if self._push_everything:
            changed = self.curriculum.physical_parameters()
            self._push_everything = False
        if changed:
            self._sampler.set_physical_parameters(changed)
            if self._evaluation_environment is not None:
                self._evaluation_environment.set_physical_parameters(
                    self.curriculum.evaluation_physical_parameters(changed))
        return {'curriculum': self.curriculum.values()}

    def get_state(self):
        return self.curriculum.get_state()

    def set_state(self, state):
        self.curriculum.set_state(state)
        self._push_everything = True
