"""Claims of do2017, "Learning Deep Matrix Representations" (Do, Tran, Venkatesh).

Paper: Kien Do, Truyen Tran, Svetha Venkatesh, "Learning Deep Matrix Representations", arXiv:1703.01454. Row-major ``vec`` (C order) unless a
claim says otherwise: vec_C(A X B) = (A ⊗ Bᵀ) vec_C(X); Fortran: vec_F(A X B) = (Bᵀ ⊗ A) vec_F(X).
References here (``sympy.kronecker_product``, ``np.kron``, direct loops over networkx
neighbourhoods, ``numpy.linalg.eigh``, ``scipy.signal.stft``) share no code with
:mod:`isomat.algebra`.

Proofs for every size (:mod:`isomat.proofs.prover`, Z3): the Kronecker product by its definition
((A ⊗ B)[row, col] = A[row div p, col div q]·B[row mod p, col mod q]), matrices as uninterpreted
real functions of their indices, isomat's constructions through the entry rules they follow
(``matrix_layer_entry``, ``mean_aggregation_entry``, ``renormalized_adjacency_entry``,
``multi_attention_entry``, each tested against its builder); finite sums over a symbolic range
either reindexed by a proved bijection of index sets or, as partial sums defined by axioms,
related by induction. The fixed-size checks of isomat's builders stay beside the proofs as binding
checks (``*_crosscheck`` Trials given to ``decide``): a failing one makes the claim an error.

One module per part of the paper (ids unchanged): :mod:`.sec2` (§1-2 and appendix A: matrix layers,
feed-forward and recurrent nets), :mod:`.sec3` (§3: graphs), :mod:`.appb` (appendix B: graph
convolution), :mod:`.sec4` (§4: experiments), :mod:`.properties` (§4's stated aim against its results); helpers shared between them in :mod:`._common`.
Results the paper does not state are ``do2017:beyond/...`` (shown apart, not in the tally); a claim
read several ways records every reading (:func:`~isomat.proofs.engine.by_readings`).
"""

from . import sec2, sec3, appb, sec4, properties  # noqa: F401  (each registers its claims on import)
