"""The limits of one question, said once: the views, the API schema and the chat script read
them from here (docs/asking.md)."""

MAX_QUESTION_CHARS = 500  # a rules question, not a document
MAX_HISTORY_TURNS = 5  # earlier turns sent back with a question
