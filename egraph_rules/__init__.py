"""The e-graph side of slotsat (`60-egraph-engine.md`), one job per module.

Languages and rules:

- `loops`: the `Loop` sort, its one fact schema (`loop_facts`) and `LoopInfo`;
- `lang`: the `Dtype` and `Idx` sorts, dtype facts, the `widths` ruleset, the rule registry;
- `syntactic`, `intervals`: the two non-negativity analyses;
- `normalize` (`slot_forms`, `ir_forms`), `lower_arith` (`lower_arith`, `lower_syntactic`):
  rewrites and the proven lowering alternatives (`remu` / `divu`, and `rems` / `divs` for
  `--mode pypto`);
- `gates`, `slotize`: the slots pass's eligibility and rotation rules;
- `schedules`: every ruleset (`RULESETS`, `registered_rules()`) and named schedule (Python-driven
  fixpoints of single ruleset iterations, `Fix`).

Running egglog:

- `calls`: the call trees Python states facts and terms in;
- `session`: the program template, the adapter over egglog, the bounded runner and its limits;
- `bulk`: the loader the session inserts through (egglog's `input` and load rules).

The index engine (codegen, `explore`):

- `ir_terms`: IR integer expressions as index-language terms (leaves and their parts);
- `written`: the node-by-node lowering of leaves (unsigned ops, comparisons; the cast and
  comparison op names);
- `view`: the parsed export of one e-graph (and its drawing for `explore --dot`);
- `costs`: the emitted-term language and its op counts;
- `extract`: the CSE-aware, matcher-filtered extraction (the peel-aware search);
- `scope`: values already emitted in scope;
- `engine`: `IndexEngine`, which ties them together (every integer root of a function, both
  modes; the written-form extraction of `--mode pypto`).
"""
