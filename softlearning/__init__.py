"""softlearning: maximum-entropy reinforcement learning on TensorFlow 2 and
Ray Tune."""

import os

# TensorFlow's C++ start-up chatter (oneDNN, CUDA probing) hides the training
# progress; users can still set their own level.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

__version__ = '0.1.0'
