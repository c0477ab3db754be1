"""How smol prompts a model: the strategy chosen from the model's capabilities (`strategy.py`), and
what the small-model strategy is made of: worked examples (`examples.py`, `tool_examples.py`), its
tool signatures (`tool_signatures.py`), the action grammar (`grammar.py`), the conversion factor a
unit task needs (`unit_facts.py`), the checks and vote among drafted answers (`draft_checks.py`,
`answer_form.py`: a value, in the form the question asks for; `drafts.py`; and `draft_certainty.py`,
which can make one draft enough) and the verbose line that says which mode a run gets (`mode.py`).

This floor stands above models, tools and memory and below agents: a strategy is told what it needs
(`PromptFacts`) and never sees the agent.
"""
