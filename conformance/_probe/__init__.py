"""The mutation-probe runner: apply one named mutant at a time to a target's source,
run the cases, and require some case to fail by a check, proving each guard
load-bearing.

``catalogue``  the probe catalogue schema and loader (YAML, or one unified diff)
``mutate``     a probe applied to source text (exactly one match, or ``invalid``)
``modules``    a mutated module rebuilt in the running process, the user's files untouched
``verdicts``   one mutant's cells -> ``killed``/``crashed``/``timeout``/``survived``
``run``        positive control, then every probe (in-process or in a forked child)
``report``     terminal matrix, JSON (versioned) and Markdown
"""
