"""Environment-parameter curriculum and domain randomization.

``get(spec, sampler, evaluation_environment)`` builds the per-iteration
callback from a curriculum spec (see schedule.py for its format and
semantics).
"""

from .callback import CurriculumCallback
from .randomization import PhysicalParameterSetter
from .schedule import (Curriculum, ParameterSchedule, load_curriculum_file,
                       validate_curriculum_spec)

NONE_SUPPORTED = '(none: implement set_physical_parameters)'


def get(spec, sampler, evaluation_environment=None):
    return CurriculumCallback(Curriculum(spec), sampler,
                              evaluation_environment)


def validate_for_environment(spec, environment):
    """Raises ValueError if ``environment`` cannot set a parameter of the
    curriculum, naming the valid ones."""
    supported = tuple(environment.supported_physical_parameters)
    unknown = [name for name in spec if name not in supported]
    if unknown:
        physical_parameters = getattr(environment, 'physical_parameters',
                                      None)
        if physical_parameters is not None:
            physical_parameters.validate(unknown)  # the detailed message
        raise ValueError(
            f"Unknown curriculum parameter(s) {unknown} for {environment!r}"
            f"; valid: {sorted(supported) or NONE_SUPPORTED}")


def _supported_physical_parameters(environment_params):
    from softlearning.environments import get_environment_from_params
    environment = get_environment_from_params(environment_params)
    try:
        return (tuple(environment.supported_physical_parameters),
                repr(environment))
    finally:
        environment.close()


def validate_for_environment_params(spec, environment_params):
    """Like ``validate_for_environment``, building the environment in a
    short-lived child process: a MuJoCo environment built with offscreen
    rendering (OSMesa's LLVM) in a process that then loads TensorFlow
    crashes it, and the experiment driver loads TensorFlow."""
    import concurrent.futures
    import multiprocessing
    with concurrent.futures.ProcessPoolExecutor(
            1, mp_context=multiprocessing.get_context('spawn')) as executor:
        supported, description = executor.submit(
            _supported_physical_parameters, environment_params).result()
    _check_names(spec, supported, description)


def _check_names(spec, supported, description):
    unknown = [name for name in spec if name not in supported]
    if unknown:
        raise ValueError(
            f"Unknown curriculum parameter(s) {unknown} for {description}; "
            f"valid: {', '.join(supported) or NONE_SUPPORTED}")


__all__ = ['Curriculum', 'CurriculumCallback', 'PhysicalParameterSetter',
           'ParameterSchedule', 'get', 'load_curriculum_file',
           'validate_curriculum_spec', 'validate_for_environment',
           'validate_for_environment_params']
