"""The e-graph side of slotsat (`60-egraph-engine.md`), one job per module.

Languages and rules:

- `loops`: the `Loop` sort, its one fact schema (`loop_facts`) and `LoopInfo`;
- `lang`: the `Dtype` and `Idx` sorts, dtype facts, the `widths` ruleset, the rule registry;
- `syntactic`, `intervals`: the two non-negativity analyses;
- `normalize` (`slot_forms`, `ir_forms`), `lower_arith`: rewrites and proven forms;
- `gates`, `slotize`: the slots pass's eligibility and rotation rules;
- `schedules`: every ruleset (`RULESETS`, `registered_rules()`) and named schedule.

Running egglog:

- `calls`: the call trees Python states facts and terms in;
- `session`: the program template, the adapter over egglog, the bounded runner and its limits.

The index engine (codegen, `explore`):

- `ir_terms`: IR integer expressions as index-language terms;
- `written`: the as-written lowering (and the cast and comparison ops);
- `view`: the parsed export of one e-graph;
- `costs`: the emitted-term language and its op counts;
- `extract`: the CSE-aware, matcher-filtered extraction;
- `scope`: values already emitted in scope;
- `engine`: `IndexEngine`, which ties them together.
"""
