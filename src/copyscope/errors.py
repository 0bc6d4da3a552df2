"""Errors raised for bad input: each names the file or key and what was expected."""


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
