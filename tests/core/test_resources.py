"""The memory budget and the checks every method runs against it before its work."""

import pytest

from interp import InputError
from interp.data import columns_for_model
from interp.resources import (MEMORY_ENV, ResourceError, check_memory, check_sizes, format_bytes, largest_fitting,
                              memory_budget, parse_size)


@pytest.mark.parametrize("text, size", [("8G", 8 * 2**30), ("512M", 512 * 2**20), ("1.5GiB", 3 * 2**29),
                                        ("2048", 2048), ("1e9", 10**9), (" 3 kb ", 3072), ("1t", 2**40)])
def test_sizes_are_read_in_powers_of_1024(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-1G", "8X", "G"])
def test_a_bad_size_is_one_line_naming_the_variable(text):
    with pytest.raises(InputError, match=f"{MEMORY_ENV} must be a size such as 8G"):
        parse_size(text)


@pytest.mark.parametrize("text, message", [("0.5", "is less than one byte: give a unit"),
                                           ("1e400", "is more than any machine has"),
                                           ("1e30T", "is more than any machine has")])
def test_a_size_below_a_byte_or_beyond_any_machine_is_one_line(monkeypatch, text, message):
    monkeypatch.setenv(MEMORY_ENV, text)
    with pytest.raises(InputError, match=message):
        memory_budget()


def test_the_memory_limit_reaches_the_command_line_as_one_line(monkeypatch):
    from click.testing import CliRunner

    from interp.cli import cli

    monkeypatch.setenv(MEMORY_ENV, "1e400")
    result = CliRunner().invoke(cli, ["run", "--method", "facets", "--dataset", "breast-cancer", "--quiet"])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "is more than any machine has" in result.stderr


def test_the_budget_is_the_variable_or_half_the_available_memory(monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "3G")
    assert memory_budget() == 3 * 2**30
    for off in ("0", "none", "off", "0G", "0.0", "0 MiB"):
        monkeypatch.setenv(MEMORY_ENV, off)
        assert memory_budget() is None
        check_memory(1e30, "anything")  # no check at all
    monkeypatch.delenv(MEMORY_ENV)
    with open("/proc/meminfo") as meminfo:
        available = next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("MemAvailable:"))
    assert memory_budget() == pytest.approx(available / 2, rel=0.2)  # it moves while the tests run


def test_a_request_over_the_budget_is_one_line_with_what_fits(monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "1G")
    check_memory(2**30, "exactly the budget")
    with pytest.raises(ResourceError) as caught:
        check_memory(3 * 2**30, "a big fit", lambda budget: f"at most {budget // 2**20} MiB of it")
    assert str(caught.value) == ("a big fit needs about 3 GiB of memory, more than the budget of 1 GiB "
                                 f"({MEMORY_ENV}): at most 1024 MiB of it")
    assert isinstance(caught.value, InputError)  # bad input: exit 2 on the command line


def test_largest_fitting_is_the_largest_size_within_the_limit():
    def need(k):
        return 10 + 3 * k * k

    for limit in (0, 9, 10, 13, 100, 10**6, 10**12):
        k = largest_fitting(need, limit, 10**5)
        if need(0) > limit:
            assert k == 0
        else:
            assert need(k) <= limit and (k == 10**5 or need(k + 1) > limit), (limit, k)


def test_check_sizes_names_the_size_that_makes_the_request_too_big(monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "1M")

    def memory(rows, features):
        return 8.0 * features * features + 80.0 * rows

    labels = {"rows": "rows", "features": "features"}
    with pytest.raises(ResourceError, match=r"at most 347 features fit \(select columns\)$"):
        check_sizes(memory, {"rows": 1000, "features": 1000}, "wide", labels, {"features": "select columns"})
    with pytest.raises(ResourceError, match=r"at most 12,107 rows fit$"):
        check_sizes(memory, {"rows": 10**6, "features": 100}, "long", labels)


def test_format_bytes():
    assert [format_bytes(v) for v in (12, 2048, 3 * 2**20, 7.25 * 2**30, 2**41)] == \
        ["12 B", "2 KiB", "3 MiB", "7.25 GiB", "2 TiB"]


class _Named:
    def __init__(self, names):
        self.feature_names_in_ = names
        self.n_features_in_ = len(names)


class _Counted:
    n_features_in_ = 3


def test_columns_for_a_model_follow_its_names_or_its_width():
    assert columns_for_model(_Named(["c", "a", "b"]), ["a", "b", "c"]) == [2, 0, 1]
    assert columns_for_model(_Counted(), ["a", "b", "c"]) == [0, 1, 2]
    assert columns_for_model(object(), ["a", "b"]) == [0, 1]
    with pytest.raises(InputError, match="the data lacks column 'd' that the model was fitted on"):
        columns_for_model(_Named(["a", "d"]), ["a", "b"])
    with pytest.raises(InputError, match="the data has columns 'b', 'c' that the model was not fitted on"):
        columns_for_model(_Named(["a"]), ["a", "b", "c"])
    with pytest.raises(InputError, match="the model was fitted on 3 columns; the data has 2"):
        columns_for_model(_Counted(), ["a", "b"])
