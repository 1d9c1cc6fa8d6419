"""Backends, static tile sizes and the pinned-bytes budget
(`00-overview.md` §6, `20-lower-pipeline-to-slots.md` §8).

- `Backend`: Ascend910B, Ascend950, or none; each fixes the capacity of every memory space,
  the accumulator row alignment and the module's `pto.target_arch`. Code generation imports
  these tables too.
- `tile_bytes(tile_type, backend)`: the static byte size of one tile (one slot), with the
  `Acc` row rounding; `None` when the tile has no static size.
- `Budget`: the per-space committed bytes of one function, seeded with the author's pinned
  allocations (§8.3), and the capacity check of §8.2 (equality fits; exact arithmetic; a
  value beyond an unsigned 64-bit integer declines).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass, field

from slotsat.core import ir
from slotsat.core.ir import DType, MemorySpace

U64_MAX = (1 << 64) - 1


class Backend(enum.Enum):
    """The target SoC (`--backend`). `NONE` leaves every space ungated."""

    ASCEND910B = "910b"
    ASCEND950 = "950"
    NONE = "none"

    @classmethod
    def parse(cls, text: str) -> Backend:
        key = text.strip().lower().removeprefix("ascend")
        for b in cls:
            if b.value == key:
                return b
        raise ValueError(f"unknown backend '{text}'; expected 910b, 950 or none")

    @property
    def display_name(self) -> str:
        return {Backend.ASCEND910B: "Ascend910B", Backend.ASCEND950: "Ascend950", Backend.NONE: "none"}[self]

    def capacity(self, space: MemorySpace) -> int:
        """Usable bytes of `space`; 0 means ungated (no such space, DDR, or no backend)."""
        return _CAPACITY.get(self, {}).get(space, 0)

    def acc_row_alignment(self, dtype: DType) -> int:
        """Rows an `Acc` tile's M dimension is rounded up to."""
        if self is Backend.ASCEND950:
            return 16
        return 32 if dtype is DType.INT32 else 16

    @property
    def target_arch(self) -> str | None:
        """The module attribute `pto.target_arch` (`None` without a backend)."""
        return {Backend.ASCEND910B: "a2a3", Backend.ASCEND950: "a5"}.get(self)


_CAPACITY: dict[Backend, dict[MemorySpace, int]] = {
    Backend.ASCEND910B: {
        MemorySpace.DDR: 0,
        MemorySpace.Vec: 188_416,
        MemorySpace.Mat: 524_288,
        MemorySpace.Left: 65_536,
        MemorySpace.Right: 65_536,
        MemorySpace.Acc: 131_072,
        MemorySpace.Bias: 1_024,
    },
    Backend.ASCEND950: {
        MemorySpace.DDR: 0,
        MemorySpace.Vec: 245_760,
        MemorySpace.Mat: 524_288,
        MemorySpace.Left: 65_536,
        MemorySpace.Right: 65_536,
        MemorySpace.Acc: 262_144,
        MemorySpace.Bias: 4_096,
    },
}


def tile_bytes(tile_type: ir.TileType, backend: Backend) -> int | None:
    """The static size of one tile in bytes (§8.1), or `None` without a static size.

    Non-`Acc`: the product of the physical shape times the element size. `Acc`: rank 2
    required; the row dimension M is rounded up to the backend's alignment.
    """
    shape = tile_type.shape
    if not shape or any(d <= 0 for d in shape):
        return None
    nbytes = tile_type.dtype.nbytes
    if tile_type.memory_space is MemorySpace.Acc:
        if len(shape) != 2:
            return None
        align = backend.acc_row_alignment(tile_type.dtype)
        rows = -(-shape[0] // align) * align
        return rows * shape[1] * nbytes
    size = nbytes
    for d in shape:
        size *= d
    return size


@dataclass(frozen=True, slots=True)
class CapacityDecline:
    """Why a loop's regions do not fit (the `capacity` record's fields)."""

    space: MemorySpace
    needed: int
    remaining: int
    capacity: int

    @property
    def message(self) -> str:
        return (f"the slots need {self.needed} bytes of {self.space.value}, "
                f"but only {self.remaining} of {self.capacity} remain")


@dataclass
class Budget:
    """Pinned bytes per memory space for one function (§8.3)."""

    backend: Backend
    committed: dict[MemorySpace, int] = field(default_factory=dict)

    def seed(self, tiles: Iterable[ir.Var]) -> None:
        """Add the author's pinned allocations: per base, the largest slot size times the
        largest slot count seen, in the space of its first binding."""
        groups: dict[int, tuple[MemorySpace, int, int]] = {}
        order: list[int] = []
        for v in tiles:
            t = v.type
            if not isinstance(t, ir.TileType) or t.memref is None or not t.memref.is_pinned:
                continue
            if t.memory_space is None:
                continue
            size = tile_bytes(t, self.backend) or 0
            base = t.memref.base.id
            if base not in groups:
                order.append(base)
                groups[base] = (t.memory_space, size, t.memref.slot_count)
            else:
                space, s0, c0 = groups[base]
                groups[base] = (space, max(s0, size), max(c0, t.memref.slot_count))
        for base in order:
            space, size, count = groups[base]
            if size == 0 or count == 0:
                continue
            self.committed[space] = self.committed.get(space, 0) + size * count

    def check(self, added: dict[MemorySpace, int]) -> CapacityDecline | None:
        """The §8.2 check of one loop's regions; `None` when they fit."""
        if self.backend is Backend.NONE:
            return None
        for space, need in added.items():
            cap = self.backend.capacity(space)
            if cap == 0:
                continue
            used = self.committed.get(space, 0)
            if used >= cap or need > cap - used or need > U64_MAX:
                return CapacityDecline(space, need, max(cap - used, 0), cap)
        return None

    def commit(self, added: dict[MemorySpace, int]) -> None:
        if self.backend is Backend.NONE:
            return
        for space, need in added.items():
            self.committed[space] = self.committed.get(space, 0) + need


def region_bytes(tiles: Iterable[ir.TileType], stages: int, backend: Backend) -> dict[MemorySpace, int] | int:
    """Per-space bytes of the regions for `tiles` at `stages` slots each, or the index of
    the first tile without a static size (or whose size overflows an unsigned 64-bit value)."""
    added: dict[MemorySpace, int] = {}
    for k, t in enumerate(tiles):
        size = tile_bytes(t, backend)
        if size is None or t.memory_space is None or size * stages > U64_MAX:
            return k
        space = t.memory_space
        added[space] = added.get(space, 0) + size * stages
        if added[space] > U64_MAX:
            return k
    return added
