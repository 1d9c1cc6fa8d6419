"""What one benchmark run measures: its sizes (`BenchConfig`) and its kernels (`collect_sources`).

The corpus is the bundled example kernels plus random kernels regenerated from `--seed` by
`slotsat.bench.generate`, or, with `--corpus DIR`, every kernel file in DIR.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from slotsat.bench.generate import GeneratedKernel, count_loops, generate_corpus
from slotsat.core.resources import bundled_kernels_dir

QUICK_BUDGET_SECONDS = 52.0
"""Wall-clock budget of `--quick` for the corpus and the `functions` scaling shape (issue 7
asks for < 60 s)."""
SINGLE_QUICK_BUDGET_SECONDS = 30.0
"""Wall-clock budget of `--quick` for the `single` scaling shape's points (issue 14's
targets put its 10, 100 and 1,000 loops at about 2.5 s)."""


@dataclass(frozen=True, slots=True)
class BenchConfig:
    """Sizes of one run. `quick()` finishes in under a minute on two cores."""

    seed: int = 0
    quick: bool = False
    random_kernels: int = 40
    max_loops: int = 40
    scaling: tuple[int, ...] = (1, 10, 100, 1000, 10000)
    """Sizes of the `functions` scaling shape (many small functions)."""
    single_scaling: tuple[int, ...] = (10, 100, 1000, 10000)
    """Sizes of the `single` scaling shape (every loop in one function, issue 14)."""
    corpus: Path | None = None
    include_bundled: bool = True
    command: str = "slotsat bench"

    @classmethod
    def for_args(cls, *, quick: bool, seed: int, corpus: Path | None, command: str) -> BenchConfig:
        if quick:
            return cls(seed=seed, quick=True, random_kernels=12, max_loops=16,
                       scaling=(1, 10, 100, 1000), single_scaling=(10, 100, 1000), corpus=corpus,
                       command=command)
        return cls(seed=seed, corpus=corpus, command=command)


@dataclass(frozen=True, slots=True)
class KernelSource:
    name: str
    source: str  # "bundled", "random" or "corpus"
    text: str
    path: str
    loops: int



def _bundled_dirs() -> list[Path]:
    return [bundled_kernels_dir()]


def collect_sources(config: BenchConfig) -> list[KernelSource]:
    """The kernels of one run: `--corpus DIR`, or the bundled examples plus the random corpus."""
    sources: list[KernelSource] = []
    if config.corpus is not None:
        for path in sorted(config.corpus.glob("*.py")):
            text = path.read_text()
            sources.append(KernelSource(path.stem, "corpus", text, str(path), count_loops(text)))
        return sources
    if config.include_bundled:
        seen: set[str] = set()
        for d in _bundled_dirs():
            for path in sorted(d.glob("*.py")):
                if path.name.startswith("_") or path.stem in seen:
                    continue
                seen.add(path.stem)
                text = path.read_text()
                sources.append(KernelSource(path.stem, "bundled", text, str(path), count_loops(text)))
    kernels: list[GeneratedKernel] = generate_corpus(config.seed, config.random_kernels, config.max_loops)
    for k in kernels:
        sources.append(KernelSource(k.name, "random", k.text, f"<generated seed={k.seed}>", k.loops))
    return sources

