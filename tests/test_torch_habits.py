"""torch users' habits: a construction takes a Parameter (or any tensor that requires grad, on any
device torch has here) as it takes the same values in a NumPy array -- detached, never refused with
torch's "Can't call numpy() on Tensor that requires grad"."""

from __future__ import annotations

import numpy as np
import pytest

from isomat.testing.families import family_builds

torch = pytest.importorskip("torch", reason="torch extra not installed")

BUILDS = family_builds()


def _dense(M):
    return M.toarray() if hasattr(M, "toarray") else np.asarray(M)


def _parameter(x):
    if isinstance(x, np.ndarray) and x.dtype.kind in "fc":
        return torch.nn.Parameter(torch.from_numpy(np.array(x)))
    return x


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_every_family_takes_parameters_as_it_takes_arrays(name):
    build = BUILDS[name]
    ref, got = build(lambda x: x, "numpy"), build(_parameter, "numpy")
    np.testing.assert_array_equal(_dense(got), _dense(ref))


def test_the_issues_two_calls():
    from isomat.algebra import conv_matrix, rnn_matrix

    conv = torch.nn.Conv2d(3, 8, 3)
    W = conv_matrix((3, 8, 8), conv.weight)
    x = torch.randn(3, 8, 8, dtype=torch.float64)
    ref = torch.nn.functional.conv2d(x[None], conv.weight.double()).detach().numpy().ravel()
    np.testing.assert_allclose(W @ x.numpy().ravel(), ref, rtol=1e-6, atol=1e-6)  # float32 weights
    p = torch.nn.Parameter(torch.randn(2, 2, dtype=torch.float64))
    np.testing.assert_array_equal(_dense(rnn_matrix(p, p, 4)), _dense(rnn_matrix(p.detach().numpy(), p.detach().numpy(), 4)))


def test_half_precision_and_conjugate_views_are_read_as_values():
    from isomat.algebra._backend import from_torch

    h = torch.tensor([1.5, -2.0], dtype=torch.bfloat16, requires_grad=True)
    np.testing.assert_array_equal(from_torch(h), np.array([1.5, -2.0], dtype=np.float32))
    z = torch.tensor([1 + 2j]).conj()
    np.testing.assert_array_equal(from_torch(z), np.array([1 - 2j]))
