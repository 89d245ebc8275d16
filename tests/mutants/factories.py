"""The mutant factories every paper's mutants share (issue 41, item 3): one place for "scale this builder's
result", "this count one too high" and "this rule read one index off".

Each factory returns a ``mutate`` function for :class:`tests.mutants.Mutant`: it takes the original object
and returns the broken one. ``part`` picks what of a structured result is changed (a key of a dict of
gradients or counts, an index of a tuple or list of states or factors; the rest is returned as it was);
``when`` (called with the broken function's own arguments) confines the defect to some inputs, so a
mutant can be right everywhere a weak check looks and wrong only where it does not. The broken functions are
plain wrappers (no ``functools.wraps``: a ``__wrapped__`` would lead ``inspect`` back to the original's source).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def changed(how: Callable[[Any], Any], *, part: Any = None,
            when: Callable[..., bool] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The result (or its ``part``) passed through ``how``, on the inputs ``when`` accepts (every input by
    default)."""
    def mutate(f: Callable[..., Any]) -> Callable[..., Any]:
        def broken(*args: Any, **kwargs: Any) -> Any:
            out = f(*args, **kwargs)
            if when is not None and not when(*args, **kwargs):
                return out
            if part is None:
                return how(out)
            if isinstance(out, dict):
                out = dict(out)
                out[part] = how(out[part])
                return out
            if isinstance(out, (tuple, list)):
                items = list(out)
                items[part] = how(items[part])
                return type(out)(items)
            raise TypeError(f"part={part!r} of a {type(out).__name__} result (expected a dict, tuple or list)")
        return broken
    return mutate


def scaled(factor: Any = 2, *, part: Any = None,
           when: Callable[..., bool] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The result (or its ``part``) times ``factor``: a builder's matrix, a rule's entry, a gradient."""
    return changed(lambda v: v * factor, part=part, when=when)


def plus_one(*, part: Any = None,
             when: Callable[..., bool] | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The result (or its ``part``) one too high: a count, a size, a row."""
    return changed(lambda v: v + 1, part=part, when=when)


def argument_plus_one(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The function called with its argument ``name`` one higher (an entry rule read one column, one stride,
    one row off); works on ints, NumPy index arrays and Z3 terms alike, however the caller passes it."""
    def mutate(f: Callable[..., Any]) -> Callable[..., Any]:
        sig = inspect.signature(f)
        if name not in sig.parameters:
            raise ValueError(f"argument_plus_one: {getattr(f, '__name__', f)!r} has no argument {name!r}, "
                             f"expected one of {list(sig.parameters)}")

        def broken(*args: Any, **kwargs: Any) -> Any:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()  # an argument left at its default is shifted too
            bound.arguments[name] = bound.arguments[name] + 1
            return f(*bound.args, **bound.kwargs)
        return broken
    return mutate
