"""isomat.algebra re-exports every family's public names, explicitly (so type checkers see them)."""

from __future__ import annotations

import importlib
from pathlib import Path

import isomat.algebra as algebra


def test_every_family_module_is_listed():
    here = Path(algebra.__file__).parent
    modules = {p.stem for p in here.glob("*.py") if not p.stem.startswith("_")}
    assert modules == set(algebra.FAMILIES)


def test_every_public_name_is_reexported_once():
    assert len(algebra.__all__) == len(set(algebra.__all__))
    for fam in algebra.FAMILIES:
        mod = importlib.import_module(f"isomat.algebra.{fam}")
        for name in mod.__all__:
            assert name in algebra.__all__, f"{fam}.{name} is not re-exported"
            assert getattr(algebra, name) is getattr(mod, name), f"{name} is shadowed"
