"""Reading settings from the environment: each helper returns the variable's value, or the
default when it is unset or empty, and refuses a malformed value with ImproperlyConfigured
(the process does not start on a typo)."""

import os
import re

from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str = "") -> str:
    return os.getenv(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.getenv(name)
    if value is None or value == "":
        return default
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {value!r}")


def env_int(name: str, default: int) -> int:
    return _env_number(name, default, int, "an integer")


def env_float(name: str, default: float) -> float:
    return _env_number(name, default, float, "a number")


def _env_number(name: str, default, parse, what: str):
    value = os.getenv(name)
    if value is None or value == "":
        return default
    try:
        return parse(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be {what}, got {value!r}") from None


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = os.getenv(name) or default
    if value not in choices:
        raise ImproperlyConfigured(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


def env_rate(name: str, default: str) -> str:
    """A django-ninja rate ("10/m", "30/h", "100/d"); empty disables the limit."""
    value = os.getenv(name, default).strip()
    if value and not re.fullmatch(r"\d+/\d*(s|sec|m|min|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name} must look like 10/m or 30/h (or be empty), got {value!r}")
    return value
