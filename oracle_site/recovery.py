"""TEMPORARY alias until questions/ imports questions.recovery (issue 14 merge): delete this file."""

import sys

from questions import recovery

sys.modules[__name__] = recovery
