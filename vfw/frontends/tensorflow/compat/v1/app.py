"""tf.compat.v1.app: ``run(main)``, absl's ``app.run`` with TF's tolerant flag parsing."""

import sys as _sys

from vfw.frontends.tensorflow.compat.v1 import flags as _flags  # raises the absl-py error without absl


def _parse_known_flags(argv):
    # TF parses only the flags it knows and hands the rest of argv to main, where absl would exit on them.
    return _flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Parse the command-line flags, then call ``main(argv)`` (by default ``__main__.main``) and exit with it.

    Parameters
    ----------
    main : callable, optional
        Called with the arguments absl's flags did not consume (the program name first).
    argv : list of str, optional
        The command line to parse instead of ``sys.argv``.
    """
    from absl.app import run as absl_run  # present: the flags import above checked absl-py

    main = main or _sys.modules["__main__"].main
    absl_run(main=main, argv=argv, flags_parser=_parse_known_flags)
