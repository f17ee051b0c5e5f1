"""The subcommands of ``wire-conformance``, one module each: a ``Command`` object
(``base``) that declares its arguments and runs; ``conformance._cli`` lists them in its
table.  Bodies that belong to a lower unit (probe, generate, recording) stay there and
are called from here."""
