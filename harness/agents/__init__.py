"""Old home of the command agents, kept as aliases for scripts that still name it: the
adapter-as-command runner is ``conformance.agent`` and the Node example ships in
``conformance/examples/``."""
