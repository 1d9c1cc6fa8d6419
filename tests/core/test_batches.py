"""`slotsat.core.batches.batched`: order kept, a batch closes at its weight limit (a heavy
item closes the batch it joins), and items are taken lazily."""

from __future__ import annotations

from collections.abc import Iterator

from slotsat.core.batches import batched


def test_batches_close_at_the_limit_and_keep_the_order() -> None:
    weights = [3, 1, 1, 9, 2, 2, 1]
    out = list(batched(range(len(weights)), lambda k: weights[k], 4))
    assert out == [[0, 1], [2, 3], [4, 5], [6]]
    assert list(batched([], lambda k: k, 4)) == []


def test_an_item_is_taken_only_when_its_batch_is_filled() -> None:
    taken: list[int] = []

    def items() -> Iterator[int]:
        for k in range(6):
            taken.append(k)
            yield k

    it = batched(items(), lambda _k: 1, 2)
    assert next(it) == [0, 1]
    assert taken == [0, 1]
    assert next(it) == [2, 3]
    assert taken == [0, 1, 2, 3]
