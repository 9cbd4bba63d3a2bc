"""Things chosen by name — partition methods, schedule policies, shipped platforms, presets — kept one way.

A `Registry` maps names to values (functions, factories, files) in the order they were added; that order is the
order the CLI and the errors list them in. An unknown name is one `InputError` that lists the known names:

    LAYOUTS = Registry("grid layout", {"rows": contiguous_rows, "nphp": nphp})
    LAYOUTS["nphp"]            # the function
    LAYOUTS["nope"]            # InputError: unknown grid layout 'nope'; choose one of rows, nphp
    LAYOUTS.names()            # ("rows", "nphp"): for argparse choices and docs

Aliases and unlisted entries (accepted, not offered) cover older spellings without cluttering the list.
"""

from __future__ import annotations

from typing import Generic, Iterable, Iterator, Mapping, TypeVar

from apportion.errors import InputError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named values of one `kind` (the word the error message uses, e.g. "grid method").

    fold_case: look names up case-insensitively (names are stored as given, lower case expected).
    """

    def __init__(self, kind: str, entries: Mapping[str, T] | None = None, *, fold_case: bool = False):
        self.kind = kind
        self.fold_case = fold_case
        self._values: dict[str, T] = {}
        self._listed: list[str] = []
        self._aliases: dict[str, str] = {}
        for name, value in (entries or {}).items():
            self.add(name, value)

    def _key(self, name: str) -> str:
        return name.lower() if self.fold_case else name

    def add(self, name: str, value: T, *, aliases: Iterable[str] = (), listed: bool = True) -> T:
        """Register `value` under `name` (and `aliases`); `listed=False` accepts the name without offering it.
        Returns `value`. A name given twice is a programming error (ValueError)."""
        for key in (name, *aliases):
            if self._key(key) in self._values or self._key(key) in self._aliases:
                raise ValueError(f"{self.kind} {key!r} is registered twice")
        self._values[self._key(name)] = value
        for alias in aliases:
            self._aliases[self._key(alias)] = self._key(name)
        if listed:
            self._listed.append(name)
        return value

    def register(self, name: str, *, aliases: Iterable[str] = (), listed: bool = True):
        """Decorator form of `add`: `@POLICIES.register("hass")`."""
        def decorate(value: T) -> T:
            return self.add(name, value, aliases=aliases, listed=listed)
        return decorate

    def canonical(self, name: str) -> str:
        """The registered name `name` stands for (itself, or what it is an alias of); InputError when unknown."""
        if not isinstance(name, str):
            raise InputError(f"{self.kind} must be a name ({', '.join(self._listed)}), got {name!r}")
        key = self._key(name)
        key = self._aliases.get(key, key)
        if key not in self._values:
            raise InputError(f"unknown {self.kind} {name!r}; choose one of {', '.join(self._listed)}")
        return key

    def __getitem__(self, name: str) -> T:
        return self._values[self.canonical(name)]

    def get(self, name: str, default=None):
        """The value of `name`, or `default` when unknown (no error)."""
        return self[name] if name in self else default

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        key = self._key(name)
        return key in self._values or key in self._aliases

    def names(self) -> tuple[str, ...]:
        """The listed names, in the order they were added."""
        return tuple(self._listed)

    def items(self) -> list[tuple[str, T]]:
        """(name, value) of the listed names, in order."""
        return [(name, self._values[self._key(name)]) for name in self._listed]

    def __iter__(self) -> Iterator[str]:
        return iter(self._listed)

    def __len__(self) -> int:
        return len(self._listed)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._listed)})"
