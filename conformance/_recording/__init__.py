"""Recorded fixtures: real (or synthetic) provider exchanges kept as files, replayed
byte for byte against a target, and compared with what was recorded.

One module per job: ``model`` (the versioned file format), ``blob`` (bytes in JSON),
``sanitize`` (secrets out, payloads kept), ``load`` (located errors, secret refusal),
``to_case`` (a recording read back into the case language), ``replay`` (a recording as a
provider source), ``drift`` (what the target sent against what was recorded), ``proxy``
(the recording reverse proxy), ``diff`` (verdicts that changed between two reports).
"""
