"""Your own environment with softlearning: see gravity_pendulum.py.

    softlearning run_example_local examples.development --universe gym \\
        --domain examples.custom_environment.gravity_pendulum:GravityPendulum \\
        --task v0 --curriculum examples/custom_environment/gravity_curriculum.json
"""
