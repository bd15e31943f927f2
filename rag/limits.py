"""Limits of one question, the same for the ask API, the chat page and the prompts."""

MAX_QUESTION_CHARS = 500  # characters of a question
MAX_HISTORY_TURNS = 5  # earlier question/answer turns sent with a question (the most recent)
