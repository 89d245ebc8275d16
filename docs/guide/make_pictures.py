"""Draws the pictures of docs/guide/pictures.md (run from the repository root:
``python docs/guide/make_pictures.py``; the ledger picture runs ``isomat verify --json`` first)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from isomat.algebra import conv_matrix, kron
from isomat.plot import ledger, spy

here = Path(__file__).resolve().parent / "img"
here.mkdir(exist_ok=True)
W = conv_matrix((2, 6, 6), np.arange(1.0, 55.0).reshape(3, 2, 3, 3), padding=1)
spy(W, blocks=(36, 36), labels=("out channel", "in channel"), title="conv_matrix: 2 -> 3 channels, 6x6, 3x3, padding 1",
    path=here / "spy-conv.png")
spy(kron(np.ones((3, 4)), np.eye(5)), blocks=(5, 5), labels=("row of A", "column of A"),
    title="kron(A, I_5), A 3x4: blocks of B's shape", path=here / "spy-kron.png")
out = subprocess.run([sys.executable, "-m", "isomat", "verify", "--json"], capture_output=True, text=True, check=False)
ledger(json.loads(out.stdout), path=here / "ledger.png")
