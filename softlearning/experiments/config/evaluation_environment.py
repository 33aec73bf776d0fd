"""The evaluation environment's settings: those of the training
environment, copied when the variant is built (variants.preset_variant)
and again for what the user sets for training alone."""

import copy


def evaluation_follows_training(variant_spec, given):
    """An environment kwarg set for training (an action repeat, an
    observation setting) is the evaluation environment's too, unless set
    for evaluation as well: the policy must see the task it learned."""
    prefix = 'environment_params.training.kwargs.'
    environment_params = variant_spec['environment_params']
    evaluation_given = {key.split('.')[3] for key in given
                        if key.startswith('environment_params.evaluation.'
                                          'kwargs.')}
    for key in sorted(given):
        name = key[len(prefix):].split('.')[0]
        if (not key.startswith(prefix) or name in evaluation_given
                or not environment_params.get('evaluation')):
            continue
        environment_params['evaluation'].setdefault('kwargs', {})[name] = (
            copy.deepcopy(environment_params['training']['kwargs'][name]))
