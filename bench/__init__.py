"""`slotsat bench` and `slotsat demo`: the compiler measured on a corpus of kernels.

One run (`40-ptoas-slot-matcher.md` §8; `60-egraph-engine.md` §11) compiles every kernel of
the corpus under several lowerings, reads the emitted `.pto` text back and measures it, and
times compiles of growing size. One file per job:

| File | Job |
| --- | --- |
| `command.py`, `demo.py` | the `bench` and `demo` commands |
| `config.py` | a run's sizes and its corpus (bundled, generated or `--corpus DIR`) |
| `generate.py`, `corpus/` | the random kernel generator and its checked-in samples |
| `harness.py` | the compiler under test: parse and compile one kernel in one mode |
| `lowerings.py` | the lowerings compared (naive, pypto, slotsat) and how each is produced |
| `scan.py` | emitted `.pto` text read back as value graphs |
| `probe.py` | the engine probe: rotation pairs chosen the way codegen chooses them |
| `truth.py` | ground truth: exact evaluation of a pair over its iteration space |
| `metrics.py` | the metrics of one lowering of one kernel, pairs checked against ground truth |
| `measure.py` | one kernel under every lowering |
| `scaling.py` | compile-time scaling, one subprocess per size |
| `run.py` | one whole run into the report document |
| `report.py` | the document written out: report.json, report.md, plots, targets |
"""
