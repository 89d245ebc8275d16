"""``isomat export KIND``: every registered family writes a file that reads back as its operator."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest

from isomat import export
from isomat.cli import main


def run_cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):  # argparse writes its errors to sys.stderr
        try:
            code = main(list(argv), out=out, err=err)
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


# a small, valid option set per family (a family without an entry here fails the test below)
EXAMPLES = {
    "projection": ["--m", "6", "--n", "4"],
    "kron": ["--factors", "2x3,3x2", "--density", "0.7"],
    "conv": ["--input-shape", "1,8,8", "--kernel-size", "3", "--padding", "same"],
    "pool": ["--input-shape", "2,8,8", "--kernel-size", "2"],
    "rnn": ["--input-size", "3", "--hidden-size", "4", "--steps", "3"],
    "attention": ["--tokens", "2", "--dim", "2", "--dim-v", "3"],
    "stp": ["--a-shape", "2,4", "--b-shape", "2,3"],
    "dk_stp": ["--a-shape", "2,4", "--b-shape", "2,3"],
    "matrix_layer": ["--in-shape", "3,4", "--out-shape", "2,5"],
    "graph": ["--nodes", "8", "--p", "0.4", "--operator", "renormalized_adjacency"],
    "ndlinear": ["--input-dims", "3,4", "--hidden-dims", "2,5"],
    "spm": ["--n", "8"],
    "hyper": ["--dims", "2,3,6"],
    "logic": ["--indices", "1,3,2,2", "--k", "3"],
}


def test_every_family_has_an_example():
    assert set(export.FAMILIES) <= set(EXAMPLES), set(export.FAMILIES) - set(EXAMPLES)


@pytest.mark.parametrize("kind", sorted(export.FAMILIES))
@pytest.mark.parametrize("fmt", ["mtx", "npz", "pt"])
def test_export_round_trip(tmp_path, kind, fmt):
    if fmt == "pt":
        pytest.importorskip("torch")
    path = tmp_path / f"{kind}.{fmt}"
    code, out, err = run_cli("export", kind, *EXAMPLES[kind], "--format", fmt, "-o", str(path), "--seed", "7")
    assert code == 0, err
    back = export.read(path)
    rng = np.random.default_rng(7)
    state = rng.bit_generator.state
    expected = export.to_scipy(export.FAMILIES[kind].build(_parse(kind), rng))
    drew = rng.bit_generator.state != state
    # the seed is printed (and stored) exactly when the family drew random values
    assert bool(re.search(r"^seed 7$", out, re.M)) == drew
    assert back.shape == expected.shape
    np.testing.assert_array_equal(back.toarray(), expected.toarray())
    assert f"{back.shape[0]}x{back.shape[1]}" in out
    # every format carries what the matrix is
    meta = export.read_metadata(path)
    assert meta["kind"] == kind and meta["shape"] == list(expected.shape) and meta["convention"] == "y = W x"
    assert meta["order"].startswith("row-major") and meta["isomat_version"] and meta["dtype"] == str(back.dtype)
    assert ("seed" in meta) == drew and (meta.get("seed") == 7 if drew else True)


@pytest.mark.parametrize("fmt", ["mtx", "npz", "pt"])
def test_export_float32_on_request(tmp_path, fmt):
    if fmt == "pt":
        torch = pytest.importorskip("torch")
    path = tmp_path / f"c.{fmt}"
    code, out, err = run_cli("export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--dtype", "float32",
                             "--seed", "3", "-o", str(path))
    assert code == 0, err
    assert export.read_metadata(path)["dtype"] == "float32"
    if fmt == "pt":  # a float32 tensor multiplies torch's default float32 vectors
        T = export.load_torch(path)
        assert T.dtype == torch.float32 and (T @ torch.ones(64)).shape == (36,)
    if fmt == "npz":
        assert export.read(path).dtype == np.float32


def test_matrix_market_float32_precision_is_capped(tmp_path):
    # SciPy's writer corrupts float32 values asked for 11+ digits (NUL bytes; its reader then segfaults)
    M = export.to_scipy(export.FAMILIES["projection"].build(_parse("projection"), np.random.default_rng(0)))
    with pytest.raises(ValueError, match="at most 9 significant digits for float32"):
        export.to_matrix_market(M.astype(np.float32), tmp_path / "x.mtx", precision=17)
    p = export.to_matrix_market(M.astype(np.float32), tmp_path / "x.mtx")  # default: 9 digits
    assert b"\x00" not in p.read_bytes()
    np.testing.assert_array_equal(export.read(p).toarray().astype(np.float32), M.astype(np.float32).toarray())


def _parse(kind):
    from isomat.cli import build_parser

    return build_parser().parse_args(["export", kind, *EXAMPLES[kind], "-o", "x.mtx"])


def test_seed_is_printed_and_repeatable(tmp_path):
    code, out, _ = run_cli("export", "conv", "--input-shape", "1,6,6", "--kernel-size", "3", "-o", str(tmp_path / "a.npz"))
    assert code == 0
    seed = int(re.search(r"^seed (\d+)$", out, re.M).group(1))
    code, _, _ = run_cli("export", "conv", "--input-shape", "1,6,6", "--kernel-size", "3", "-o", str(tmp_path / "b.npz"),
                         "--seed", str(seed))
    assert code == 0
    a, b = export.read(tmp_path / "a.npz"), export.read(tmp_path / "b.npz")
    np.testing.assert_array_equal(a.toarray(), b.toarray())


def test_conv_example_from_the_issue(tmp_path):
    path = tmp_path / "conv.mtx"
    code, out, err = run_cli("export", "conv", "--input-shape", "1,28,28", "--kernel-size", "3", "--padding", "same",
                             "--format", "mtx", "-o", str(path))
    assert code == 0, err
    M = export.read(path)
    assert M.shape == (784, 784) and M.nnz == 26 * 26 * 9 + 4 * 26 * 6 + 4 * 4


def test_depthwise_conv_export(tmp_path):
    # 4 channels, groups 4: each output channel reads one input channel, 9 taps (interior)
    code, _, err = run_cli("export", "conv", "--input-shape", "4,6,6", "--kernel-size", "3", "--out-channels", "4",
                           "--groups", "4", "--padding", "1", "-o", str(tmp_path / "d.npz"))
    assert code == 0, err
    M = export.read(tmp_path / "d.npz").tocoo()
    assert M.shape == (144, 144) and M.nnz == 4 * (4 * 4 * 9 + 4 * 4 * 6 + 4 * 4)
    assert np.all(M.row // 36 == M.col // 36)  # block diagonal over the channels
    code, _, err = run_cli("export", "conv", "--input-shape", "3,6,6", "--kernel-size", "3", "--groups", "2",
                           "-o", str(tmp_path / "e.npz"))
    assert code != 0 and "--groups 2 must divide C_in = 3" in err


def test_pool_ceil_mode_export(tmp_path):
    code, _, err = run_cli("export", "pool", "--input-shape", "1,5,5", "--kernel-size", "2", "--ceil-mode",
                           "--divisor-override", "4", "-o", str(tmp_path / "p.npz"))
    assert code == 0, err
    M = export.read(tmp_path / "p.npz")
    assert M.shape == (9, 25) and np.allclose(M.data, 0.25)  # 3x3 windows, the edge ones partial
    assert np.allclose(np.asarray(M.sum(axis=1)).ravel(), [1, 1, 0.5, 1, 1, 0.5, 0.5, 0.5, 0.25])


def test_given_kernel(tmp_path):
    k = np.arange(9.0).reshape(1, 1, 3, 3)
    np.save(tmp_path / "k.npy", k)
    code, _, err = run_cli("export", "conv", "--input-shape", "1,5,5", "--kernel", str(tmp_path / "k.npy"),
                           "-o", str(tmp_path / "c.npz"))
    assert code == 0, err
    M = export.read(tmp_path / "c.npz").toarray()
    x = np.random.default_rng(0).standard_normal((5, 5))
    ref = np.array([[np.sum(x[i:i + 3, j:j + 3] * k[0, 0]) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(M @ x.ravel(), ref.ravel(), rtol=1e-12)


@pytest.mark.parametrize("argv, option", [
    (["export", "conv", "--input-shape", "1,x", "--kernel-size", "3", "-o", "a.mtx"], "--input-shape"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--padding", "full", "-o", "a.mtx"], "--padding"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--format", "csv", "-o", "a.mtx"], "--format"),
    (["export", "projection", "--m", "0", "--n", "3", "-o", "a.mtx"], "--m"),
    (["export", "projection", "--n", "3", "-o", "a.mtx"], "--m"),
    (["export", "kron", "--factors", "2x3x4", "-o", "a.mtx"], "--factors"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3,3,3", "-o", "a.mtx"], "--kernel-size"),
    (["export", "conv", "--input-shape", "1,8,8", "--kernel-size", "3", "--format", "npz", "-o", "a.mtx"], "-o"),
    (["export", "nosuchkind", "-o", "a.mtx"], "nosuchkind"),
    (["export", "ndlinear", "--input-dims", "3,4", "--hidden-dims", "2", "-o", "a.mtx"], "--hidden-dims"),
    (["export", "stp", "--a-shape", "2,3,4", "--b-shape", "2,2", "-o", "a.mtx"], "--a-shape"),
    (["export", "graph", "--nodes", "5", "--p", "2", "-o", "a.mtx"], "--p"),
    (["export", "rnn", "--input-size", "3", "--hidden-size", "4", "-o", "a.mtx"], "--steps"),
    (["export", "hyper", "--dims", "2,0", "-o", "a.mtx"], "dims"),
])
def test_bad_options_give_one_line_naming_the_option(tmp_path, argv, option):
    kind = argv[1]
    if kind != "nosuchkind" and kind not in export.FAMILIES:
        pytest.skip(f"family {kind} is not registered")
    argv = [a if not a.endswith(".mtx") else str(tmp_path / a) for a in argv]
    code, out, err = run_cli(*argv)
    assert code == 2
    assert option in err and err.count("\n") == 1, err
    assert not (tmp_path / "a.mtx").exists()


def test_bad_option_message_is_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["export", "conv", "--input-shape", "1,x", "--kernel-size", "3", "-o", "a.mtx"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--input-shape" in err


def test_help_lists_kinds_with_options(capsys):
    with pytest.raises(SystemExit):
        main(["export", "--help"])
    text = capsys.readouterr().out
    for kind in export.FAMILIES:
        assert f"isomat export {kind} " in text
    assert "--input-shape" in text and "--kernel-size" in text
