"""Values already emitted in scope (`30-pto-codegen.md` §6): the memo the extraction and
the emitters share, keyed by e-class."""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Generic, TypeVar

V = TypeVar("V")


class ScopedMemo(Generic[V]):
    """Values keyed by e-class, visible in the block that recorded them and the blocks nested
    inside it (`30-pto-codegen.md` §6: a value already emitted in scope is reused)."""

    def __init__(self) -> None:
        self._scopes: list[dict[Hashable, V]] = [{}]

    def push(self) -> None:
        self._scopes.append({})

    def pop(self) -> None:
        if len(self._scopes) == 1:
            raise RuntimeError("ScopedMemo.pop without a matching push")
        self._scopes.pop()

    def lookup(self, key: Hashable) -> V | None:
        for scope in reversed(self._scopes):
            if key in scope:
                return scope[key]
        return None

    def add(self, key: Hashable, value: V) -> None:
        self._scopes[-1][key] = value

    def items(self) -> Iterator[tuple[Hashable, V]]:
        for scope in self._scopes:
            yield from scope.items()
