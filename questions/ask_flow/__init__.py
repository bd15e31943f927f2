"""The ask flow: from a stored Question to its persisted answer, in named steps
(docs/architecture.md, « question → answer »). `flow.py` reads top to bottom; each step
takes what it needs as arguments (the shared `AskContext` holds the question, `emit`, its
`Answering` and the timer) and returns a small frozen result (context.py)."""
