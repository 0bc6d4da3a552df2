"""Errors raised for bad input: each names the file or key and what was expected.

A reader that checks a whole file collects one :class:`InputError` per bad line and raises
them together (:func:`raise_all`, :class:`InputErrors`), so the user sees every problem at
once."""


class CopyscopeError(Exception):
    """A user-facing error: bad input, bad configuration, or a missing resource."""


class InputError(CopyscopeError):
    """An input file is missing, empty, malformed, or fails a checksum."""

    def __init__(self, path, expected: str):
        self.path = str(path)
        self.expected = expected
        super().__init__(f"{self.path}: {expected}")


class ConfigError(CopyscopeError):
    """A configuration key is unknown, missing, or has the wrong type/value."""

    def __init__(self, key: str, expected: str):
        self.key = key
        self.expected = expected
        super().__init__(f"config key '{key}': {expected}")


class FlagError(CopyscopeError):
    """A command-line flag has a wrong value (``flag --tokenizer-kind: expected …``)."""

    def __init__(self, flag: str, expected: str):
        self.flag = flag
        self.expected = expected
        super().__init__(f"flag {flag}: {expected}")


class InputErrors(InputError):
    """Several problems of input files (each an :class:`InputError`); ``str()`` gives one line
    per problem, at most :data:`SHOWN` per file and then one line counting the rest.

    ``path`` and ``expected`` are those of the first problem; ``problems`` holds them all."""

    SHOWN = 20

    def __init__(self, problems: list[InputError]):
        self.problems = [q for p in problems for q in getattr(p, "problems", [p])]
        super().__init__(self.problems[0].path, self.problems[0].expected)
        self.args = ("\n".join(self.lines()),)

    def lines(self) -> list[str]:
        """The problems as lines, at most :data:`SHOWN` per file (the file before ``:LINE``)."""
        per_file: dict[str, int] = {}
        out, hidden = [], {}
        for p in self.problems:
            name = p.path.rsplit(":", 1)[0] if p.path.rsplit(":", 1)[-1].isdigit() else p.path
            per_file[name] = per_file.get(name, 0) + 1
            if per_file[name] <= self.SHOWN:
                out.append(str(p))
            else:
                hidden[name] = hidden.get(name, 0) + 1
        out += [f"{name}: and {n} more problem(s) like these" for name, n in hidden.items()]
        return out


def raise_all(problems: list[InputError]) -> None:
    """Raise ``problems``: nothing when empty, the one error alone, else :class:`InputErrors`."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise InputErrors(problems)


def check_all(items, check) -> list:
    """``[check(item) for item in items]``, every :class:`InputError` collected and raised
    together at the end (:func:`raise_all`) instead of stopping at the first."""
    out, problems = [], []
    for item in items:
        try:
            out.append(check(item))
        except InputError as exc:
            problems.append(exc)
    raise_all(problems)
    return out
