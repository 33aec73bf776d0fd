"""The autograph modules a trial's tf.functions write to the temporary
folder are removed after each epoch, without breaking what inspects the
process's modules afterwards (inspect.getmodule, as pydantic does when
wandb is first imported)."""

import inspect
import os
import sys

import tensorflow as tf

from softlearning.experiments.trial.trainable import remove_autograph_files


def _branchy(x):
    if x > 0:  # autograph turns this into tf.cond, in a generated module
        return x
    return -x


def test_generated_modules_are_removed_and_inspect_still_works():
    function = tf.function(_branchy)
    assert float(function(tf.constant(-2.0))) == 2.0
    generated = {name: module for name, module in sys.modules.items()
                 if name.startswith('__autograph_generated_file')}
    paths = [module.__file__ for module in generated.values()
             if getattr(module, '__file__', None)]
    assert paths and all(map(os.path.exists, paths))
    # inspect.getmodule of a frame of a file it has not seen walks every
    # module of the process, caching each one's __file__ ...
    inspect.modulesbyfile.clear()
    inspect.getmodule(inspect.currentframe())
    remove_autograph_files()
    assert not any(map(os.path.exists, paths))
    remove_autograph_files()  # a second epoch's call: nothing left to do

    # ... and the next such walk fails ("is a built-in module") on a
    # module whose cached __file__ has become None.
    inspect.modulesbyfile.clear()
    inspect.getmodule(inspect.currentframe())
