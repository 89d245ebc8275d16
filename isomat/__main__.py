import contextlib
import os
import sys

from .cli import main

code = main()
if code in (130, 143):
    # interrupted, and the command's own cleanup has run: leave with the shell's status now. An interrupt
    # that lands while an extension module is being imported can leave CPython's "unhandled
    # KeyboardInterrupt" flag set, which would otherwise end the process by SIGINT (status -2) however
    # the interrupt was handled.
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)
sys.exit(code)
