"""One atomic writer for every file isomat writes (issue 24, item 8).

Targets are checked before the work, the data is fsynced and renamed in one step, the umask decides
the permissions, a failure leaves neither a partial file nor a temporary one, and long names work.
"""

from __future__ import annotations

import io
import os
import stat

import pytest

from isomat.export._atomic import check_target, write_atomic, write_text
from isomat.cli import main


def test_a_long_name_is_written(tmp_path):
    name = "x" * 245 + ".json"  # 250 characters: valid, but '.<name>.XXXXXXXX' would not be
    assert write_text(tmp_path / name, "{}").read_text() == "{}"
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_the_umask_decides_the_permissions(tmp_path):
    old = os.umask(0o027)
    try:
        p = write_text(tmp_path / "a.md", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_a_failure_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "ledger.md"
    target.write_text("old")

    def broken(tmp):
        with open(tmp, "w") as fh:
            fh.write("half")
        raise KeyboardInterrupt  # Ctrl-C, or the CLI's SIGTERM handler, mid-write

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, broken)
    assert target.read_text() == "old" and [p.name for p in tmp_path.iterdir()] == ["ledger.md"]


@pytest.mark.parametrize("where", ["missing/dir/x.md", "adir"])
def test_bad_targets_are_refused_before_work(tmp_path, where):
    (tmp_path / "adir").mkdir()
    with pytest.raises(ValueError, match="does not exist|is a directory"):
        check_target(tmp_path / where, what="--markdown")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory_is_refused_before_work(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="not writable"):
            check_target(d / "x.md")
    finally:
        d.chmod(0o700)


def test_verify_refuses_a_bad_markdown_target_before_running_the_ledger(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    code = main(["verify", "--paper", "reneau2025", "--markdown", str(tmp_path / "nope" / "l.md")], out=out, err=err)
    assert code == 2 and out.getvalue() == ""  # not one claim ran
    assert "--markdown" in err.getvalue() and "does not exist" in err.getvalue()


def test_bench_refuses_a_bad_report_target_before_running(tmp_path):
    from isomat.bench import run_benchmarks

    (tmp_path / "slow.py").write_text("raise SystemExit('should not run')\n")
    with pytest.raises(ValueError, match="--json"):
        run_benchmarks(tmp_path, json_path=tmp_path / "no" / "r.json", markdown_path=tmp_path / "r.md")


# -- modes kept on overwrite (issue 37 item 6) ------------------------------------------------------
def test_an_overwrite_keeps_the_targets_mode(tmp_path):
    p = tmp_path / "secret.md"
    p.write_text("old")
    p.chmod(0o600)
    old = os.umask(0o022)  # a new file would be 0644
    try:
        write_text(p, "new")
    finally:
        os.umask(old)
    assert p.read_text() == "new" and stat.S_IMODE(p.stat().st_mode) == 0o600
    p.chmod(0o640)
    write_atomic(p, lambda t: open(t, "w").write("newer"))
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    # setuid/setgid are not carried to new content; a new file still takes the umask's mode
    p.chmod(0o4755)
    write_text(p, "x")
    assert stat.S_IMODE(p.stat().st_mode) == 0o755
    old = os.umask(0o077)
    try:
        q = write_text(tmp_path / "fresh.md", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(q.stat().st_mode) == 0o600


def test_an_overwrite_through_a_symlink_keeps_the_mode_of_the_file_it_names(tmp_path):
    real = tmp_path / "real.md"
    real.write_text("old")
    real.chmod(0o600)
    link = tmp_path / "link.md"
    link.symlink_to(real)
    write_text(link, "new")  # the link is replaced by a file (a rename), with the mode the user saw
    assert stat.S_IMODE(link.stat().st_mode) == 0o600


def test_export_force_and_markdown_keep_a_0600_file_0600(tmp_path):
    out = tmp_path / "w.npz"
    args = ["export", "projection", "--m", "4", "--n", "2", "--format", "npz", "-o", str(out)]
    assert main(args, out=io.StringIO(), err=io.StringIO()) == 0
    out.chmod(0o600)
    code = main(args + ["--force"], out=io.StringIO(), err=io.StringIO())
    assert code == 0 and stat.S_IMODE(out.stat().st_mode) == 0o600
    for fmt in ("mtx", "mat"):
        f = tmp_path / f"w.{fmt}"
        a = ["export", "projection", "--m", "4", "--n", "2", "--format", fmt, "-o", str(f)]
        assert main(a, out=io.StringIO(), err=io.StringIO()) == 0
        f.chmod(0o600)
        assert main(a + ["--force"], out=io.StringIO(), err=io.StringIO()) == 0
        assert stat.S_IMODE(f.stat().st_mode) == 0o600, fmt
