"""The ask flow: from a stored Question to its persisted answer, in named steps
(docs/architecture.md, « question → answer »). `flow.py` reads top to bottom; each step
module does one thing to the shared `AskContext`."""
