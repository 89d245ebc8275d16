"""Export operators to other libraries and files, and read them back.

Every function takes a :class:`~isomat.algebra.SparseOperator`, a ``scipy.sparse`` array or
matrix, a ``cupyx.scipy.sparse`` matrix, a dense NumPy/CuPy array or a SymPy matrix (exact
values are rounded to float64; device data is copied to the host first).

========================  ==========================================  =======================
target                    writer                                      reader
========================  ==========================================  =======================
SciPy sparse array        :func:`to_scipy`                            --
MatrixMarket ``.mtx``     :func:`to_matrix_market`                    :func:`read_matrix_market`
NumPy ``.npz``            :func:`to_npz` (``scipy.sparse.save_npz``)  :func:`read_npz`
PyTorch COO/CSR tensor    :func:`to_torch`; file: :func:`save_torch`  :func:`from_torch`, :func:`load_torch`
JAX BCOO                  :func:`to_jax_bcoo` (needs jax)             :func:`from_jax_bcoo`
JAX BCOO file ``.npz``    :func:`to_jax_npz`                          :func:`load_jax_bcoo`
MATLAB ``.mat``           :func:`to_mat`, :func:`column_major`         :func:`read_mat`
DLPack (dense)            :func:`to_dlpack`                           :func:`from_dlpack`
========================  ==========================================  =======================

:func:`write` picks the writer from the format or the file's suffix and stores what the matrix
is (:func:`read_metadata` reads it back); :func:`read` reads any of the files. An affine map
``(W, b)`` is kept in one layout in every format -- the matrix ``W``, the bias ``b``, the
metadata's convention ``y = W x + b`` -- that SciPy, NumPy, torch and MATLAB read with their own
readers (:func:`read_bias` reads ``b``; docs/guide/export.md shows each); values keep their dtype. Every writer
writes to a temporary file beside the target, reads its header back, then renames it onto the
target: a failure leaves no partial file, and ``overwrite=False`` keeps an existing one.

Matrices are written as they are held -- the CSR arrays stream into ``.npz`` members, the torch
CSR tensor shares SciPy's index arrays, the ``.mat`` sparse element is written in column bands
-- so that a write holds little beyond the matrix itself (``benchmarks/export.py`` measures it).

The command line ``isomat export KIND ... --format mtx|npz|pt|mat|jax -o FILE`` builds an operator
of a construction family (see :data:`FAMILIES`) and writes it with these functions.

The package holds one module per format, each with its writer and its validating reader side by
side (as ``scipy.io`` keeps ``_mmio`` and ``matlab/`` behind one namespace, and NetworkX's
``readwrite`` a reader and a writer per format): ``_npz`` (NumPy), ``_mtx`` (MatrixMarket),
``_mat`` (MATLAB), ``_pt`` (PyTorch), ``_jax`` (JAX BCOO), ``_dlpack``, and ``_network`` (whole
networks: segment files and a manifest). Beneath them ``_base`` (the conversion to SciPy, target
checks, the bias and the flattening order), ``_checks`` (what every reader checks of an untrusted
file), ``_atomic`` (the one atomic writer) and ``_chunks``; above them ``_io`` (any format by its
suffix) and ``_families`` (the construction families of ``isomat export KIND`` and
:func:`rebuild`). ``docs/architecture.md`` draws the layers. Only this namespace is public.
"""

from __future__ import annotations

from ._base import FORMATS, SUFFIXES, column_major, flatten_permutation, to_scipy
from ._base import write_target  # noqa: F401  (the command line's check of -o before a build)
from ._dlpack import from_dlpack, to_dlpack
from ._families import rebuild
# the family registry and argparse types of ``isomat export KIND`` (the command line's, not the library API)
from ._families import (FAMILIES, ExportFamily, family, int_list, int_or_tuple, new_seed, normal,  # noqa: F401
                        positive)
from ._io import read, read_bias, read_metadata, write
from ._jax import from_jax_bcoo, load_jax_bcoo, to_jax_bcoo, to_jax_npz
from ._mat import read_mat, to_mat
from ._mtx import read_matrix_market, to_matrix_market
from ._network import read_network, write_network
from ._npz import read_npz, to_npz
from ._pt import from_torch, load_torch, save_torch, to_torch

#: the library API of this module (the CLI's family registry and argument parsers are not part of it)
__all__ = ["FORMATS", "SUFFIXES", "column_major", "read_bias", "rebuild", "flatten_permutation", "from_dlpack", "from_jax_bcoo", "from_torch",
           "load_jax_bcoo", "load_torch", "read", "read_mat", "read_matrix_market", "read_metadata", "read_network", "read_npz",
           "save_torch", "to_dlpack", "to_jax_bcoo", "to_jax_npz", "to_mat", "to_matrix_market", "to_npz", "to_scipy",
           "to_torch", "write", "write_network"]
