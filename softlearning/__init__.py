"""softlearning: maximum-entropy reinforcement learning on TensorFlow 2 and
Ray Tune."""

import os

# TensorFlow's C++ start-up chatter (oneDNN, CUDA probing) hides the training
# progress; users can still set their own level.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
# softlearning's networks are Keras 2 (tf-keras). Without this, `import
# tensorflow` loads Keras 3 as well (and through it scikit-learn and
# matplotlib, where installed): about 1.2 s of CPU at the start of every
# trial and command. With it, `tf.keras` names tf-keras, as TensorFlow
# documents for Keras 2 users; set TF_USE_LEGACY_KERAS=0 to keep Keras 3.
os.environ.setdefault('TF_USE_LEGACY_KERAS', '1')

# The one place the version is written: setup.py reads it from this line,
# `softlearning --version` prints it, CITATION.cff and CHANGELOG.md match it
# (tests/test_release.py).
__version__ = '1.0.0'


def load(checkpoint_path, seed=None):
    """A trained agent: ``softlearning.load(checkpoint_or_trial_folder)``,
    then ``agent.predict(observation)`` and ``agent.evaluate(env)`` in the
    environment's own terms (softlearning/agent.py)."""
    from softlearning.agent import load as load_agent
    return load_agent(checkpoint_path, seed=seed)
