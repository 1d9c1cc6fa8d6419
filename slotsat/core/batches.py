"""Cutting a sequence of work items into batches by weight: the passes that share one e-graph
between several functions (the slots pass, codegen's index engines) share it a batch at a
time, so that neither the e-graph nor what waits on it grows with the whole module."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

_T = TypeVar("_T")


def batched(items: Iterable[_T], weight: Callable[[_T], int], limit: int) -> Iterator[list[_T]]:
    """`items` in order, in batches that close once their `weight`s add up to `limit` (an item
    is never split: a heavy one closes the batch it joins); the last may weigh less, and none
    is empty. Lazy: an item is taken only once the batch before it is handed on."""
    batch: list[_T] = []
    total = 0
    for item in items:
        batch.append(item)
        total += weight(item)
        if total >= limit:
            yield batch
            batch, total = [], 0
    if batch:
        yield batch
